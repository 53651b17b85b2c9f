"""Connection authentication (QMGR CONNAUTH naming an AUTHINFO of AUTHTYPE(IDPWOS)): who
must present a user id and password, whether the pair is valid, which user id the
connection then runs as, and when a failure is answered.

"The operating system" of IDPWOS: a workstation has no RACF to check passwords
against, so mqtool's users are the users of the state directory's REST stand-in
(`mqtool rest init --user NAME:ROLE`, passwords stored as scrypt hashes in rest.yaml):
one user registry per state directory, as one z/OS system has one security manager.
This module does not read that file (security imports neither the REST stand-in nor
channels): callers give a `Verifier`, a function (user, password) -> True (valid),
False (wrong password) or None (no such user).

IBM's attributes, as `check` applies them:

- CHCKCLNT (connections through the channel initiator: channels, and REST clients here)
  and CHCKLOCL (locally bound applications): NONE ignores what is presented; OPTIONAL
  checks a pair when one comes; REQUIRED needs a valid pair; REQDADM needs one from
  privileged users only (IBM: not on z/OS, where DEFINE AUTHINFO refuses it; kept here
  for the other callers). A CHLAUTH record's CHCKCLNT(REQUIRED) raises OPTIONAL to
  REQUIRED for the connections it matches; ASQMGR takes the AUTHINFO's.
- ADOPTCTX(YES): the validated user id becomes the connection's user id.
- FAILDLAY: a failed check is answered this many seconds after the request arrived;
  the same for an unknown user and a wrong password, so that the answer's time tells
  nothing (`Outcome.answer_at`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

Verifier = Callable[[str, str], bool | None]
NONE, OPTIONAL, REQUIRED, REQDADM, ASQMGR = "NONE", "OPTIONAL", "REQUIRED", "REQDADM", "ASQMGR"
CHECKS = (NONE, OPTIONAL, REQUIRED, REQDADM)
MAX_USER = 1024  # bytes of a user id presented (IBM: MQCSP's limit for z/OS is smaller; mqtool bounds input)
MAX_PASSWORD = 1024
MAX_FAILDLAY = 60  # IBM: FAILDLAY 0-60 seconds


@dataclass(frozen=True)
class AuthInfo:
    """An AUTHINFO of AUTHTYPE(IDPWOS), as the checks need it."""

    name: str
    chckclnt: str = REQUIRED
    chcklocl: str = OPTIONAL
    adoptctx: bool = False
    faildlay: int = 1

    @classmethod
    def from_attrs(cls, name: str, attrs: dict[str, object]) -> AuthInfo:
        """From a stored AUTHINFO object's attributes (keyword names as keys)."""
        delay = str(attrs.get("FAILDLAY", 1))
        return cls(
            name=name,
            chckclnt=str(attrs.get("CHCKCLNT", REQUIRED)),
            chcklocl=str(attrs.get("CHCKLOCL", OPTIONAL)),
            adoptctx=str(attrs.get("ADOPTCTX", "NO")) == "YES",
            faildlay=min(MAX_FAILDLAY, int(delay)) if delay.isdigit() else 1,
        )


@dataclass(frozen=True)
class Outcome:
    """The answer to one connection's credentials."""

    allowed: bool
    user: str  # the user id the connection runs as (the adopted one with ADOPTCTX(YES))
    checked: bool  # a user id and password were checked (and were valid when allowed)
    reason: str = ""  # why refused: "no credentials", "unknown user", "wrong password", "too long"
    answer_at: float = 0.0  # when a refusal is answered (arrival + FAILDLAY); 0 for an answer at once
    mqrc: int = 0  # 2035 (MQRC_NOT_AUTHORIZED) when refused


def requirement(authinfo: AuthInfo | None, client: bool = True, chlauth_chckclnt: str = ASQMGR) -> str:
    """The check that applies: NONE without CONNAUTH; the AUTHINFO's CHCKCLNT (clients)
    or CHCKLOCL (local applications); a CHLAUTH record's REQUIRED or REQDADM raises OPTIONAL."""
    if authinfo is None:
        return NONE
    level = authinfo.chckclnt if client else authinfo.chcklocl
    if client and level == OPTIONAL and chlauth_chckclnt in (REQUIRED, REQDADM):
        return chlauth_chckclnt
    return level


def check(
    authinfo: AuthInfo | None,
    user: str | None,
    password: str | None,
    verify: Verifier,
    *,
    arrived: float,
    asserted: str = "",
    client: bool = True,
    chlauth_chckclnt: str = ASQMGR,
    privileged: frozenset[str] = frozenset(),
) -> Outcome:
    """The outcome of a connection that presents `user` and `password` (None: none
    presented), asserting `asserted` as its user id otherwise (a client's own user id)."""
    level = requirement(authinfo, client, chlauth_chckclnt)
    presented = user is not None and password is not None
    delay = authinfo.faildlay if authinfo is not None else 0

    def refuse(reason: str) -> Outcome:
        return Outcome(False, "", presented, reason, arrived + delay, 2035)

    if level == NONE:
        return Outcome(True, asserted, False)
    if not presented:
        if level == REQUIRED or (level == REQDADM and asserted in privileged):
            return refuse("no credentials")
        return Outcome(True, asserted, False)
    assert user is not None and password is not None
    if len(user.encode("utf-8", "replace")) > MAX_USER or len(password.encode("utf-8", "replace")) > MAX_PASSWORD:
        return refuse("too long")
    valid = verify(user, password)
    if valid is None:
        return refuse("unknown user")
    if not valid:
        return refuse("wrong password")
    adopted = user if authinfo is not None and authinfo.adoptctx else asserted or user
    return Outcome(True, adopted, True)


def check_rest(authinfo: AuthInfo | None, user: str, password: str, verify: Verifier, arrived: float) -> Outcome:
    """A REST request's basic-authentication credentials: the REST stand-in is a client
    of the queue manager (CHCKCLNT applies) whose user id is the one presented. With
    CHCKCLNT(NONE) CONNAUTH checks nothing (the stand-in still checks its own users)."""
    return check(authinfo, user, password, verify, arrived=arrived, asserted=user)
