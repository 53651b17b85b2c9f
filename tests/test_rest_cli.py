"""`mqtool rest init` and `mqtool rest show`: the configuration they write and show,
passwords never shown, and every bad option as one `mqtool: error:` line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from mqtool.rest.config import check_password, load, write_status
from tests.conftest import MQ


def test_init_writes_users_with_hashed_passwords_read_from_standard_input(mq: MQ, state_dir: Path) -> None:
    result = mq(
        "rest",
        "init",
        "--port",
        "9443",
        "--user",
        "admin:mqwebadmin,MQWebUser",
        "--user",
        "ro:MQWebAdminRO",
        input="first secret\nsecond\n",
    )
    assert result.exit_code == 0, result.output
    assert "REST API on http://127.0.0.1:9443 for admin (MQWebAdmin+MQWebUser), ro (MQWebAdminRO)" in result.output
    assert "secret" not in result.output
    config = load(state_dir)
    assert config is not None and (config.host, config.port, config.maxbody) == ("127.0.0.1", 9443, 4194304)
    admin, reader = config.users
    assert admin.roles == ("MQWebAdmin", "MQWebUser") and reader.roles == ("MQWebAdminRO",)
    assert check_password(admin.password, "first secret") and check_password(reader.password, "second")
    assert "first secret" not in (state_dir / "rest.yaml").read_text()


def test_show_never_prints_a_password_and_tells_where_it_listens(mq: MQ, state_dir: Path) -> None:
    assert mq("rest", "init", "--port", "0", "--user", "app:MQWebUser", input="pw-123\n").exit_code == 0
    shown = mq("rest", "show")
    assert shown.exit_code == 0
    assert shown.output.splitlines()[1:] == [
        "address  http://127.0.0.1:0",
        "bounds   maxconn 100, timeout 30s, maxbody 4194304 bytes",
        "user     app: MQWebUser",
        "listening: no (mqtool serve or the shell opens the listener)",
    ]
    write_status(state_dir, "127.0.0.1", 40123)  # as a serving loop of this (live) process would
    listening = mq("rest", "show", "--format", "json")
    document = json.loads(listening.output)
    assert (
        document["listening"] == {"scheme": "http", "host": "127.0.0.1", "port": 40123}
        and document["pid"] == os.getpid()
    )
    assert document["users"] == [{"name": "app", "roles": ["MQWebUser"], "commands": []}]
    assert document["tls"] is None
    assert "pw-123" not in listening.output and "scrypt" not in listening.output
    assert "MQT0350I REST API listening on http://127.0.0.1:40123/ibmmq/rest/v2" in mq("rest", "show").output


@pytest.mark.parametrize(
    ("args", "stdin", "message"),
    [
        (["--port", "1", "--user", "a:MQWebGod"], "x\n", "'MQWebGod' is not an mqweb role"),
        (["--port", "1", "--user", "a"], "x\n", "give NAME:ROLE"),
        (["--port", "1", "--user", "a b:MQWebUser"], "x\n", "is not a user name"),
        (["--port", "1"], "", "give at least one --user"),
        (["--port", "1", "--host", "0.0.0.0.0"], "", "--host: '0.0.0.0.0' is not an IPv4 or IPv6 address"),
        (["--port", "1", "--user", "a:MQWebUser", "--user", "b:MQWebUser"], "x\n", "no password for b"),
        (["--port", "1", "--user", "a:MQWebUser"], "\n", "the password of a is empty"),
    ],
)
def test_bad_options_are_one_error_line_and_write_nothing(
    mq: MQ, state_dir: Path, args: list[str], stdin: str, message: str
) -> None:
    result = mq("rest", "init", *args, input=stdin)
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1, result.stderr  # one line (mqtool: error: ... from the mqtool program)
    assert message in result.stderr
    assert not (state_dir / "rest.yaml").exists()


def test_grants_give_a_mqweb_user_command_authority(mq: MQ, state_dir: Path) -> None:
    result = mq(
        "rest", "init", "--port", "0",
        "--user", "app:MQWebUser", "--user", "ops:MQWebUser", "--user", "admin:MQWebAdmin",
        "--grant", "app:def,Alter", "--grant", "app:DELETE", "--grant", "ops",
        input="a\nb\nc\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert (
        "app (MQWebUser; may run DEFINE,ALTER,DELETE), ops (MQWebUser; may run ALL), admin (MQWebAdmin)"
        in result.output
    )
    config = load(state_dir)
    assert config is not None
    assert [user.commands for user in config.users] == [("DEFINE", "ALTER", "DELETE"), ("ALL",), ()]
    assert "user     app: MQWebUser; may run DEFINE,ALTER,DELETE" in mq("rest", "show").output
    text = (state_dir / "rest.yaml").read_text()
    assert "commands:" in text and text.count("commands:") == 3  # the comment, app and ops


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--user", "a:MQWebUser", "--grant", "b"], "'b' is not a --user of this command"),
        (["--user", "a:MQWebAdminRO", "--grant", "a"], "grants are for MQWebUser users"),
        (["--user", "a:MQWebUser", "--grant", "a:DISPLAY"], "'DISPLAY' is not a verb a grant takes"),
        (["--user", "a:MQWebUser", "--grant", "a:FLY"], "'FLY' is not a verb a grant takes (DEFINE, ALTER"),
        (["--user", "a:MQWebUser", "--grant", "a:"], "give NAME, or NAME:VERB"),
    ],
)
def test_bad_grants_are_one_error_line(mq: MQ, state_dir: Path, args: list[str], message: str) -> None:
    result = mq("rest", "init", "--port", "1", *args, input="x\n")
    assert result.exit_code == 2 and message in result.stderr and result.stderr.count("\n") == 1, result.stderr
    assert not (state_dir / "rest.yaml").exists()


def test_an_old_rest_yaml_without_grants_or_tls_is_read(state_dir: Path) -> None:
    """A file written before grants and https: read as it is; its MQWebUsers may DISPLAY only."""
    from mqtool.rest.config import hash_password

    state_dir.mkdir(parents=True)
    stored = hash_password("pw")
    (state_dir / "rest.yaml").write_text(
        f"host: 127.0.0.1\nport: 9443\nusers:\n- name: app\n  roles: [MQWebUser]\n  password: '{stored}'\n"
    )
    config = load(state_dir)
    assert config is not None and config.tls is None and config.scheme == "http"
    assert config.users[0].commands == ()


def test_init_refuses_to_replace_without_force_and_show_without_a_file(mq: MQ, state_dir: Path) -> None:
    assert "no REST configuration" in mq("rest", "show").stderr
    assert mq("rest", "init", "--port", "1", "--user", "a:MQWebUser", input="x\n").exit_code == 0
    again = mq("rest", "init", "--port", "2", "--user", "a:MQWebUser", input="y\n")
    assert again.exit_code == 2 and "exists; use --force" in again.stderr
    forced = mq("rest", "init", "--port", "2", "--host", "::1", "--user", "a:MQWebUser", "--force", input="y\n")
    assert forced.exit_code == 0
    config = load(state_dir)
    assert config is not None and (config.host, config.port) == ("::1", 2)
    (state_dir / "rest.yaml").write_text("port: [")
    damaged = mq("rest", "show")
    assert damaged.exit_code == 2 and "not YAML" in damaged.stderr


def test_the_rest_page_documents_every_error_id_role_and_header() -> None:
    from mqtool.rest.config import ROLES
    from mqtool.rest.reply import ACTIONS, CSRF_HEADER, MESSAGE_TYPES

    text = (Path(__file__).resolve().parents[1] / "man" / "mqtool-rest.7").read_text(encoding="utf-8")
    plain = text.replace("\\-", "-").replace("\\e", "\\")
    headers = [
        "ibm-mq-md-persistence",
        "ibm-mq-md-expiry",
        "ibm-mq-md-correlationId",
        "ibm-mq-md-priority",
        "ibm-mq-md-messageId",
        CSRF_HEADER,
    ]
    wanted = [*ACTIONS, *ROLES, *headers, *MESSAGE_TYPES, "runCommand", "runCommandJSON", "responseParameters"]
    assert [word for word in wanted if word not in plain] == []
