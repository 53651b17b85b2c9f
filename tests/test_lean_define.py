"""Schema 17 (issue 19): a DEFINE of a local queue writes its definition (with the
queue's number, `objects.qkey`) and its head row, and no counter rows; the marks that
were `queue_marks` live in the head row; the counters of a queue nobody has used are
derived when read. A store of schema 16 keeps everything it held."""

from __future__ import annotations

from pathlib import Path

from mqtool.clock import Clock
from mqtool.complex import ensure_complex
from mqtool.session import Session
from mqtool.state import SCHEMA_VERSION, Store
from mqtool.state import messages as runs
from tests.conftest import MQ
from tests.store_versions import store_at


def _lines(mq: MQ, *commands: str) -> list[str]:
    out: list[str] = []
    for command in commands:
        result = mq("cmd", command)
        assert result.exit_code == 0, result.output
        out += result.output.splitlines()
    return out


def _frames(store: Store) -> int:
    page_size = store.conn.execute("PRAGMA page_size").fetchone()[0]
    wal = store.path.with_name(store.path.name + "-wal")
    return max(0, wal.stat().st_size - 32) // (page_size + 24)


def test_a_define_writes_no_counter_rows_and_few_pages(tmp_path: Path) -> None:
    """Counted from outside: the pages a DEFINE QL and a DEFINE QLOCAL add to the log
    (schema 16 wrote about 9 and 11), and the tables they leave alone."""
    store = Store.open(tmp_path)
    try:
        clock = Clock()
        ensure_complex(store, clock.timestamp())
        session = Session(store, clock)
        for line in ("ZMQSC DEFINE QL-WARM", "-CSQ1 DEFINE QLOCAL(WARM)"):
            assert session.execute(line).status == "ok"
        store.conn.execute("PRAGMA wal_autocheckpoint = 0")
        for line, most in (("ZMQSC DEFINE QL-NEW{}", 6), ("-CSQ1 DEFINE QLOCAL(NEW{})", 8)):
            store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            for number in range(10):
                assert session.execute(line.format(number)).status == "ok"
            assert _frames(store) <= most * 10, line
        conn = store.conn
        assert conn.execute("SELECT count(*) FROM queue_stats WHERE queue LIKE 'NEW%'").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM zos_qstats WHERE queue LIKE 'NEW%'").fetchone()[0] == 0
        numbers = [row[0] for row in conn.execute("SELECT qkey FROM objects WHERE name LIKE 'NEW%' ORDER BY qkey")]
        assert len(set(numbers)) == 20 and None not in numbers
        heads = conn.execute(f"SELECT count(*) FROM messages WHERE id IN ({runs.heads(numbers)})").fetchone()[0]
        assert heads == 20
    finally:
        store.close()


def test_statistics_of_a_queue_nobody_used_are_derived(mq: MQ) -> None:
    """DISPLAY QL STAT and RESET QSTATS of queues without counter rows: zeros, reset at
    the definition; the first open writes the z/TPF row, a reset the z/OS one."""
    _lines(mq, "ZMQSC DEFINE QL-FRESH", "-CSQ1 DEFINE QLOCAL(FRESH)")
    shown = _lines(mq, "ZMQSC DISPLAY QL-FRESH STAT")
    assert "Num of MQOPEN     - 0" in shown and "Persistent Msgs    - 0 (0 bytes)" in shown, shown
    assert mq("put", "FRESH", "--data", "x", "-q").exit_code == 0
    store = Store.open(mq.state_dir)
    try:
        row = store.conn.execute("SELECT opens, closes, t_put_np + t_put_p FROM queue_stats WHERE queue = 'FRESH'")
        assert row.fetchone() == (1, 1, 1)
    finally:
        store.close()
    reset = _lines(mq, "-CSQ1 ALTER QMGR PERFMEV(ENABLED)", "-CSQ1 RESET QSTATS(FRESH)")
    assert any("MSGSIN(0)" in line for line in reset), reset
    assert any("MSGSOUT(0)" in line for line in reset), reset


def test_queue_numbers_are_found_again_when_they_run_out(tmp_path: Path) -> None:
    """After the highest number (524287) the first free one is given."""
    store = Store.open(tmp_path)
    try:
        clock = Clock()
        ensure_complex(store, clock.timestamp())
        session = Session(store, clock)
        assert session.execute("ZMQSC DEFINE QL-TOP").status == "ok"
        with store.transaction() as tx:
            qkey = runs.queue_key(tx.conn, "TPF1", "TOP")
            assert qkey is not None
            tx.conn.execute("UPDATE messages SET id = ? WHERE id = ?", (runs.head_id(524287), runs.head_id(qkey)))
            tx.conn.execute("UPDATE objects SET qkey = 524287 WHERE system = 'TPF1' AND name = 'TOP'")
        assert session.execute("ZMQSC DEFINE QL-NEXT").status == "ok"
        with store.transaction(write=False) as tx:
            given = runs.queue_key(tx.conn, "TPF1", "NEXT")
            taken = {row[0] for row in tx.conn.execute("SELECT qkey FROM objects WHERE qkey IS NOT NULL")}
        assert given is not None and given < 524287 and given - 1 in taken | {0}
        assert session.execute("ZMQSC DEFINE QL-AFTER").status == "ok"
    finally:
        store.close()


def test_migration_17_keeps_queues_marks_messages_and_counters(tmp_path: Path) -> None:
    """A store of schema 16 with queues on both platforms, a message, marks and counters:
    opened by this mqtool, it holds the same, and a new queue gets a new number."""
    conn = store_at(tmp_path / "mqtool.db", 16)
    conn.execute("INSERT INTO systems VALUES ('TPF1', 'ztpf', 1, '{}')")
    conn.execute("INSERT INTO systems VALUES ('CSQ1', 'zos', 2, '{}')")
    for system, type_, name in (("TPF1", "QL", "Q1"), ("TPF1", "QL", "Q2"), ("CSQ1", "QLOCAL", "Z1")):
        conn.execute(
            "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
            "VALUES (?, ?, ?, '{}', '{}', 100, 100)",
            (system, type_, name),
        )
    marks = dict(conn.execute("SELECT queue, qkey FROM queue_marks").fetchall())
    conn.execute("UPDATE queue_marks SET ckpt_mark = 7, hi_warned = 1 WHERE queue = 'Q2'")
    conn.execute("UPDATE queue_stats SET opens = 3, t_gets = 4 WHERE queue = 'Q2'")
    conn.execute("UPDATE zos_qstats SET removed = 2, reset_time = 50 WHERE queue = 'Z1'")
    conn.execute(
        "INSERT INTO messages (id, system, queue, priority, msgid, correlid, persistent, put_time, "
        "original_length, stored_length, payload) VALUES (?, 'TPF1', 'Q2', 0, ?, ?, 1, 0, 3, 3, x'414243')",
        (runs.row_id(marks["Q2"], 0, 1), bytes(24), bytes(24)),
    )
    conn.close()
    store = Store.open(tmp_path)
    try:
        conn = store.conn
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION  # 17, and those after it
        assert dict(conn.execute("SELECT queue, qkey FROM queue_marks").fetchall()) == marks
        assert conn.execute("SELECT ckpt_mark, hi_warned FROM queue_marks WHERE queue = 'Q2'").fetchone() == (7, 1)
        assert conn.execute("SELECT depth, next_seq FROM queue_figures WHERE queue = 'Q2'").fetchone() == (1, 2)
        assert conn.execute("SELECT opens, t_gets FROM queue_stats WHERE queue = 'Q2'").fetchone() == (3, 4)
        assert conn.execute("SELECT removed, reset_time FROM zos_qstats WHERE queue = 'Z1'").fetchone() == (2, 50)
        kind = conn.execute("SELECT type FROM sqlite_master WHERE name = 'queue_marks'").fetchone()
        assert kind == ("view",)
        with store.transaction() as tx:
            tx.conn.execute(
                "INSERT INTO objects (system, type, name, attrs, status, created, altered) "
                "VALUES ('TPF1', 'QL', 'Q3', '{}', '{}', 200, 200)"
            )
            assert runs.queue_key(tx.conn, "TPF1", "Q3") == max(marks.values()) + 1
            tx.conn.execute("DELETE FROM objects WHERE system = 'TPF1' AND type = 'QL' AND name = 'Q2'")
            left = tx.conn.execute(
                "SELECT count(*) FROM messages WHERE id >= ? AND id < ?", runs.span(marks["Q2"])
            ).fetchone()[0]
            assert left == 0  # the queue's messages and head row went with it
            assert tx.conn.execute("SELECT count(*) FROM queue_stats WHERE queue = 'Q2'").fetchone()[0] == 0
    finally:
        store.close()
