"""The z/OS page sets: what a message costs on its queue's page set, which page set a
queue is on, and how many pages a page set has and uses. A message takes
ceil((stored length + 500) / 4096) pages (spec zos-mq.md section 4: 500 bytes of
page-set control information per message); each object definition takes one page of
page set 0 (mqtool's choice, documented in mqtool-zos(7))."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mqtool.state import messages as runs

if TYPE_CHECKING:
    from mqtool.state import ObjectRecord, Transaction

PAGE = 4096
MESSAGE_OVERHEAD = 500  # bytes of page-set control information per message
OBJECT_PAGES = 1  # pages of page set 0 one object definition takes
# The object definitions on page set 0 (a system's, as a parameter): all but the buffer
# pools, which z/OS keeps in the log's checkpoint records.
DEFINITIONS = "(SELECT count(*) FROM objects WHERE system = {} AND type != 'BUFFPOOL')"
NAMES_PER_QUERY = 10000  # queue names looked up per statement (pageset_qkeys)


def pages_for(length: int) -> int:
    """Pages one message of `length` stored bytes occupies."""
    return -(-(length + MESSAGE_OVERHEAD) // PAGE)


def messages_held(pages: int, length: int) -> int:
    """How many messages of `length` stored bytes a page set of `pages` pages holds."""
    return pages // pages_for(length)


def queue_psid(tx: Transaction, system: str, local: ObjectRecord) -> int | None:
    """The page set of a local queue (via its storage class); None when the class or
    the page set is not defined."""
    stgclass = tx.get_object(system, "STGCLASS", str(local.attrs.get("STGCLASS", "DEFAULT")))
    if stgclass is None:
        return None
    psid = int(stgclass.attrs.get("PSID", 0))
    return psid if tx.get_object(system, "PSID", str(psid)) is not None else None


class DamagedPageSet(ValueError):
    """A page set's figures in the store are not numbers (the store was edited or damaged)."""


def pageset_pages(record: ObjectRecord) -> int:
    """Total pages of a page set, after its expansions. DamagedPageSet when its size in
    the store is not a number of pages."""
    value = record.status.get("pages", record.attrs.get("PAGES", 0))
    expansions = record.status.get("expansions", 0)
    if (
        not isinstance(value, int)
        or isinstance(value, bool)
        or value < 0
        or not isinstance(expansions, int)
        or expansions < 0
    ):
        raise DamagedPageSet(
            f"page set {record.name} of {record.system} has a damaged size in the store "
            f"(pages {value!r}, expansions {expansions!r})"
        )
    return value


def pageset_used(tx: Transaction, system: str, psid: int) -> int:
    """Pages in use on a page set now: its queues' messages, and on page set 0 the
    object definitions."""
    qkeys = pageset_qkeys(tx, system, psid)
    used = 0
    if qkeys:
        sql = f"SELECT coalesce(sum(held_swbs), 0) FROM messages WHERE id IN ({runs.heads(qkeys)})"
        used = int(tx.conn.execute(sql).fetchone()[0])
    if psid == 0:
        used += OBJECT_PAGES * int(tx.conn.execute("SELECT " + DEFINITIONS.format("?"), (system,)).fetchone()[0])
    return used


def pageset_qkeys(tx: Transaction, system: str, psid: int) -> tuple[int, ...]:
    """The queue numbers (queue_marks) of the local queues on a page set, found through
    the store's indexes on PSID and STGCLASS: no other definition is read."""
    classes = tx.names_where(system, "PSID", psid, ("STGCLASS",))
    names = [name for c in classes for name in tx.names_where(system, "STGCLASS", c, ("QLOCAL",))]
    keys: list[int] = []
    # In groups: SQLite takes at most 32,766 parameters in one statement, and a page set
    # may hold more queues than that.
    for start in range(0, len(names), NAMES_PER_QUERY):
        group = names[start : start + NAMES_PER_QUERY]
        rows = tx.conn.execute(
            f"SELECT qkey FROM queue_marks WHERE system = ? AND queue IN ({','.join('?' * len(group))})",
            (system, *group),
        )
        keys += (int(row[0]) for row in rows)
    return tuple(sorted(keys))
