"""Opening, migrating and transacting on the SQLite state file of one state directory."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mqtool.state.records import PLAIN_TYPES, ObjectRecord, SystemRecord

DB_NAME = "mqtool.db"
APPLICATION_ID = 0x4D51544C  # "MQTL": marks the file as an mqtool store
BUSY_TIMEOUT_MS = 60_000
WAL_RETRY_MS = 20
# Pages in the write-ahead log that start a checkpoint (SQLite's default is 1000). A
# command's transaction writes a few pages, mostly the same few again, so a short log
# checkpoints little at a time; and a new store stops growing its log file (which makes
# each fsync also write file metadata) after a hundred commits instead of a thousand.
WAL_AUTOCHECKPOINT = 128
# Page cache of the connection, in KiB (SQLite's default is 2 MiB). A channel batch of
# 320 messages of 32 KB reads 10 MB of overflow pages and removes them one transaction
# later; with 2 MiB they were gone from the cache by then and every removal read its
# message's overflow chain again from the file. SQLite takes the memory only as pages
# are used, so a small store never grows to it.
CACHE_KIB = 32 * 1024
# The page size of a new store (SQLite's default, set explicitly). A stored message of
# 2 KB takes a 4 KB page of its own (two do not fit), so stored messages take twice their
# size on disk; 16 KB pages hold seven (1.14x), but every page a command changes is
# written to the log whole, and a DEFINE, which changes about five, costs twice the CPU
# with them (benchmarks/README.md, "Where the time goes"). Existing stores keep theirs.
PAGE_SIZE = 4096
DISK_FULL_BELOW = 64 * 1024  # free bytes under which an I/O error is put down to a full disk
# The index SQLite makes for the primary key (system, type, name) of `objects` (its name
# is SQLite's rule for the first unnamed unique constraint of a table).
PRIMARY_KEY_INDEX = "sqlite_autoindex_objects_1"
WATCHED = ("systems", "timers")  # tables whose changes Store.generation() reports
# z/TPF's default MAXMSGL (the queue manager's, which its local queues inherit): the index
# of MAXMSGL leaves out the local queues that have it (migration 0018), so that a DEFINE
# that takes it writes one page fewer; Transaction.first_at_maxmsgl finds those.
MAXMSGL_UNINDEXED = 4194304
# Attributes that name other objects, each with a partial index on its value (migration
# 0007) that holds the object types with that attribute, and the WHERE of that index:
# Transaction.objects_where repeats it in its query, as SQLite needs to use a partial
# index, so it finds objects of those types only. Two leave out a value (migration 0018):
# STREAMQ blank (nobody asks which queues stream to none) and MAXMSGL_UNINDEXED.
REFERENCE_ATTRIBUTES: dict[str, str] = {
    "STREAMQ": "type IN ('QLOCAL', 'QMODEL') AND json_extract(attrs, '$.STREAMQ') <> ''",
    "TARGET": "type = 'QALIAS'",
    "TARGQ": "type = 'QA'",
    "XMITQ": "type IN ('QR', 'CHL', 'QREMOTE', 'CHANNEL')",
    "STGCLASS": "type IN ('QLOCAL', 'QMODEL')",
    "PSID": "type = 'STGCLASS'",
    "MAXMSGL": f"type = 'QL' AND json_extract(attrs, '$.MAXMSGL') <> {MAXMSGL_UNINDEXED}",
}


class StoreError(Exception):
    """The store cannot be opened or used: damaged, foreign, newer, or unwritable.
    `full`: because its disk is full (what could not be written can be tried again)."""

    def __init__(self, message: str, full: bool = False) -> None:
        super().__init__(message)
        self.full = full


# SQLite result codes (extended codes carry a suffix: SQLITE_IOERR_FSYNC ...) that say the
# state file or its disk failed, not mqtool: reported as such, naming the file.
_DAMAGED = ("SQLITE_CORRUPT", "SQLITE_NOTADB")
_DISK = ("SQLITE_FULL", "SQLITE_IOERR", "SQLITE_READONLY", "SQLITE_CANTOPEN", "SQLITE_PERM")


def describe_error(path: Path, exc: BaseException) -> str | None:
    """The one-line description of a failure of the state file or its disk (full, I/O
    error, damaged, read-only); None for any other error."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    name = str(getattr(exc, "sqlite_errorname", ""))
    if name.startswith("SQLITE_FULL"):
        return f"the state file {path} cannot grow: the disk is full ({exc})"
    if name.startswith("SQLITE_IOERR"):
        # A full disk often shows as an I/O error (the -shm or -wal file cannot grow).
        if _disk_full(path.parent):
            return f"the state file {path} cannot grow: the disk is full ({exc}, {name})"
        return f"the state file {path} cannot be read or written: {exc} ({name})"
    if name.startswith(_DAMAGED):
        return f"the state file {path} is damaged ({exc}); move it away or use another --state directory"
    if name.startswith(_DISK):
        return f"the state file {path} cannot be used ({exc})"
    return None


def disk_full(path: Path, exc: BaseException) -> bool:
    """Whether a failure of the state file `path` comes from its full disk."""
    name = str(getattr(exc, "sqlite_errorname", ""))
    return name.startswith("SQLITE_FULL") or (name.startswith("SQLITE_IOERR") and _disk_full(path.parent))


def _disk_full(folder: Path) -> bool:
    try:
        import shutil  # only here: shutil imports bz2 and lzma, which a command need not load

        return shutil.disk_usage(folder).free < DISK_FULL_BELOW
    except OSError:
        return False


def payload_checksum(payload: object) -> int | None:
    """The checksum stored with a message (`messages.checksum`): CRC-32 of the payload
    as stored (compressed or not); None for a value that is not bytes. Used by migration
    0004 only, so zlib-ng is imported here (a command that opens a migrated store does
    not load it)."""
    from zlib_ng.zlib_ng import crc32  # the same CRC-32 as zlib's, several times faster

    return crc32(payload) if isinstance(payload, bytes) else None


def _migrations() -> list[tuple[int, str]]:
    folder: Any = Path(__file__).parent / "migrations"
    if not folder.is_dir():  # installed in a zip file: through importlib.resources
        from importlib import resources

        folder = resources.files("mqtool.state").joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), entry.read_text(encoding="utf-8")))
    return sorted(found)


SCHEMA_VERSION = 18  # the highest migration number; checked by a test against migrations/


def _dumps(value: dict[str, Any]) -> str:
    """json.dumps(value, sort_keys=True, separators=(",", ":")), from _ENCODED when a
    dict of the same keys and values (of the same types) was written before: every
    DEFINE that takes the defaults writes the same attributes."""
    if not value:
        return "{}"  # what json.dumps writes for an empty dict (a queue's status), without it
    types = (*map(type, value), *map(type, value.values()))
    if not _ENCODABLE.issuperset(types):
        return _encode(value)  # a list, a float (0.0 == -0.0), a subclass: not kept
    key = (tuple(value.items()), types)
    found = _ENCODED.get(key)
    if found is None:
        found = _encode(value)
        if len(_ENCODED) >= _ENCODED_MAX:
            _ENCODED.clear()
        _ENCODED[key] = found
    return found


_encode = json.JSONEncoder(sort_keys=True, separators=(",", ":")).encode  # made once, not per call
_ENCODABLE = frozenset((str, int, bool, type(None)))  # equal values of these types write the same text
_ENCODED: dict[tuple[tuple[tuple[str, Any], ...], tuple[type, ...]], str] = {}
_ENCODED_MAX = 64


# Attribute texts decoded before (the JSON text itself is the key, so a change of it by
# anyone is a new key): a system's settings and a queue manager's attributes are read by
# every command, the same text again and again. Kept only for a dict of plain values and
# lists of plain values, handed out as a copy with its lists copied (a caller may change
# what it got); bounded.
_DECODED: dict[str, tuple[dict[str, Any], tuple[str, ...]]] = {}
_DECODED_MAX = 64
_DECODED_LONGEST = 16384


def _decoded(text: str) -> Any:
    """json.loads(text), from _DECODED when it was decoded before."""
    found = _DECODED.get(text)
    if found is not None:
        return _copied(*found)
    value = json.loads(text)
    if type(value) is dict and len(text) <= _DECODED_LONGEST:
        lists = tuple(key for key, item in value.items() if type(item) is list)
        plain = PLAIN_TYPES.issuperset(type(item) for key, item in value.items() if key not in lists) and all(
            PLAIN_TYPES.issuperset(map(type, value[key])) for key in lists
        )
        if plain:
            if len(_DECODED) >= _DECODED_MAX:
                _DECODED.clear()
            _DECODED[text] = (_copied(value, lists), lists)
    return value


def _copied(value: dict[str, Any], lists: tuple[str, ...]) -> dict[str, Any]:
    """A copy of a decoded dict that shares nothing changeable: its `lists` copied too."""
    copy = value.copy()
    for key in lists:
        copy[key] = copy[key].copy()
    return copy


class Store:
    """One open state file. Use `transaction()` for every read and write."""

    def __init__(self, path: Path, conn: sqlite3.Connection, created: bool) -> None:
        self.path = path
        self.conn = conn
        self.created = created
        self._own_changes = 0  # this connection's writes to WATCHED tables (temp triggers count them)
        # Opened on a full disk (the reason), for reading: see _open_on_full_disk.
        self.full_disk: str | None = None

    @classmethod
    def open(cls, state_dir: Path, page_size: int = PAGE_SIZE) -> Store:
        """Opens (creating when missing) the store of `state_dir` and migrates it forward.
        An empty state file is damaged (mqtool never leaves one: see `_create`).
        `page_size` (a power of two, 512-65536) is that of a store created now."""
        path = Path(state_dir) / DB_NAME
        try:
            Path(state_dir).mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the state directory {state_dir}: {exc.strerror}") from exc
        created = False
        if not path.exists():
            created = _create(path, page_size)
        elif path.is_file() and path.stat().st_size == 0:
            raise StoreError(
                f"the state file {path} is empty: it is damaged (not an mqtool store); move it away, use "
                "another --state directory, or replace it with a new default complex (mqtool init --force)"
            )
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open the state file {path}: {exc}") from exc
        store = cls(path, conn, created=created)
        try:
            store._prepare()
        except sqlite3.DatabaseError as exc:
            conn.close()
            problem = describe_error(path, exc)
            if problem is not None and disk_full(path, exc):
                # The shared-memory index (-shm) cannot be made on a full disk: the store
                # is read with the index in this process's memory instead.
                return cls._open_on_full_disk(path, problem, exc)
            if problem is not None and not problem.startswith(f"the state file {path} is damaged"):
                raise StoreError(problem) from exc
            raise StoreError(
                f"the state file {path} is damaged or is not an mqtool store ({exc}); "
                "move it away or use another --state directory"
            ) from exc
        except StoreError:
            conn.close()
            raise
        return store

    @classmethod
    def _open_on_full_disk(cls, path: Path, problem: str, cause: BaseException) -> Store:
        """The store of a full disk, opened so that it can be read: in EXCLUSIVE locking
        mode, SQLite keeps the WAL index in memory and needs no -shm file (which cannot
        be made); other processes wait for this one while it runs. Writes fail with
        StoreError(full) at their commit, so reading commands work and the operator can
        decide what to clear. StoreError when even that cannot be done."""
        try:
            conn = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
            conn.execute("PRAGMA locking_mode = EXCLUSIVE")
        except sqlite3.Error:
            raise StoreError(problem, full=True) from cause
        store = cls(path, conn, created=False)
        try:
            store._prepare()
        except (sqlite3.DatabaseError, StoreError):
            conn.close()
            raise StoreError(problem, full=True) from cause
        store.full_disk = problem
        return store

    def _prepare(self, synchronous: str = "FULL") -> None:
        conn = self.conn  # its busy timeout is BUSY_TIMEOUT_MS (sqlite3.connect's timeout)
        # One read transaction, so that a process creating the store at this moment is
        # seen either before its first migration (empty) or after it (marked), never
        # between; one statement reads all that opening needs to know.
        conn.execute("BEGIN")
        try:
            app_id, tables, version, mode = conn.execute(
                "SELECT (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_master), "
                "(SELECT user_version FROM pragma_user_version), (SELECT journal_mode FROM pragma_journal_mode)"
            ).fetchone()
        except BaseException:
            self.rollback()  # not COMMIT: SQLite may have ended the transaction, and its error is the one to tell
            raise
        conn.execute("COMMIT")
        if app_id != APPLICATION_ID and (app_id != 0 or tables):
            raise StoreError(
                f"the state file {self.path} belongs to another program (application id {app_id:#x}); "
                "use another --state directory"
            )
        if str(mode).lower() != "wal":
            mode = self._wal()
            if str(mode).lower() != "wal":
                raise StoreError(f"the state file {self.path} cannot use WAL mode (got {mode})")
        conn.execute(f"PRAGMA synchronous = {synchronous}")
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT}")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"the state file {self.path} has schema version {version}, newer than this "
                f"mqtool understands ({SCHEMA_VERSION}); upgrade mqtool"
            )
        if version < SCHEMA_VERSION:  # a store at this mqtool's version reads no migration file
            self._migrate(version)
        self._watch()

    def _wal(self) -> str:
        """Switches the file to WAL mode. The switch needs the file to itself and SQLite
        does not wait for that (no busy handler), so while other processes are opening a
        new store at the same moment, try again for up to the busy timeout."""
        attempts = BUSY_TIMEOUT_MS // WAL_RETRY_MS
        for attempt in range(attempts):
            try:
                return str(self.conn.execute("PRAGMA journal_mode = WAL").fetchone()[0])
            except sqlite3.OperationalError as exc:
                if getattr(exc, "sqlite_errorname", "") != "SQLITE_BUSY" or attempt == attempts - 1:
                    raise
                time.sleep(WAL_RETRY_MS / 1000)
        raise AssertionError("unreachable")

    def _migrate(self, version: int) -> None:
        """Runs the migrations above `version` (the store's user_version), each in its
        own write transaction."""
        conn = self.conn
        # Migration 0004 checksums the payloads already stored.
        conn.create_function("mqtool_checksum", 1, payload_checksum, deterministic=True)
        for number, script in _migrations():
            if number <= version:
                continue
            conn.execute("BEGIN IMMEDIATE")
            try:
                # Another process may have migrated while we waited for the lock.
                if conn.execute("PRAGMA user_version").fetchone()[0] >= number:
                    conn.execute("ROLLBACK")
                    continue
                for statement in _split_sql(script):
                    conn.execute(statement)
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                conn.execute(f"PRAGMA user_version = {number}")
                conn.execute("COMMIT")
            except BaseException:
                self.rollback()
                raise

    def _watch(self) -> None:
        """Counts this connection's own changes to the WATCHED tables, so that sessions
        can keep what they read from them until something changes (a command then
        need not re-read the systems nor ask for due timers). Changes committed by
        other processes show in PRAGMA data_version instead."""

        def note(_table: str) -> None:
            self._own_changes += 1

        self.conn.create_function("mqtool_note_change", 1, note)
        for table in WATCHED:
            for event in ("INSERT", "UPDATE", "DELETE"):
                self.conn.execute(
                    f"CREATE TEMP TRIGGER IF NOT EXISTS mqtool_watch_{table}_{event.lower()} "
                    f"AFTER {event} ON main.{table} BEGIN SELECT mqtool_note_change('{table}'); END"
                )

    @property
    def own_changes(self) -> int:
        """How many changes this connection made to the WATCHED tables (the second
        half of generation(), known without a query)."""
        return self._own_changes

    def generation(self) -> tuple[int, int]:
        """Differs from an earlier value whenever a WATCHED table (systems, timers) may
        have changed since: by this connection (even if rolled back) or by another."""
        return (self.conn.execute("PRAGMA data_version").fetchone()[0], self._own_changes)

    def close(self) -> None:
        self.conn.close()

    def rollback(self) -> None:
        """Ends the transaction in progress, if SQLite has not already ended it (it rolls
        back by itself on a full disk or an I/O error); never hides the error that caused
        the rollback behind one of its own."""
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the transaction is gone either way; the first error is the one to tell

    def error(self, exc: sqlite3.DatabaseError) -> StoreError | None:
        """A failure of the state file or its disk as a StoreError naming the file."""
        problem = describe_error(self.path, exc)
        return None if problem is None else StoreError(problem, full=disk_full(self.path, exc))

    @contextmanager
    def transaction(self, write: bool = True) -> Iterator[Transaction]:
        """One unit of truth. Commits when the block ends normally and `tx.failed` is
        not set; rolls back otherwise. Writers take the write lock at once
        (BEGIN IMMEDIATE) so that two processes never both read-then-write. A full disk,
        an I/O error or damage met inside is raised as StoreError naming the file."""
        tx = Transaction(self)
        try:
            self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.DatabaseError as exc:
            raise self.error(exc) or StoreError(f"cannot lock the state file {self.path}: {exc}") from exc
        try:
            yield tx
        except sqlite3.DatabaseError as exc:
            self.rollback()
            problem = self.error(exc)
            if problem is not None:
                raise problem from exc
            raise
        except BaseException:
            self.rollback()
            raise
        if tx.failed or not write:
            self.rollback()
        else:
            try:
                self.conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self.rollback()
                raise self.error(exc) or StoreError(f"cannot commit to the state file {self.path}: {exc}") from exc


# A definition written whole; the number of a new local queue (QL, QLOCAL) is given in
# its INSERT: the one after the highest head row's (the largest row id of `messages`),
# or NULL when the numbers have run out (the trigger then finds a free one: migration
# 0018). An existing queue keeps its number (ON CONFLICT does not set it).
_LOCAL_QUEUES = frozenset(("QL", "QLOCAL"))
_UPSERT = (
    "ON CONFLICT(system, type, name) DO UPDATE SET attrs = excluded.attrs, status = excluded.status, "
    "altered = excluded.altered"
)
_PUT_OBJECT = (
    "INSERT INTO objects (system, type, name, attrs, status, created, altered) VALUES (?, ?, ?, ?, ?, ?, ?) " + _UPSERT
)
_PUT_QUEUE = (
    "INSERT INTO objects (system, type, name, attrs, status, created, altered, qkey) VALUES (?, ?, ?, ?, ?, ?, ?, "
    "(SELECT CASE WHEN coalesce(max(id) >> 44, 0) < 524287 THEN coalesce(max(id) >> 44, 0) + 1 END FROM messages)) "
    + _UPSERT
)


_FIND_SQL: dict[int, str] = {}


def _find_sql(count: int) -> str:
    """The query of Transaction.find_object for `count` types: one lookup each, in order."""
    sql = _FIND_SQL.get(count)
    if sql is None:
        one = "SELECT type, attrs, status, created, altered FROM objects WHERE system = ? AND type = ? AND name = ?"
        sql = _FIND_SQL[count] = " UNION ALL ".join([one] * count)
    return sql


def _records(system: str, rows: Iterable[Any]) -> list[ObjectRecord]:
    """Object records from rows of (type, name, attrs, status, created, altered, ...)."""
    return [ObjectRecord(system, r[0], r[1], json.loads(r[2]), json.loads(r[3]), r[4], r[5]) for r in rows]


def _where(
    system: str, keyword: str, value: str | int, types: tuple[str, ...] | None, above: bool, columns: str
) -> tuple[str, list[Any]]:
    """The query of Transaction.objects_where: through the partial index of `keyword`."""
    partial = REFERENCE_ATTRIBUTES.get(keyword)
    if partial is None:
        raise ValueError(f"{keyword} has no index (state/migrations/0007_reference_indexes.sql)")
    column = f"json_extract(attrs, '$.{keyword}')"  # exactly as the index writes it
    # INDEXED BY: without statistics SQLite would rather read every object of a type.
    sql = (
        f"SELECT {columns} FROM objects INDEXED BY objects_by_{keyword.lower()} "
        f"WHERE system = ? AND {column} {'>' if above else '='} ? AND {partial}"
    )
    args: list[Any] = [system, value]
    if types is not None:
        sql += f" AND type IN ({','.join('?' * len(types))})"
        args += types
    return sql + " ORDER BY type, name", args


def _create(path: Path, page_size: int = PAGE_SIZE) -> bool:
    """Creates the store file whole: built and migrated under a temporary name in the same
    folder, then linked into place, so that no process ever sees an empty or half-made
    `mqtool.db` (an empty one is damage). False when another process created it first."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{temporary}{suffix}").unlink(missing_ok=True)
    try:
        conn = sqlite3.connect(str(temporary), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    except sqlite3.Error as exc:
        raise StoreError(f"cannot create the state file {path}: {exc}") from exc
    try:
        # Nobody sees the file before it is linked: it is written without a sync per
        # migration, and synced once, whole, before the link.
        conn.execute(f"PRAGMA page_size = {int(page_size)}")  # before the first table: it sticks
        Store(temporary, conn, created=True)._prepare(synchronous="OFF")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        descriptor = os.open(temporary, os.O_RDWR)
        try:
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
    except (sqlite3.Error, StoreError, OSError) as exc:
        conn.close()
        _remove(temporary)
        raise StoreError(describe_error(path, exc) or f"cannot create the state file {path}: {exc}") from exc
    try:
        os.link(temporary, path)  # fails when the name exists: the first creator wins
        created = True
    except FileExistsError:
        created = False
    except OSError:
        # A file system without hard links: rename, unless another process came first.
        created = not path.exists()
        if created:
            os.replace(temporary, path)
    _remove(temporary)
    if created:
        try:
            sync_folder(path.parent)
        except OSError:
            pass  # the store is whole either way; at worst a power loss takes the new name back
    return created


def sync_folder(folder: Path) -> None:
    """Makes the names created in `folder` durable (fsync of the folder, POSIX; Windows
    cannot open a folder, and its renames and links are durable without). OSError when
    the sync fails."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _remove(temporary: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        Path(f"{temporary}{suffix}").unlink(missing_ok=True)


def _split_sql(script: str) -> list[str]:
    """Statements of a migration file. A statement ends at the `;` that completes it in
    SQLite's own judgement, so trigger bodies (BEGIN ... ; ... END;) stay whole."""
    statements: list[str] = []
    current: list[str] = []
    for line in script.splitlines():
        if line.strip().startswith("--"):
            continue
        current.append(line)
        text = "\n".join(current)
        if sqlite3.complete_statement(text):
            statements.append(text.strip().rstrip(";").strip())
            current = []
    rest = "\n".join(current).strip()
    if rest:
        statements.append(rest.rstrip(";").strip())
    return [statement for statement in statements if statement]


class Transaction:
    """Typed access to the store inside one transaction."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.conn = store.conn
        self.failed = False

    def fail(self) -> None:
        """Marks the transaction to be rolled back when its block ends."""
        self.failed = True

    # -- meta -----------------------------------------------------------------
    def get_meta(self, key: str, default: str | None = None) -> str | None:
        row = self.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set_meta(self, key: str, value: str) -> None:
        self.conn.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- systems --------------------------------------------------------------
    def systems(self) -> list[SystemRecord]:
        rows = self.conn.execute("SELECT name, platform, attrs, position FROM systems ORDER BY position, name")
        return [SystemRecord(r[0], r[1], _decoded(r[2]), r[3]) for r in rows]

    def get_system(self, name: str) -> SystemRecord | None:
        row = self.conn.execute(
            "SELECT name, platform, attrs, position FROM systems WHERE name = ?", (name,)
        ).fetchone()
        return None if row is None else SystemRecord(row[0], row[1], _decoded(row[2]), row[3])

    def put_system(self, system: SystemRecord) -> None:
        if system.position == 0:
            row = self.conn.execute("SELECT coalesce(max(position), 0) + 1 FROM systems").fetchone()
            existing = self.conn.execute("SELECT position FROM systems WHERE name = ?", (system.name,)).fetchone()
            system.position = existing[0] if existing else row[0]
        self.conn.execute(
            "INSERT INTO systems (name, platform, position, attrs) VALUES (?, ?, ?, ?) "
            "ON CONFLICT(name) DO UPDATE SET platform = excluded.platform, attrs = excluded.attrs",
            (system.name, system.platform, system.position, _dumps(system.attrs)),
        )

    def delete_system(self, name: str) -> None:
        self.conn.execute("DELETE FROM messages WHERE system = ?", (name,))
        self.conn.execute("DELETE FROM console WHERE system = ?", (name,))
        self.conn.execute("DELETE FROM timers WHERE system = ?", (name,))
        self.conn.execute("DELETE FROM systems WHERE name = ?", (name,))

    # -- objects --------------------------------------------------------------
    def get_object(self, system: str, type_: str, name: str) -> ObjectRecord | None:
        row = self.conn.execute(
            "SELECT attrs, status, created, altered FROM objects WHERE system = ? AND type = ? AND name = ?",
            (system, type_, name),
        ).fetchone()
        if row is None:
            return None
        return ObjectRecord(system, type_, name, _decoded(row[0]), _decoded(row[1]), row[2], row[3])

    def get_status(self, system: str, type_: str, name: str) -> dict[str, Any] | None:
        """The run-time status of an object (None: no such object), without reading its
        attributes."""
        row = self.conn.execute(
            "SELECT status FROM objects WHERE system = ? AND type = ? AND name = ?", (system, type_, name)
        ).fetchone()
        return None if row is None else dict(_decoded(row[0]))

    def status_and(self, system: str, type_: str, name: str, attribute: str) -> tuple[dict[str, Any], Any] | None:
        """The run-time status of an object and the value of one of its attributes
        (None: no such object), without reading the others in Python."""
        row = self.conn.execute(
            "SELECT status, json_extract(attrs, ?) FROM objects WHERE system = ? AND type = ? AND name = ?",
            ("$." + attribute, system, type_, name),
        ).fetchone()
        return None if row is None else (dict(_decoded(row[0])), row[1])

    def has_object(self, system: str, type_: str, name: str) -> bool:
        """Whether the object exists, without reading it."""
        row = self.conn.execute(
            "SELECT 1 FROM objects WHERE system = ? AND type = ? AND name = ?", (system, type_, name)
        ).fetchone()
        return row is not None

    def first_object(self, system: str, type_: str) -> ObjectRecord | None:
        """The first object of a type in name order (a system's queue manager), None
        when there is none: objects(system, type_)[0] without reading the others."""
        row = self.conn.execute(
            f"SELECT name, attrs, status, created, altered FROM objects INDEXED BY {PRIMARY_KEY_INDEX} "
            "WHERE system = ? AND type = ? ORDER BY name LIMIT 1",
            (system, type_),
        ).fetchone()
        if row is None:
            return None
        return ObjectRecord(system, type_, row[0], _decoded(row[1]), _decoded(row[2]), row[3], row[4])

    def objects(self, system: str, type_: str | None = None, pattern: str | None = None) -> list[ObjectRecord]:
        """Objects of a system, by type, optionally matching a generic name (`PAY*`, `*`)."""
        sql = "SELECT type, name, attrs, status, created, altered FROM objects WHERE system = ?"
        args: list[Any] = [system]
        if type_ is not None:
            # Through the primary key, named: a `type = ?` that SQLite may weigh against
            # the partial indexes' `type IN (...)` makes it prepare the statement again
            # at every run (three times the cost of the query itself).
            sql = sql.replace("FROM objects", f"FROM objects INDEXED BY {PRIMARY_KEY_INDEX}") + " AND type = ?"
            args.append(type_)
        if pattern is not None and pattern != "*":
            if pattern.endswith("*"):
                sql += " AND substr(name, 1, ?) = ?"
                args += [len(pattern) - 1, pattern[:-1]]
            else:
                sql += " AND name = ?"
                args.append(pattern)
        sql += " ORDER BY type, name"
        return _records(system, self.conn.execute(sql, args))

    def objects_where(
        self,
        system: str,
        keyword: str,
        value: str | int,
        types: tuple[str, ...] | None = None,
        above: bool = False,
    ) -> list[ObjectRecord]:
        """Objects of a system (of `types`, when given) whose attribute `keyword` is
        `value` (with `above`: a number greater than `value`), in type and name order.
        Only the REFERENCE_ATTRIBUTES, each read through its index, so the cost does not
        grow with the number of objects; only the object types of the attribute's index
        are found. Every DEFINE stores its attributes with their defaults, so a record
        without the attribute (edited by hand) is not found."""
        sql, args = _where(system, keyword, value, types, above, "type, name, attrs, status, created, altered")
        return _records(system, self.conn.execute(sql, args))

    def first_at_maxmsgl(self, system: str, value: int) -> str | None:
        """The first z/TPF local queue by name whose MAXMSGL is `value` (None: none), read
        in name order, without an index: for MAXMSGL_UNINDEXED, which the index of
        MAXMSGL leaves out. A queue manager's own queues take its MAXMSGL, so the
        first queue usually has it."""
        row = self.conn.execute(
            f"SELECT name FROM objects INDEXED BY {PRIMARY_KEY_INDEX} WHERE system = ? AND type = 'QL' "
            "AND json_extract(attrs, '$.MAXMSGL') = ? ORDER BY name LIMIT 1",
            (system, value),
        ).fetchone()
        return None if row is None else str(row[0])

    def names_where(
        self, system: str, keyword: str, value: str | int, types: tuple[str, ...] | None = None
    ) -> list[str]:
        """The names of the objects `objects_where` finds, without reading their records."""
        sql, args = _where(system, keyword, value, types, False, "name")
        return [str(row[0]) for row in self.conn.execute(sql, args)]

    def find_object(
        self, system: str, types: tuple[str, ...], name: str, likely_absent: bool = False
    ) -> ObjectRecord | None:
        """The first object named `name` among `types` (queue names are unique across
        types). One query per type, the cheapest when the first type has it; with
        `likely_absent` (a DEFINE's name, usually new), one query for all the types,
        the cheapest when none has it."""
        if not likely_absent or len(types) < 2:
            for type_ in types:
                record = self.get_object(system, type_, name)
                if record is not None:
                    return record
            return None
        # One lookup per type in one statement: `type IN (...)` would build a table of
        # the types at every run (3.0 us against 7.5 us for three types).
        rows = self.conn.execute(_find_sql(len(types)), [value for type_ in types for value in (system, type_, name)])
        found = rows.fetchall()
        if not found:
            return None
        row = min(found, key=lambda each: types.index(each[0]))  # the first of `types` that has it
        return ObjectRecord(system, row[0], name, json.loads(row[1]), json.loads(row[2]), row[3], row[4])

    def put_object(self, record: ObjectRecord) -> None:
        """Writes a definition whole (a new one, or over the one of that name). A new
        local queue gets its number in the same INSERT (migration 0018)."""
        self.conn.execute(
            _PUT_QUEUE if record.type in _LOCAL_QUEUES else _PUT_OBJECT,
            (
                record.system,
                record.type,
                record.name,
                _dumps(record.attrs),
                _dumps(record.status),
                record.created,
                record.altered,
            ),
        )

    def put_status(self, record: ObjectRecord) -> None:
        """Writes only the run-time status of an existing object."""
        self.conn.execute(
            "UPDATE objects SET status = ? WHERE system = ? AND type = ? AND name = ?",
            (_dumps(record.status), record.system, record.type, record.name),
        )

    def delete_object(self, system: str, type_: str, name: str) -> None:
        self.conn.execute("DELETE FROM objects WHERE system = ? AND type = ? AND name = ?", (system, type_, name))

    # -- console --------------------------------------------------------------
    def console(self, system: str, time: float, text: str) -> None:
        """Records an unsolicited console message (warnings, CSQM587E, sweeper notices)."""
        self.conn.execute("INSERT INTO console (system, time, text) VALUES (?, ?, ?)", (system, time, text))

    def console_since(self, system: str | None, after_id: int = 0) -> list[tuple[int, str, float, str]]:
        sql = "SELECT id, system, time, text FROM console WHERE id > ?"
        args: list[Any] = [after_id]
        if system is not None:
            sql += " AND system = ?"
            args.append(system)
        return [(r[0], r[1], r[2], r[3]) for r in self.conn.execute(sql + " ORDER BY id", args)]
