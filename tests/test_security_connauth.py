"""CONNAUTH with AUTHINFO AUTHTYPE(IDPWOS): who must present credentials, what a valid
pair changes, and when a failure is answered (mqtool/engine/security/connauth.py)."""

from __future__ import annotations

import pytest

from mqtool.engine.security import connauth
from mqtool.engine.security.connauth import AuthInfo

USERS = {"alice": "secret", "CSQ1CHIN": "admin"}


def verify(user: str, password: str) -> bool | None:
    if user not in USERS:
        return None
    return USERS[user] == password


def run(authinfo: AuthInfo | None, user: str | None, password: str | None, **kw: object) -> connauth.Outcome:
    return connauth.check(authinfo, user, password, verify, arrived=1000.0, **kw)  # type: ignore[arg-type]


def test_without_connauth_nothing_is_checked() -> None:
    outcome = run(None, "alice", "wrong", asserted="alice")
    assert outcome.allowed and not outcome.checked and outcome.user == "alice"


@pytest.mark.parametrize(
    ("level", "user", "password", "allowed", "reason"),
    [
        ("NONE", "alice", "wrong", True, ""),  # ignored
        ("OPTIONAL", None, None, True, ""),
        ("OPTIONAL", "alice", "secret", True, ""),
        ("OPTIONAL", "alice", "wrong", False, "wrong password"),
        ("REQUIRED", None, None, False, "no credentials"),
        ("REQUIRED", "alice", "secret", True, ""),
        ("REQUIRED", "mallory", "x", False, "unknown user"),
        ("REQUIRED", "alice", "x" * 5000, False, "too long"),
    ],
)
def test_chckclnt(level: str, user: str | None, password: str | None, allowed: bool, reason: str) -> None:
    outcome = run(AuthInfo("AUTH", chckclnt=level), user, password, asserted="bob")
    assert outcome.allowed is allowed and outcome.reason == reason
    if not allowed:
        assert outcome.mqrc == 2035


def test_reqdadm_requires_credentials_of_privileged_users_only() -> None:
    authinfo = AuthInfo("AUTH", chckclnt="REQDADM")
    admins = frozenset({"CSQ1CHIN"})
    assert run(authinfo, None, None, asserted="bob", privileged=admins).allowed
    assert not run(authinfo, None, None, asserted="CSQ1CHIN", privileged=admins).allowed
    assert run(authinfo, "CSQ1CHIN", "admin", asserted="CSQ1CHIN", privileged=admins).allowed


def test_a_chlauth_record_raises_optional_to_required() -> None:
    authinfo = AuthInfo("AUTH", chckclnt="OPTIONAL")
    assert run(authinfo, None, None, chlauth_chckclnt="ASQMGR").allowed
    assert not run(authinfo, None, None, chlauth_chckclnt="REQUIRED").allowed
    assert connauth.requirement(AuthInfo("A", chckclnt="NONE"), chlauth_chckclnt="REQUIRED") == "NONE"


def test_chcklocl_for_local_applications() -> None:
    authinfo = AuthInfo("AUTH", chckclnt="REQUIRED", chcklocl="OPTIONAL")
    assert run(authinfo, None, None, client=False).allowed


def test_adoptctx_makes_the_validated_user_the_connections() -> None:
    assert run(AuthInfo("A", adoptctx=True), "alice", "secret", asserted="bob").user == "alice"
    assert run(AuthInfo("A", adoptctx=False), "alice", "secret", asserted="bob").user == "bob"


def test_faildlay_answers_unknown_users_and_wrong_passwords_alike() -> None:
    authinfo = AuthInfo("A", faildlay=5)
    unknown = run(authinfo, "mallory", "x")
    wrong = run(authinfo, "alice", "x")
    assert unknown.answer_at == wrong.answer_at == 1005.0
    assert run(authinfo, "alice", "secret").answer_at == 0.0


def test_authinfo_from_stored_attributes() -> None:
    info = AuthInfo.from_attrs("A", {"CHCKCLNT": "OPTIONAL", "ADOPTCTX": "YES", "FAILDLAY": 7})
    assert info == AuthInfo("A", chckclnt="OPTIONAL", chcklocl="OPTIONAL", adoptctx=True, faildlay=7)
    assert AuthInfo.from_attrs("A", {"FAILDLAY": "999"}).faildlay == 60
    assert AuthInfo.from_attrs("A", {"FAILDLAY": "junk"}).faildlay == 1


def test_rest_credentials() -> None:
    authinfo = AuthInfo("A", chckclnt="REQUIRED")
    assert connauth.check_rest(authinfo, "alice", "secret", verify, 5.0).user == "alice"
    refused = connauth.check_rest(authinfo, "alice", "bad", verify, 5.0)
    assert not refused.allowed and refused.answer_at == 6.0
