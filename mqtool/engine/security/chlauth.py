"""Channel authentication records (SET CHLAUTH) as data, and IBM's rules for which
record decides an inbound channel.

A record (`Record`) has a channel profile (a channel name where `*` stands for any
characters), a TYPE and what that type needs:

    BLOCKADDR   profile '*' only; ADDRLIST of generic addresses refused at the listener
    BLOCKUSER   USERLIST of user ids (and *MQADMIN, the privileged ones) a channel may
                not run as
    SSLPEERMAP  SSLPEER (and SSLCERTI) of the partner's certificate   } USERSRC(MAP)
    ADDRESSMAP  ADDRESS of the partner                                } with MCAUSER,
    USERMAP     CLNTUSER a client asserts (server-connection channels) } NOACCESS or
    QMGRMAP     QMNAME of the partner queue manager (message channels) } CHANNEL

the mapping types optionally narrowed by ADDRESS. `change` applies SET CHLAUTH's
ACTION(ADD|REPLACE|REMOVE|REMOVEALL) to a list of records; `decide` is the check at
channel start; `runcheck` is DISPLAY CHLAUTH MATCH(RUNCHECK); `backstop` are the records
a new queue manager has.

IBM's precedence, as mqtool applies it (`decide`):

1. BLOCKADDR: an address in an ADDRLIST is refused at once, before the channel name is
   known (`blocked_address`, which the listener calls first).
2. Mapping: of the SSLPEERMAP, ADDRESSMAP, USERMAP (server-connection channels) and
   QMGRMAP (other channels) records that match the connection, the one with the most
   specific channel profile wins (compared left to right, a character beats `*`); for
   the same profile the type in that order (SSLPEERMAP, ADDRESSMAP, USERMAP, QMGRMAP);
   then the most specific SSLPEER, CLNTUSER or QMNAME, then the most specific ADDRESS.
   Its USERSRC says: MAP runs the channel as its MCAUSER, NOACCESS refuses it, CHANNEL
   (as when no record matches) runs it as the channel's own MCAUSER, or, blank, the
   client's asserted user id (server-connection channels) or the channel initiator's
   (message channels).
3. BLOCKUSER: the BLOCKUSER record of the most specific profile that matches the
   channel (only that one: a channel's own record overrides `*`'s) refuses the channel
   when the user id it would run as is in its USERLIST; *MQADMIN stands for the
   privileged user ids (on z/OS the channel initiator's and the queue manager's).

WARN(YES) on a record that would refuse a channel lets it run and says so (`warned`).
All of this is pure: records in, decision out. Inputs are bounded by the command
layer (MAX_RECORDS a queue manager, IBM's list sizes) and checked here (`check`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from . import addresses, dn

BLOCKUSER, BLOCKADDR = "BLOCKUSER", "BLOCKADDR"
SSLPEERMAP, ADDRESSMAP, USERMAP, QMGRMAP = "SSLPEERMAP", "ADDRESSMAP", "USERMAP", "QMGRMAP"
TYPES = (BLOCKUSER, BLOCKADDR, SSLPEERMAP, ADDRESSMAP, USERMAP, QMGRMAP)
MAPPING = (SSLPEERMAP, ADDRESSMAP, USERMAP, QMGRMAP)  # in IBM's order of precedence
MAP, NOACCESS, CHANNEL = "MAP", "NOACCESS", "CHANNEL"
ADD, REPLACE, REMOVE, REMOVEALL = "ADD", "REPLACE", "REMOVE", "REMOVEALL"
MQADMIN = "*MQADMIN"
MAX_RECORDS = 10_000  # records a queue manager holds (mqtool's bound)
MAX_USERLIST = 100  # IBM: user ids in one BLOCKUSER record
MAX_ADDRLIST = 256  # IBM: addresses in one BLOCKADDR record
MAX_PROFILE = 48  # a channel name is 20 characters; a profile allows asterisks besides
MAX_USER = 1024  # CLNTUSER (IBM: MQ_CLIENT_USER_ID_LENGTH)
MAX_MCAUSER = 12  # IBM: MQ_USER_ID_LENGTH
PROFILE_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789./_%*")

# DISPLAY CHLAUTH MATCH(RUNCHECK) outcomes
ALLOWED, BLOCKED = "ALLOWED", "BLOCKED"
# why a channel is refused: the message each has on the console (mqtool-zos(7))
BY_ADDRESS, BY_NOACCESS, BY_USER = "ADDRESS", "NOACCESS", "USERID"


class ChlauthError(ValueError):
    """A SET CHLAUTH that cannot be done: `kind` is invalid (a value or combination the
    rules refuse, naming `keyword`), exists (ADD of a record there is), notfound
    (REMOVE of one there is not) or full (MAX_RECORDS)."""

    def __init__(self, kind: str, message: str, keyword: str = "") -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.keyword = keyword


@dataclass(frozen=True)
class Record:
    """One channel authentication record. Lists are tuples; blanks are ""."""

    profile: str
    type: str
    address: str = ""
    addrlist: tuple[str, ...] = ()
    userlist: tuple[str, ...] = ()
    sslpeer: str = ""
    sslcerti: str = ""
    clntuser: str = ""
    qmname: str = ""
    usersrc: str = MAP
    mcauser: str = ""
    chckclnt: str = "ASQMGR"
    warn: str = "NO"
    descr: str = ""
    custom: str = ""

    def identity(self) -> tuple[str, ...]:
        """What tells two records of one profile and type apart (IBM: a record is
        replaced by one with the same profile, type and identity)."""
        if self.type in (BLOCKUSER, BLOCKADDR):
            return (self.profile, self.type)
        return (self.profile, self.type, self.address, self.sslpeer, self.sslcerti, self.clntuser, self.qmname)

    def key(self) -> str:
        """The identity as one string (the record's name in the store)."""
        return "\t".join(self.identity())

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["addrlist"], data["userlist"] = list(self.addrlist), list(self.userlist)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Record:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        for name in ("addrlist", "userlist"):
            if name in known:
                known[name] = tuple(str(item) for item in known[name] or ())
        return cls(**known)


@dataclass(frozen=True)
class Decision:
    """What `decide` found for one inbound channel."""

    allowed: bool
    reason: str = ""  # ADDRESS, NOACCESS or USERID when refused
    mcauser: str = ""  # the user id the channel runs as
    record: Record | None = None  # the mapping record used (None: none matched)
    blocking: Record | None = None  # the BLOCKADDR, BLOCKUSER or NOACCESS record that refused it
    warned: tuple[Record, ...] = ()  # WARN(YES) records that would have refused it
    chckclnt: str = "ASQMGR"  # the matched record's CHCKCLNT (for CONNAUTH)

    @property
    def msg_id(self) -> str:
        """The console message of a refusal: CSQX782E (address), CSQX777E (NOACCESS),
        CSQX776E (user id); "" when allowed."""
        return {BY_ADDRESS: "CSQX782E", BY_NOACCESS: "CSQX777E", BY_USER: "CSQX776E"}.get(self.reason, "")

    def console(self, channel: str, conname: str) -> list[tuple[str, dict[str, str]]]:
        """The console messages of the decision, as (id, fields) for the catalogue:
        CSQX787I for each WARN(YES) record that would have refused the channel, then
        the refusal's message (none when the channel runs)."""
        out = [("CSQX787I", {"name": channel, "conname": conname, "record": describe(r)}) for r in self.warned]
        if not self.allowed and self.blocking is not None:
            fields = {"name": channel, "conname": conname, "record": describe(self.blocking), "user": self.mcauser}
            out.append((self.msg_id, fields))
        return out


# -- names and patterns ----------------------------------------------------------------


def generic_match(pattern: str, name: str) -> bool:
    """Whether `name` matches a channel profile or QMNAME pattern, `*` standing for any
    characters (none included); case matters, as in MQ names."""
    pieces = pattern.split("*")
    if len(pieces) == 1:
        return pattern == name
    if not name.startswith(pieces[0]) or not name.endswith(pieces[-1]):
        return False
    if len(name) < len(pieces[0]) + len(pieces[-1]):
        return False
    position = len(pieces[0])
    end = len(name) - len(pieces[-1])
    for piece in pieces[1:-1]:
        found = name.find(piece, position, end)
        if found < 0:
            return False
        position = found + len(piece)
    return True


def _more_specific(a: str, b: str) -> int:
    """IBM's comparison of generic names left to right: where they first differ, a
    character beats `*`; a longer name beats its prefix. >0 when `a` is more specific."""
    for x, y in zip(a, b, strict=False):
        if x != y:
            if x == "*" or y == "*":
                return 1 if y == "*" else -1
            return 0
    return (len(a) > len(b)) - (len(a) < len(b))


specificity_key = functools.cmp_to_key(_more_specific)


def privileged(qmname: str) -> frozenset[str]:
    """The user ids *MQADMIN stands for (IBM, z/OS: the user ids of the channel initiator
    and queue manager address spaces, here QMGRCHIN and QMGRMSTR)."""
    return frozenset({chinit_user(qmname), f"{qmname}MSTR"})


def chinit_user(qmname: str) -> str:
    """The user id the channel initiator runs as: a message channel with a blank MCAUSER
    runs as it (z/OS: the ssidCHIN started task)."""
    return f"{qmname}CHIN"


# -- checking a record ----------------------------------------------------------------


def _invalid(message: str, keyword: str) -> ChlauthError:
    return ChlauthError("invalid", message, keyword)


def _check_profile(profile: str) -> None:
    if not profile or len(profile) > MAX_PROFILE or not set(profile) <= PROFILE_CHARS:
        raise _invalid(f"a channel profile is 1-{MAX_PROFILE} characters A-Z a-z 0-9 . / _ % and *", "CHLAUTH")


def _check_user(user: str, keyword: str, size: int) -> None:
    if not user or len(user) > size or not user.isprintable() or " " in user:
        raise _invalid(f"a user id is 1-{size} characters without blanks", keyword)


def check(record: Record, action: str = ADD) -> None:
    """The rules SET CHLAUTH checks for one record; ChlauthError naming the keyword."""
    _check_profile(record.profile)
    if record.type not in TYPES:
        raise _invalid(f"TYPE is one of {', '.join(TYPES)}", "TYPE")
    if record.type == BLOCKADDR and record.profile != "*":
        raise _invalid("the profile of a TYPE(BLOCKADDR) record must be '*'", "CHLAUTH")
    if action == REMOVEALL:
        return
    blocking = record.type in (BLOCKUSER, BLOCKADDR)
    removing = action == REMOVE
    if blocking:
        _check_list(record, removing)
        return
    required = {SSLPEERMAP: "sslpeer", ADDRESSMAP: "address", USERMAP: "clntuser", QMGRMAP: "qmname"}[record.type]
    if not getattr(record, required):
        raise _invalid(f"TYPE({record.type}) needs {required.upper()}", required.upper())
    if record.address:
        _address(record.address, "ADDRESS")
    for keyword in ("sslpeer", "sslcerti"):
        value = getattr(record, keyword)
        if value:
            try:
                dn.parse_pattern(value)
            except dn.DNError as exc:
                raise _invalid(f"{keyword.upper()} is not a valid peer name: {exc.reason}", keyword.upper()) from exc
    if record.clntuser:
        _check_user(record.clntuser, "CLNTUSER", MAX_USER)
    if record.qmname and (len(record.qmname) > 48 or not set(record.qmname) <= PROFILE_CHARS):
        raise _invalid("QMNAME is a queue manager name of up to 48 characters, * as wildcard", "QMNAME")
    if removing:
        return
    if record.usersrc not in (MAP, NOACCESS, CHANNEL):
        raise _invalid("USERSRC is MAP, NOACCESS or CHANNEL", "USERSRC")
    if record.usersrc == MAP and not record.mcauser:
        raise _invalid("USERSRC(MAP) needs MCAUSER", "MCAUSER")
    if record.usersrc != MAP and record.mcauser:
        raise _invalid(f"MCAUSER is only for USERSRC(MAP), not USERSRC({record.usersrc})", "MCAUSER")
    if record.mcauser:
        _check_user(record.mcauser, "MCAUSER", MAX_MCAUSER)


def _check_list(record: Record, removing: bool) -> None:
    """USERLIST of a BLOCKUSER record, ADDRLIST of a BLOCKADDR one."""
    user = record.type == BLOCKUSER
    keyword, items, limit = (
        ("USERLIST", record.userlist, MAX_USERLIST) if user else ("ADDRLIST", record.addrlist, MAX_ADDRLIST)
    )
    if not items and not removing:
        raise _invalid(f"TYPE({record.type}) needs {keyword}", keyword)
    if len(items) > limit:
        raise _invalid(f"{keyword} holds at most {limit} {'user ids' if user else 'addresses'}", keyword)
    for item in items:
        if user:
            _check_user(item, keyword, MAX_MCAUSER)
        else:
            _address(item, keyword)


def _address(text: str, keyword: str) -> addresses.AddressPattern:
    try:
        return addresses.parse(text)
    except addresses.AddressError as exc:
        raise _invalid(str(exc), keyword) from exc


# -- SET CHLAUTH -----------------------------------------------------------------------


def change(records: Sequence[Record], new: Record, action: str = ADD) -> list[Record]:
    """The records after SET CHLAUTH: ADD a new record (for BLOCKUSER and BLOCKADDR,
    add to the list of the profile's record), REPLACE (add, or replace the record of
    that identity), REMOVE (the record; for BLOCKUSER and BLOCKADDR with a list, those
    entries, the record going with its last), REMOVEALL (every record of the profile
    and type). ChlauthError when the rules or the records refuse it."""
    check(new, action)
    kept = list(records)
    if action == REMOVEALL:
        left = [r for r in kept if not (r.profile == new.profile and r.type == new.type)]
        if len(left) == len(kept):
            raise ChlauthError("notfound", f"no TYPE({new.type}) record for profile {new.profile}")
        return left
    index = next((i for i, r in enumerate(kept) if r.identity() == new.identity()), None)
    blocking = new.type in (BLOCKUSER, BLOCKADDR)
    if action == REMOVE:
        if index is None:
            raise ChlauthError("notfound", f"no such TYPE({new.type}) record for profile {new.profile}")
        old = kept[index]
        listed = new.userlist if new.type == BLOCKUSER else new.addrlist
        if blocking and listed:
            current = old.userlist if new.type == BLOCKUSER else old.addrlist
            missing = [item for item in listed if item not in current]
            if missing:
                raise ChlauthError("notfound", f"{', '.join(missing)} not in the record's list")
            rest = tuple(item for item in current if item not in listed)
            if rest:
                kept[index] = _with_list(old, rest)
                return kept
        del kept[index]
        return kept
    if index is not None and action == ADD and not blocking:
        raise ChlauthError("exists", f"a TYPE({new.type}) record of that identity exists for profile {new.profile}")
    if index is not None and action == ADD:
        old = kept[index]
        field_name = "userlist" if new.type == BLOCKUSER else "addrlist"
        merged = tuple(dict.fromkeys((*getattr(old, field_name), *getattr(new, field_name))))
        limit = MAX_USERLIST if new.type == BLOCKUSER else MAX_ADDRLIST
        if len(merged) > limit:
            raise _invalid(f"{field_name.upper()} would hold more than {limit} entries", field_name.upper())
        # The record keeps what the command does not give (its description ...).
        given = {name: getattr(new, name) for name in ("descr", "custom") if getattr(new, name)}
        if new.warn == "YES":
            given["warn"] = "YES"
        kept[index] = replace(_with_list(old, merged), **given)
        return kept
    if index is not None:
        kept[index] = new
        return kept
    if len(kept) >= MAX_RECORDS:
        raise ChlauthError("full", f"a queue manager holds at most {MAX_RECORDS} channel authentication records")
    kept.append(new)
    return kept


def _with_list(record: Record, items: tuple[str, ...]) -> Record:
    """The BLOCKUSER or BLOCKADDR record with its list replaced."""
    if record.type == BLOCKUSER:
        return replace(record, userlist=items)
    return replace(record, addrlist=items)


# -- matching ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Connection:
    """What is known of an inbound channel when it is checked."""

    channel: str
    address: str
    remote_qmgr: str = ""  # message channels: the partner queue manager's name
    client_user: str = ""  # server-connection channels: the user id the client asserts
    peer: dn.Name | None = None  # the partner certificate's subject (None: no certificate)
    issuer: dn.Name | None = None
    client: bool = False  # a server-connection channel (USERMAP applies, QMGRMAP does not)
    channel_mcauser: str = ""  # the channel definition's MCAUSER
    qmname: str = ""  # this queue manager (for *MQADMIN and the channel initiator's user id)
    extra_privileged: frozenset[str] = field(default_factory=frozenset)


def blocked_address(records: Iterable[Record], address: str) -> Record | None:
    """The BLOCKADDR record whose ADDRLIST holds `address`, or None."""
    for record in records:
        if record.type == BLOCKADDR and any(_address_matches(item, address) for item in record.addrlist):
            return record
    return None


def _address_matches(pattern: str, address: str) -> bool:
    try:
        return addresses.parse(pattern).matches(address)
    except addresses.AddressError:
        return False  # a stored record the rules now refuse matches nothing


def _peer_matches(pattern: str, name: dn.Name | None) -> bool:
    if name is None:
        return False
    try:
        return dn.parse_pattern(pattern).matches(name)
    except dn.DNError:
        return False


def _mapping_matches(record: Record, connection: Connection) -> bool:
    if record.address and not _address_matches(record.address, connection.address):
        return False
    if record.type == SSLPEERMAP:
        if not _peer_matches(record.sslpeer, connection.peer):
            return False
        return not record.sslcerti or _peer_matches(record.sslcerti, connection.issuer)
    if record.type == ADDRESSMAP:
        return True
    if record.type == USERMAP:
        return connection.client and record.clntuser == connection.client_user
    if record.type == QMGRMAP:
        return not connection.client and generic_match(record.qmname, connection.remote_qmgr)
    return False


def _identity_specificity(record: Record) -> Any:
    if record.type == SSLPEERMAP:
        return dn.parse_pattern(record.sslpeer).specificity()
    if record.type == QMGRMAP:
        return specificity_key(record.qmname)
    return 0


def _rank(record: Record) -> tuple[Any, ...]:
    """Sort key: the most specific record first (see the module docstring)."""
    address = addresses.parse(record.address).specificity() if record.address else (0,)
    return (
        specificity_key(record.profile),
        -MAPPING.index(record.type),
        _identity_specificity(record),
        address,
    )


def mapping_record(records: Iterable[Record], connection: Connection) -> Record | None:
    """The mapping record that applies to a connection, or None."""
    found = [
        record
        for record in records
        if record.type in MAPPING
        and generic_match(record.profile, connection.channel)
        and _mapping_matches(record, connection)
    ]
    if not found:
        return None
    return max(found, key=_rank)


def blockuser_record(records: Iterable[Record], channel: str) -> Record | None:
    """The BLOCKUSER record of the most specific profile that matches the channel."""
    found = [r for r in records if r.type == BLOCKUSER and generic_match(r.profile, channel)]
    return max(found, key=lambda r: specificity_key(r.profile)) if found else None


def _runs_as(record: Record | None, connection: Connection) -> str:
    if record is not None and record.usersrc == MAP:
        return record.mcauser
    if connection.channel_mcauser.strip():
        return connection.channel_mcauser.strip()
    if connection.client and connection.client_user:
        return connection.client_user
    return chinit_user(connection.qmname) if connection.qmname else ""


def user_blocked(record: Record | None, user: str, connection: Connection) -> bool:
    if record is None:
        return False
    admins = privileged(connection.qmname) | connection.extra_privileged if connection.qmname else frozenset()
    return any(item == user or (item == MQADMIN and user in admins) for item in record.userlist)


def decide(records: Sequence[Record], connection: Connection) -> Decision:
    """Whether an inbound channel may run, and as which user (see the module docstring)."""
    warned: list[Record] = []
    address_block = blocked_address(records, connection.address)
    if address_block is not None:
        if address_block.warn != "YES":
            return Decision(False, BY_ADDRESS, "", None, address_block)
        warned.append(address_block)
    record = mapping_record(records, connection)
    chckclnt = record.chckclnt if record is not None else "ASQMGR"
    if record is not None and record.usersrc == NOACCESS:
        if record.warn != "YES":
            return Decision(False, BY_NOACCESS, "", record, record, tuple(warned), chckclnt)
        warned.append(record)
    user = _runs_as(record, connection)
    blocker = blockuser_record(records, connection.channel)
    if user_blocked(blocker, user, connection):
        assert blocker is not None
        if blocker.warn != "YES":
            return Decision(False, BY_USER, user, record, blocker, tuple(warned), chckclnt)
        warned.append(blocker)
    return Decision(True, "", user, record, None, tuple(warned), chckclnt)


@dataclass(frozen=True)
class RunCheck:
    """DISPLAY CHLAUTH MATCH(RUNCHECK): the record a channel would meet (the one that
    refuses it, else the mapping record, else None) and the decision."""

    record: Record | None
    decision: Decision


def runcheck(records: Sequence[Record], connection: Connection) -> RunCheck:
    """The record that an inbound channel of these details would be decided by."""
    decision = decide(records, connection)
    shown = decision.blocking or decision.record
    return RunCheck(shown, decision)


# -- the records of a new queue manager ----------------------------------------------


def backstop() -> list[Record]:
    """IBM's default channel authentication records of a new queue manager: no access
    for privileged users on any channel, no access to SYSTEM.* channels from anywhere,
    and access to SYSTEM.ADMIN.SVRCONN as its channel says (for MQ Explorer)."""
    return [
        Record(
            "SYSTEM.ADMIN.SVRCONN",
            ADDRESSMAP,
            address="*",
            usersrc=CHANNEL,
            descr="Default rule to allow MQ Explorer access",
        ),
        Record(
            "SYSTEM.*", ADDRESSMAP, address="*", usersrc=NOACCESS, descr="Default rule to disable all SYSTEM channels"
        ),
        Record("*", BLOCKUSER, userlist=(MQADMIN,), descr="Default rule to disallow privileged users"),
    ]


def describe(record: Record) -> str:
    """The record in SET CHLAUTH terms, for console messages: CHLAUTH('SYSTEM.*') TYPE(ADDRESSMAP) ADDRESS(*)."""
    parts = [f"CHLAUTH('{record.profile}') TYPE({record.type})"]
    for name in ("address", "sslpeer", "sslcerti", "clntuser", "qmname"):
        value = getattr(record, name)
        if value:
            parts.append(f"{name.upper()}({value})")
    if record.type == BLOCKUSER:
        parts.append(f"USERLIST({','.join(record.userlist)})")
    if record.type == BLOCKADDR:
        parts.append(f"ADDRLIST({','.join(record.addrlist)})")
    if record.type in MAPPING:
        parts.append(f"USERSRC({record.usersrc})")
    return " ".join(parts)
