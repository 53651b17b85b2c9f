"""SET CHLAUTH and DISPLAY CHLAUTH: channel authentication records of a z/OS queue
manager, kept in the store as objects of type CHLAUTHREC (one per record, named by its
identity), with the rules and IBM's precedence of mqtool/engine/security/chlauth.py.

DISPLAY CHLAUTH shows records in the CSQM201I layout: CHLAUTH(profile), TYPE, then what
the record has (ADDRESS, USERLIST, USERSRC ...), all of it (DESCR, CUSTOM, WARN, MCAUSER,
CHCKCLNT, ALTDATE, ALTTIME) for a specific profile or ALL. MATCH(GENERIC) (the default)
treats * in the name given as a wildcard over the profiles; EXACT takes it as it is;
ALL lists every record that applies to the channel named; RUNCHECK shows the one record
an inbound channel with ADDRESS and CLNTUSER or QMNAME (and SSLPEER) would meet.
"""

from __future__ import annotations

from typing import Any

from mqtool.engine.security import addresses, chlauth, dn
from mqtool.engine.security.chlauth import Record
from mqtool.engine.zos.events import Writer
from mqtool.response import Response
from mqtool.state import ObjectRecord, SystemRecord, Transaction

from . import DETAIL_CSECT, RC_NOT_FOUND, date_time, manager, refuse, reply, rule, syntax, value_text
from .configev import writer

STORE_TYPE = "CHLAUTHREC"
# SET CHLAUTH keyword -> Record field
FIELDS = {
    "ADDRESS": "address",
    "ADDRLIST": "addrlist",
    "USERLIST": "userlist",
    "SSLPEER": "sslpeer",
    "SSLCERTI": "sslcerti",
    "CLNTUSER": "clntuser",
    "QMNAME": "qmname",
    "USERSRC": "usersrc",
    "MCAUSER": "mcauser",
    "CHCKCLNT": "chckclnt",
    "WARN": "warn",
    "DESCR": "descr",
    "CUSTOM": "custom",
}
IDENTITY = ("ADDRESS", "SSLPEER", "SSLCERTI", "CLNTUSER", "QMNAME")
# What each type takes on SET (besides DESCR, CUSTOM): IBM's syntax diagram of SET CHLAUTH.
ALLOWED = {
    chlauth.BLOCKUSER: ("USERLIST", "WARN"),
    chlauth.BLOCKADDR: ("ADDRLIST", "WARN"),
    chlauth.SSLPEERMAP: ("SSLPEER", "SSLCERTI", "ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT", "WARN"),
    chlauth.ADDRESSMAP: ("ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT", "WARN"),
    chlauth.USERMAP: ("CLNTUSER", "ADDRESS", "USERSRC", "MCAUSER", "CHCKCLNT", "WARN"),
    chlauth.QMGRMAP: ("QMNAME", "ADDRESS", "USERSRC", "MCAUSER", "WARN"),
}
RUNCHECK_KEYWORDS = ("ADDRESS", "CLNTUSER", "QMNAME", "SSLPEER", "SSLCERTI")


# -- the store ---------------------------------------------------------------------------------


def records(tx: Transaction, system: SystemRecord) -> list[Record]:
    """The queue manager's records, in the store's order (by identity)."""
    return [Record.from_dict(r.attrs) for r in tx.objects(system.name, STORE_TYPE)]


def stored(tx: Transaction, system: SystemRecord) -> dict[str, ObjectRecord]:
    return {r.name: r for r in tx.objects(system.name, STORE_TYPE)}


def write(tx: Transaction, system: SystemRecord, new: list[Record], now: float, events: Writer | None = None) -> None:
    """Makes the stored records `new`: removed ones go, changed ones get ALTDATE now.
    With `events` (CONFIGEV enabled), each record removed, changed or added puts its
    Delete, Change or Create object event."""
    before = stored(tx, system)
    wanted = {record.key(): record for record in new}
    for key in sorted(before.keys() - wanted.keys()):
        tx.delete_object(system.name, STORE_TYPE, key)
        if events is not None:
            events.deleted(before[key])
    for key, record in wanted.items():
        old = before.get(key)
        if old is not None and Record.from_dict(old.attrs) == record:
            continue
        created = old.created if old is not None else now
        written = ObjectRecord(system.name, STORE_TYPE, key, record.to_dict(), {}, created, now)
        tx.put_object(written)
        if events is not None and old is None:
            events.created(written)
        elif events is not None and old is not None:
            events.changed(old, written)


def add_backstop(tx: Transaction, system: SystemRecord, now: float) -> None:
    """The records a new queue manager has (IBM's three default rules)."""
    write(tx, system, [*records(tx, system), *chlauth.backstop()], now)


# -- the complex document (mqtool export --format yaml, mqtool apply) -------------------------

# A record in the document: CHLAUTH (its profile), TYPE, and the SET CHLAUTH keywords its
# type takes, as SET CHLAUTH spells them; a keyword left out has its SET default.
DOCUMENT_KEYS = ("CHLAUTH", "TYPE")
LISTS = ("ADDRLIST", "USERLIST")


def document_keywords(kind: str) -> tuple[str, ...]:
    """The keywords a record of a type may carry in the document (besides CHLAUTH, TYPE)."""
    return (*ALLOWED[kind], "DESCR", "CUSTOM")


def to_document(record: Record) -> dict[str, Any]:
    """The record as the document writes it: what differs from SET CHLAUTH's defaults."""
    out: dict[str, Any] = {"CHLAUTH": record.profile, "TYPE": record.type}
    blank = Record(record.profile, record.type)
    for keyword in document_keywords(record.type):
        value = getattr(record, FIELDS[keyword])
        if keyword in LISTS:
            out[keyword] = list(value)
        elif keyword == "USERSRC" or value != getattr(blank, FIELDS[keyword]):
            out[keyword] = value  # USERSRC always: it says what the record does
    return out


def from_document(item: Any) -> Record:
    """A record of the document; ValueError says what is wrong with it (one line)."""
    if not isinstance(item, dict):
        raise ValueError("a channel authentication record is a mapping of SET CHLAUTH keywords")
    profile, kind = item.get("CHLAUTH"), item.get("TYPE")
    if not isinstance(profile, str) or not profile.strip():
        raise ValueError("CHLAUTH (the record's profile) is required")
    if kind not in chlauth.TYPES:
        raise ValueError(f"TYPE is required: one of {', '.join(chlauth.TYPES)}")
    values: dict[str, Any] = {"profile": profile.strip(), "type": kind}
    for keyword, value in item.items():
        if keyword in DOCUMENT_KEYS:
            continue
        if keyword not in document_keywords(kind):
            raise ValueError(f"{keyword} is not a keyword of a TYPE({kind}) record")
        if keyword in LISTS:
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ValueError(f"{keyword} is a list of text")
            values[FIELDS[keyword]] = tuple(v.strip() for v in value)
        elif isinstance(value, (str, int)) and not isinstance(value, bool):
            values[FIELDS[keyword]] = str(value).strip()
        else:
            raise ValueError(f"{keyword} is one value")
    if kind in chlauth.MAPPING and "usersrc" not in values:
        values["usersrc"] = chlauth.MAP
    return Record(**values)


def backstop_or_records(tx: Transaction, system: SystemRecord | None) -> list[Record]:
    """The records a system has now, or those a new queue manager gets (system None)."""
    return records(tx, system) if system is not None else chlauth.backstop()


# -- SET CHLAUTH -------------------------------------------------------------------------------


def set_record(ctx: Any, req: Any) -> Response:
    kind = req.get("TYPE")
    if kind is None:
        return syntax(req, "CSQ9031E", keyword="SET CHLAUTH", what="TYPE(" + ", ".join(chlauth.TYPES) + ")")
    if kind == "ALL":
        return syntax(req, "CSQ9030E", keyword="TYPE", value="ALL", allowed=", ".join(chlauth.TYPES))
    action = req.get("ACTION", chlauth.ADD)
    allowed = ("DESCR", "CUSTOM", *ALLOWED[kind])
    if action == chlauth.REMOVEALL:
        allowed = ()
    elif action == chlauth.REMOVE:
        allowed = tuple(k for k in ALLOWED[kind] if k in (*IDENTITY, "USERLIST", "ADDRLIST"))
    for keyword in req.order:
        if keyword not in ("TYPE", "ACTION", *allowed):
            known = keyword in ALLOWED[kind] or keyword in ("DESCR", "CUSTOM")
            other = f"ACTION({action})" if known else f"TYPE({kind})"
            return syntax(req, "CSQ9032E", keyword=keyword, other=other)
    values: dict[str, Any] = {"profile": req.name, "type": kind}
    for keyword, field in FIELDS.items():
        if keyword in req.params:
            value = req.params[keyword]
            values[field] = tuple(value) if isinstance(value, list) else str(value).strip()
    if kind in chlauth.MAPPING and "usersrc" not in values:
        values["usersrc"] = chlauth.MAP
    new = Record(**values)
    try:
        changed = chlauth.change(records(ctx.tx, ctx.system), new, action)
    except chlauth.ChlauthError as exc:
        if exc.kind == "notfound":
            return refuse(req, "CSQM125I", RC_NOT_FOUND, objtype="CHLAUTH", name=req.name)
        if exc.kind == "invalid" and "needs" in exc.message:
            return syntax(req, "CSQ9031E", keyword=f"SET CHLAUTH TYPE({kind})", what=exc.keyword)
        keyword = exc.keyword or "ACTION"
        value = req.params.get(keyword, req.name if keyword == "CHLAUTH" else action)
        return rule(req, keyword, value, exc.message.upper())
    enabled = manager(ctx.tx, ctx.system, ctx.now).attrs.get("CONFIGEV") == "ENABLED"
    write(ctx.tx, ctx.system, changed, ctx.now, writer(ctx) if enabled else None)
    return reply(req)


# -- DISPLAY CHLAUTH ---------------------------------------------------------------------------


def display(ctx: Any, req: Any) -> Response:
    match = req.get("MATCH", "GENERIC")
    given = [k for k in RUNCHECK_KEYWORDS if k in req.params]
    if match != "RUNCHECK" and given:
        return syntax(req, "CSQ9032E", keyword=given[0], other=f"MATCH({match})")
    everything = records(ctx.tx, ctx.system)
    kind = req.get("TYPE", "ALL")
    if match == "RUNCHECK":
        return _runcheck(ctx, req, everything)
    name = req.name
    if match == "EXACT":
        found = [r for r in everything if r.profile == name]
    elif match == "ALL":
        found = [r for r in everything if chlauth.generic_match(r.profile, name)]
    else:
        found = [r for r in everything if chlauth.generic_match(name, r.profile)]
    found = [r for r in found if kind in ("ALL", r.type)]
    found.sort(key=lambda r: (r.profile, chlauth.TYPES.index(r.type), r.key()))
    generic = "*" in name and match != "EXACT"
    selected = None if req.select_all or (not req.select and not generic) else set(req.select)
    return _show(ctx, req, found, selected)


def _show(ctx: Any, req: Any, found: list[Record], selected: set[str] | None) -> Response:
    result = reply(req)
    if not found:
        result.add("CSQM297I", objtype="CHLAUTH")
        return result
    result.add("CSQM293I", csect=DETAIL_CSECT, count=len(found), objtype="CHLAUTH")
    objects = stored(ctx.tx, ctx.system)
    for record in found:
        block = result.add("CSQM201I", csect=DETAIL_CSECT, verb="DISPLAY", objtype="CHLAUTH")
        block.attrs = attributes(ctx.system, record, objects.get(record.key()), selected)
        block.lines = ["END CHLAUTH DETAILS"]
    return result


def attributes(
    system: SystemRecord, record: Record, stored_record: ObjectRecord | None, selected: set[str] | None
) -> list[tuple[str, Any]]:
    """The display lines of one record: CHLAUTH and TYPE, what identifies it and what it
    does (always), then the rest when all attributes are shown or they are named."""
    lines: list[tuple[str, Any]] = [("CHLAUTH", record.profile), ("TYPE", record.type)]
    always: list[str] = []
    rest = ["DESCR", "CUSTOM"]
    if record.type == chlauth.BLOCKUSER:
        always, rest = ["USERLIST"], [*rest, "WARN"]
    elif record.type == chlauth.BLOCKADDR:
        always, rest = ["ADDRLIST"], [*rest, "WARN"]
    else:
        always = [k for k in ("SSLPEER", "SSLCERTI", "CLNTUSER", "QMNAME") if k in ALLOWED[record.type]]
        always = [k for k in always if k != "SSLCERTI" or record.sslcerti]
        always += ["ADDRESS", "USERSRC"]
        if record.usersrc == chlauth.MAP:
            rest.append("MCAUSER")
        if record.usersrc == chlauth.NOACCESS:
            rest.append("WARN")
        elif record.type != chlauth.QMGRMAP:
            rest.append("CHCKCLNT")
    rest += ["ALTDATE", "ALTTIME"]
    altered = date_time(system, stored_record.altered) if stored_record is not None else ("", "")
    for keyword in [*always, *rest]:
        if keyword not in always and selected is not None and keyword not in selected:
            continue
        if keyword in ("ALTDATE", "ALTTIME"):
            value: Any = altered[0] if keyword == "ALTDATE" else altered[1]
        else:
            value = getattr(record, FIELDS[keyword])
        lines.append((keyword, value_text(value)))
    return lines


def _runcheck(ctx: Any, req: Any, everything: list[Record]) -> Response:
    name = req.name
    if "*" in name:
        return rule(req, "CHLAUTH", name, "MATCH(RUNCHECK) NEEDS A CHANNEL NAME, NOT A GENERIC ONE")
    if req.get("TYPE", "ALL") != "ALL":
        return syntax(req, "CSQ9032E", keyword=f"TYPE({req.get('TYPE')})", other="MATCH(RUNCHECK)")
    if "ADDRESS" not in req.params:
        return syntax(req, "CSQ9031E", keyword="MATCH(RUNCHECK)", what="ADDRESS(ip-address)")
    users = [k for k in ("CLNTUSER", "QMNAME") if k in req.params]
    if len(users) != 1:
        return syntax(req, "CSQ9031E", keyword="MATCH(RUNCHECK)", what="CLNTUSER(user) or QMNAME(qmgr), one of them")
    address = str(req.get("ADDRESS")).strip()
    if "*" in address or "-" in address:
        return rule(req, "ADDRESS", address, "MATCH(RUNCHECK) NEEDS ONE IP ADDRESS, NOT A PATTERN")
    if not addresses.concrete(address):
        return rule(req, "ADDRESS", address, "NOT AN IP ADDRESS (MQTOOL DOES NOT LOOK UP HOST NAMES)")
    names: dict[str, dn.Name | None] = {}
    for keyword in ("SSLPEER", "SSLCERTI"):
        text = str(req.get(keyword, "")).strip()
        try:
            names[keyword] = dn.parse_name(text) if text else None
        except dn.DNError as exc:
            return rule(req, keyword, text, f"NOT A DISTINGUISHED NAME: {exc.reason.upper()}")
    channel = ctx.tx.get_object(ctx.system.name, "CHANNEL", name)
    connection = chlauth.Connection(
        channel=name,
        address=address,
        remote_qmgr=str(req.get("QMNAME", "")),
        client_user=str(req.get("CLNTUSER", "")),
        peer=names["SSLPEER"],
        issuer=names["SSLCERTI"],
        client="CLNTUSER" in req.params,
        channel_mcauser=str(channel.attrs.get("MCAUSER", "")) if channel is not None else "",
        qmname=ctx.system.name,
    )
    check = chlauth.runcheck(everything, connection)
    if check.record is None:
        result = reply(req)
        result.add("CSQM297I", objtype="CHLAUTH")
        result.add("MQT0412I", channel=name, user=check.decision.mcauser or " ")
        return result
    return _show(ctx, req, [check.record], None)
