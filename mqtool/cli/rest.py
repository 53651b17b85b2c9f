"""`mqtool rest`: writes the REST listener configuration (`init`) and shows it with
where a serving loop listens (`show`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from mqtool.cli.main import App, fail
from mqtool.cli.options import Decimal, Whole

_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(context_settings=_CONTEXT)
def rest() -> None:
    """The MQ REST API stand-in: IBM mqweb's administrative and messaging REST API,
    served by `mqtool serve` (and the shell) once `mqtool rest init` has written
    STATE/rest.yaml. mqtool-rest(7) says what it implements.

    \b
    Examples:
      mqtool rest init --port 9443 --user admin:MQWebAdmin --user app:MQWebUser
      mqtool serve &
      curl -u admin:PASSWORD http://127.0.0.1:9443/ibmmq/rest/v2/admin/qmgr
      mqtool rest show
    """


def _users(specs: tuple[str, ...]) -> dict[str, list[str]]:
    """NAME:ROLE[,ROLE] options as name -> roles, in the order given."""
    from mqtool.rest.config import role_name, user_name

    users: dict[str, list[str]] = {}
    for spec in specs:
        name, colon, roles = spec.rpartition(":")
        if not colon or not name or not roles.strip():
            fail(f"--user {spec}: give NAME:ROLE (roles: MQWebAdmin, MQWebAdminRO, MQWebUser)")
        try:
            name = user_name(name)
            chosen = [role_name(role) for role in roles.split(",")]
        except ValueError as exc:
            fail(f"--user {spec}: {exc}")
        for role in chosen:
            if role not in users.setdefault(name, []):
                users[name].append(role)
    return users


def _grants(specs: tuple[str, ...], users: dict[str, list[str]]) -> dict[str, tuple[str, ...]]:
    """NAME[:VERB[,VERB]] options as name -> granted verbs (ALL: every one)."""
    from mqtool.rest.config import ALL_COMMANDS, grants

    found: dict[str, tuple[str, ...]] = {}
    for spec in specs:
        name, colon, verbs = spec.partition(":")
        if name not in users:
            fail(f"--grant {spec}: {name!r} is not a --user of this command")
        if "MQWebUser" not in users[name]:
            fail(
                f"--grant {spec}: grants are for MQWebUser users (MQWebAdmin may run every command, "
                "MQWebAdminRO displays only)"
            )
        if colon and not verbs.strip():
            fail(f"--grant {spec}: give NAME, or NAME:VERB[,VERB] (DEFINE, ALTER, DELETE ...)")
        try:
            chosen = grants(verbs.split(",") if colon else [ALL_COMMANDS], name)
        except ValueError as exc:
            fail(f"--grant {spec}: {exc}")
        merged = tuple(dict.fromkeys((*found.get(name, ()), *chosen)))
        found[name] = (ALL_COMMANDS,) if ALL_COMMANDS in merged else merged
    return found


def _password(name: str) -> str:
    """A user's password: asked twice (hidden) on a terminal, else one line of
    standard input per user, in the order of the --user options."""
    if sys.stdin.isatty():
        text = str(click.prompt(f"Password for {name}", hide_input=True, confirmation_prompt=True))
    else:
        line = sys.stdin.readline()
        if not line:
            fail(f"no password for {name}: standard input ended (give one line per user)")
        text = line.removesuffix("\n").removesuffix("\r")
    if not text:
        fail(f"the password of {name} is empty")
    return text


@rest.command(context_settings=_CONTEXT)
@click.option("--port", required=True, type=Whole(0, 65535), help="TCP port, 0-65535; 0 lets the system choose.")
@click.option("--host", default="127.0.0.1", show_default=True, metavar="ADDRESS", help="Address to listen on.")
@click.option(
    "--user",
    "user_specs",
    multiple=True,
    metavar="NAME:ROLE",
    help="A user and its mqweb role(s), comma-separated: MQWebAdmin, MQWebAdminRO, MQWebUser (repeatable).",
)
@click.option(
    "--grant",
    "grant_specs",
    multiple=True,
    metavar="NAME[:VERB,...]",
    help="Let a MQWebUser run commands that change something: every verb, or those named "
    "(DEFINE, ALTER, DELETE, START, STOP ...); without a grant it may DISPLAY only (repeatable).",
)
@click.option(
    "--tls-cert",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="PEM certificate (chain) to answer https with; needs --tls-key. Without both: plain http.",
)
@click.option(
    "--tls-key",
    type=click.Path(path_type=Path),
    metavar="FILE",
    help="PEM private key (unencrypted) of --tls-cert.",
)
@click.option("--maxconn", type=Whole(1, 65535), default=100, show_default=True, help="Connections at once, 1-65535.")
@click.option(
    "--timeout",
    type=Decimal(0.001, 86400, "s"),
    default=30.0,
    show_default=True,
    help="Seconds per request, 0.001-86400.",
)
@click.option(
    "--maxbody",
    type=Whole(1024, 100 * 1024 * 1024),
    default=4 * 1024 * 1024,
    show_default=True,
    help="Largest request body in bytes, 1024-104857600 (a larger one gets 413).",
)
@click.option("--force", is_flag=True, help="Replace an existing configuration.")
@click.pass_obj
def init(
    app: App,
    port: int,
    host: str,
    user_specs: tuple[str, ...],
    grant_specs: tuple[str, ...],
    tls_cert: Path | None,
    tls_key: Path | None,
    maxconn: int,
    timeout: float,
    maxbody: int,
    force: bool,
) -> None:
    """Write STATE/rest.yaml: the REST listener's address, bounds, users and, with
    --tls-cert and --tls-key, the certificate it answers https with (checked now: each
    file readable, PEM, the key unencrypted and matching the certificate). Each user's
    password is asked on a terminal (twice, hidden) or read from standard input, one
    line per user in the order of the --user options; only its scrypt hash is stored,
    and the file is readable by its owner only. A MQWebUser may DISPLAY; --grant lets it
    run other commands too (mqtool-rest(7), AUTHORITY). A running `mqtool serve`
    (re)opens the listener at its next poll.

    \b
    Examples:
      mqtool rest init --port 9443 --user admin:MQWebAdmin,MQWebUser
      printf 'secret\\nreader\\n' | mqtool rest init --port 0 --user app:MQWebUser --user ro:MQWebAdminRO
      mqtool rest init --port 9443 --user admin:MQWebAdmin --user app:MQWebUser --grant app:DEFINE,ALTER \\
        --tls-cert server.pem --tls-key server.key
    """
    from mqtool.rest.config import RestConfig, RestUser, config_path, hash_password, host_address, write
    from mqtool.rest.tls import TlsError, check_files

    try:
        host = host_address(host)
    except ValueError as exc:
        fail(f"--host: {exc}")
    users = _users(user_specs)
    if not users:
        fail("give at least one --user NAME:ROLE (nobody could use the REST API otherwise)")
    granted = _grants(grant_specs, users)
    if (tls_cert is None) != (tls_key is None):
        fail("give --tls-cert and --tls-key together (https), or neither (http)")
    tls = None
    if tls_cert is not None and tls_key is not None:
        try:
            tls = check_files(tls_cert, tls_key)
        except TlsError as exc:
            fail(str(exc))
    path = config_path(app.state_dir)
    if path.exists() and not force:
        fail(f"{path} exists; use --force to replace it")
    records = tuple(
        RestUser(name, tuple(roles), hash_password(_password(name)), granted.get(name, ()))
        for name, roles in users.items()
    )
    config = RestConfig(port=port, host=host, maxconn=maxconn, timeout=timeout, maxbody=maxbody, users=records, tls=tls)
    try:
        written = write(app.state_dir, config)
    except OSError as exc:
        fail(f"cannot write {path}: {exc.strerror or exc}")
    names = ", ".join(f"{user.name} ({'+'.join(user.roles)}{_granted(user.commands)})" for user in records)
    click.echo(f"Wrote {written}: REST API on {config.scheme}://{host}:{port} for {names}.")
    click.echo("mqtool serve (or the shell) listens; mqtool rest show tells where.")


def _granted(commands: tuple[str, ...]) -> str:
    return f"; may run {','.join(commands)}" if commands else ""


@rest.command(context_settings=_CONTEXT)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.pass_obj
def show(app: App, fmt: str) -> None:
    """Show the REST configuration (address, bounds, users and their roles; never a
    password or its hash) and where a serving loop listens.

    \b
    Examples:
      mqtool rest show
      mqtool rest show --format json
    """
    from mqtool import messages
    from mqtool.engine.http.config import ConfigError
    from mqtool.rest.config import config_path, load, read_status

    try:
        config = load(app.state_dir)
    except ConfigError as exc:
        fail(str(exc))
    if config is None:
        fail(f"no REST configuration in {app.state_dir} (mqtool rest init --port N --user NAME:ROLE writes one)")
    status = read_status(app.state_dir)
    listening = None if status is None else f"{status['host']}:{status['port']}"
    if fmt == "json":
        document = {
            "file": str(config_path(app.state_dir)),
            "host": config.host,
            "port": config.port,
            "maxconn": config.maxconn,
            "timeout": config.timeout,
            "maxbody": config.maxbody,
            "users": [
                {"name": user.name, "roles": list(user.roles), "commands": list(user.commands)} for user in config.users
            ],
            "tls": None if config.tls is None else {"cert": str(config.tls.cert), "key": str(config.tls.key)},
            "listening": None
            if status is None
            else {"scheme": status["scheme"], "host": status["host"], "port": status["port"]},
            "pid": None if status is None else status["pid"],
        }
        click.echo(json.dumps(document, indent=2))
        return
    click.echo(f"file     {config_path(app.state_dir)}")
    click.echo(f"address  {config.scheme}://{config.host}:{config.port}")
    click.echo(f"bounds   maxconn {config.maxconn}, timeout {config.timeout:g}s, maxbody {config.maxbody} bytes")
    if config.tls is not None:
        click.echo(f"tls      certificate {config.tls.cert}, key {config.tls.key}")
    for user in config.users:
        click.echo(f"user     {user.name}: {', '.join(user.roles)}{_granted(user.commands)}")
    if status is None:
        click.echo("listening: no (mqtool serve or the shell opens the listener)")
    else:
        users = f"{len(config.users)} user{'s' if len(config.users) != 1 else ''}, pid {status['pid']}"
        click.echo(messages.line("MQT0350I", scheme=status["scheme"], address=listening, users=users))
