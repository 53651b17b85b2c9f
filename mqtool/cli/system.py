"""`mqtool system add|alter|remove|list`: the systems of the complex and their settings."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from mqtool.cli.main import App, fail, find_system
from mqtool.complex import SETTING_OPTIONS
from mqtool.listing import Column, emit, format_option, is_terminal

F = TypeVar("F", bound=Callable[..., Any])
CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


# option name -> setting key, in the order `system add` shows them
def setting_options(function: F) -> F:
    """The settings options shared by `system add` and `system alter` (listed in the
    order of SETTING_OPTIONS, then --log and --archive)."""
    function = click.option(
        "--archive",
        "archive",
        multiple=True,
        metavar="KEY=VALUE",
        help="z/OS: an archive parameter (CSQ6ARVP name: ARCPFX1, ARCRETN, UNIT, ...); repeat it for more.",
    )(function)
    function = click.option(
        "--log",
        "log",
        multiple=True,
        metavar="KEY=VALUE",
        help="z/OS: a log parameter (CSQ6LOGP name: TWOACTV, OUTBUFF, ZHYLINK, ...); repeat it for more.",
    )(function)
    for name, metavar, help_text in reversed(SETTING_OPTIONS):
        names = [f"--{name}"] + (["--subsystem-user"] if name == "ssu" else [])
        function = click.option(*names, name, metavar=metavar, help=help_text)(function)
    return function


def _settings(platform: str, options: dict[str, Any]) -> dict[str, Any]:
    """The settings given as options, converted and checked; a bad one ends the command."""
    from mqtool.complex import SettingError, check_setting

    values: dict[str, Any] = {}
    for name, _, _ in SETTING_OPTIONS:
        raw = options.get(name)
        if raw is None:
            continue
        try:
            values[name] = check_setting(platform, name, raw)
        except SettingError as exc:
            fail(f"--{name}: {exc}")
    return values


def _parameters(platform: str, group: str, pairs: tuple[str, ...], known: dict[str, Any]) -> dict[str, Any]:
    from mqtool.complex import PLATFORM_NAMES, SettingError, check_parameter

    if not pairs:
        return {}
    if platform != "zos":
        fail(f"--{group}: applies to z/OS systems only, not to {PLATFORM_NAMES[platform]}")
    values: dict[str, Any] = {}
    for pair in pairs:
        key, equals, raw = pair.partition("=")
        if not equals or not key.strip():
            fail(f"--{group}: {pair!r} is not KEY=VALUE, e.g. --{group} {next(iter(known), 'KEY')}=...")
        try:
            name = key.strip().upper()
            if name in values:
                fail(f"--{group}: {name} given twice")
            values[name] = check_parameter(group, key, raw, known)
        except SettingError as exc:
            fail(f"--{group}: {exc}")
    return values


def _find(tx: Any, name: str) -> Any:
    return find_system(tx.systems(), name)


def _check(system: Any, others: list[Any]) -> None:
    from mqtool.complex import SettingError, check_system

    try:
        check_system(system, others)
    except SettingError as exc:
        fail(str(exc))


def _describe(system: Any, qmgr: str | None) -> str:
    from mqtool.complex import PLATFORM_NAMES

    parts = [PLATFORM_NAMES[system.platform], system.cpu]
    if system.platform == "ztpf":
        parts.append(f"queue manager {qmgr}" if qmgr else "no queue manager")
    else:
        parts.append(f"CPF {system.attrs.get('cpf', '')}")
    return ", ".join(parts)


def qmgr_name(tx: Any, system: Any) -> str | None:
    """The queue manager a system has now: z/TPF from its objects, z/OS is its own."""
    if system.platform == "zos":
        return str(system.name)
    found = tx.objects(system.name, "QMGR")
    return found[0].name if found else None


@click.group("system", context_settings=CONTEXT)
def system() -> None:
    """Add, alter, remove and list the systems of the complex.

    A z/TPF system has a CPU model, console identity (processor, subsystem, subsystem
    user, I-stream), a display offset, SWB and sweeper settings and at most one queue
    manager. A z/OS system is one queue manager with a command prefix (CPF), log and
    archive parameters and a statistics interval. Every setting is checked; a bad one is
    a one-line error and changes nothing.

    \b
    Examples:
      mqtool system list
      mqtool system add TPF2 --platform ztpf --cpu z16 --qmgr TPFQM2 --listener '127.0.0.1(1416)'
      mqtool system add CSQ2 --platform zos --cpf -CSQ2 --log ZHYLINK=YES
      mqtool system alter TPF1 --cpu z14
      mqtool system remove TPF2
    """


@system.command("add", context_settings=CONTEXT)
@click.argument("name")
@click.option(
    "--platform",
    type=click.Choice(["ztpf", "zos"], case_sensitive=False),
    help="ztpf (a z/TPF system) or zos (an IBM MQ for z/OS queue manager); required.",
)
@setting_options
@click.pass_obj
def add(
    app: App, name: str, platform: str | None, log: tuple[str, ...], archive: tuple[str, ...], **options: Any
) -> None:
    """Add a system to the complex. Settings not given take their defaults (shown in
    brackets). A z/TPF system gets a queue manager only with --qmgr (or later with
    ZMQSC DEFINE QMGR-name); a z/OS system is its own queue manager, named NAME, and
    its CPF defaults to -NAME.

    \b
    Examples:
      mqtool system add TPF2 --platform ztpf --qmgr TPFQM2
      mqtool system add TPF3 --platform ztpf --cpu z14 --processor C --offset +01:00
      mqtool system add CSQ2 --platform zos --cpf +CSQ2 --statime 5 --log OUTBUFF=400
    """
    from mqtool.complex import SettingError, bootstrap_system, check_system_name, defaults

    if platform is None:
        fail("--platform is required: ztpf or zos")
    platform = platform.lower()
    try:
        name = check_system_name(platform, name)
    except SettingError as exc:
        fail(str(exc))
    values = _settings(platform, options)
    base = defaults(platform)
    if platform == "zos":
        values["log"] = base["log"] | _parameters(platform, "log", log, base["log"])
        values["archive"] = base["archive"] | _parameters(platform, "archive", archive, base["archive"])
        values.setdefault("cpf", "-" + name)
    else:
        _parameters(platform, "log", log, {})
        _parameters(platform, "archive", archive, {})
    from mqtool.state import SystemRecord

    with app.store.transaction() as tx:
        others = tx.systems()
        clash = [s.name for s in others if s.name.upper() == name]
        if clash:
            fail(f"a system named {clash[0]} already exists")
        record = SystemRecord(name, platform, base | values)
        _check(record, others)
        tx.put_system(record)
        bootstrap_system(tx, record, app.clock.timestamp())
        qmgr = qmgr_name(tx, record)
    click.echo(f"Added system {name} ({_describe(record, qmgr)}).")


@system.command("alter", context_settings=CONTEXT)
@click.argument("name")
@setting_options
@click.pass_obj
def alter(app: App, name: str, log: tuple[str, ...], archive: tuple[str, ...], **options: Any) -> None:
    """Change settings of a system; the others stay as they are. The platform cannot
    change. --qmgr defines the queue manager of a z/TPF system that has none. A CPU
    model before z15 rehearses a fallback: queue compression stops, and messages
    compressed earlier are decompressed in software.

    \b
    Examples:
      mqtool system alter TPF1 --cpu z14
      mqtool system alter TPF1 --swbpool 5000 --sweephi 70 --sweeplo 30
      mqtool system alter CSQ1 --log ZHYLINK=YES --log ZHYWRITE=YES --listener '127.0.0.1(1414)'
    """
    from mqtool.commands.ztpf_mq import define_qmgr
    from mqtool.complex import defaults

    with app.store.transaction() as tx:
        record = _find(tx, name)
        values = _settings(record.platform, options)
        base = defaults(record.platform)
        for group, pairs in (("log", log), ("archive", archive)):
            known = base.get(group, {}) | dict(record.attrs.get(group, {}))
            changed = _parameters(record.platform, group, pairs, known)
            if changed:
                values[group] = dict(record.attrs.get(group, {})) | changed
        if not values:
            fail("nothing to alter: give at least one setting (see 'mqtool system alter --help')")
        before = dict(record.attrs)
        qmgr = values.pop("qmgr", None)
        existing = qmgr_name(tx, record)
        if qmgr and existing and existing != qmgr:
            fail(f"system {record.name} already has queue manager {existing}; ZMQSC DELETE QMGR removes it")
        record.attrs = record.attrs | values
        _check(record, tx.systems())
        tx.put_system(record)
        if qmgr and not existing:
            define_qmgr(tx, record, qmgr, {}, app.clock.timestamp())
        changes = _changes(before, values)
        if qmgr:
            changes.append(f"queue manager {qmgr} " + ("(already defined)" if existing else "defined"))
    message = f"Altered system {record.name}: {'; '.join(changes) or 'nothing changed'}."
    if "cpu" in values and before.get("cpu") != values["cpu"]:
        message += " zEDC accelerator: " + ("yes." if record.has_accelerator else "no (software fallback).")
    click.echo(message)


def _changes(before: dict[str, Any], values: dict[str, Any]) -> list[str]:
    """`key old -> new` for each setting that changed; the log and archive parameters
    one by one, as `log ZHYLINK NO -> YES` (not the whole group twice)."""
    changes = []
    for key, value in values.items():
        if isinstance(value, dict):
            old = dict(before.get(key) or {})
            changes += [
                f"{key} {name} {_show(old.get(name))} -> {_show(item)}"
                for name, item in value.items()
                if old.get(name) != item or name not in old
            ]
        elif before.get(key) != value or key not in before:
            changes.append(f"{key} {_show(before.get(key))} -> {_show(value)}")
    return changes


def _show(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(str(item) for item in value) or "''"
    return "''" if value in (None, "") else str(value)


@system.command("remove", context_settings=CONTEXT)
@click.argument("name")
@click.option(
    "-y",
    "--yes",
    is_flag=True,
    help="Remove without asking: for scripts (needed when standard input is not a terminal).",
)
@click.pass_obj
def remove(app: App, name: str, yes: bool) -> None:
    """Remove a system with all its objects, messages, console messages and timers,
    after asking on the terminal (--yes does not ask; without a terminal it is
    required). The last system of the complex cannot be removed. When the removed
    system was the current one, the first remaining system becomes current.

    Exit status: 0 removed, 1 the answer was no, 2 an error (nothing removed).

    \b
    Examples:
      mqtool system remove TPF2
      mqtool system remove TPF2 --yes
    """
    with app.store.transaction(write=False) as tx:
        record = _find(tx, name)
        if len(tx.systems()) == 1:
            fail(f"{record.name} is the last system of the complex and cannot be removed")
        count, depth = _holdings(tx, record.name)
    holding = f"{_plural(count, 'object')} and {_plural(depth, 'message')}"
    if not yes:
        # Asked outside any transaction: the store stays free while the operator thinks.
        if not _interactive():
            fail(f"system remove {record.name} would delete it with {holding}: give --yes to confirm")
        if not click.confirm(f"Remove system {record.name} with {holding}?", default=False, err=True):
            click.echo(f"mqtool: system {record.name} not removed", err=True)
            sys.exit(1)
    with app.store.transaction() as tx:
        record = _find(tx, name)
        systems = tx.systems()
        if len(systems) == 1:
            fail(f"{record.name} is the last system of the complex and cannot be removed")
        count, depth = _holdings(tx, record.name)
        tx.conn.execute("DELETE FROM objects WHERE system = ?", (record.name,))
        tx.delete_system(record.name)
        if tx.get_meta("current_system") == record.name:
            remaining = [s for s in systems if s.name != record.name]
            tx.set_meta("current_system", remaining[0].name)
    click.echo(f"Removed system {record.name} with {_plural(count, 'object')} and {_plural(depth, 'message')}.")


def _holdings(tx: Any, name: str) -> tuple[int, int]:
    """The objects and messages of a system (what removing it deletes)."""
    count = tx.conn.execute("SELECT count(*) FROM objects WHERE system = ?", (name,)).fetchone()[0]
    depth = tx.conn.execute("SELECT count(*) FROM messages WHERE system = ?", (name,)).fetchone()[0]
    return int(count), int(depth)


def _interactive() -> bool:
    """A person can answer: standard input is a terminal."""
    return is_terminal(sys.stdin)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


COLUMNS = (
    "name",
    "platform",
    "current",
    "cpu",
    "accelerator",
    "qmgr",
    "cpf",
    "offset",
    "listener",
    "objects",
    "messages",
)


def rows(app: App) -> list[dict[str, Any]]:
    """One record per system, for `system list` in every format."""
    out = []
    with app.store.transaction(write=False) as tx:
        current = tx.get_meta("current_system")
        for record in tx.systems():
            count = tx.conn.execute("SELECT count(*) FROM objects WHERE system = ?", (record.name,)).fetchone()[0]
            depth = tx.conn.execute(
                "SELECT coalesce(sum(depth), 0) FROM queue_figures WHERE system = ?", (record.name,)
            ).fetchone()[0]
            out.append(
                {
                    "name": record.name,
                    "platform": record.platform,
                    "current": record.name == current,
                    "cpu": record.cpu,
                    "accelerator": record.has_accelerator,
                    "qmgr": qmgr_name(tx, record) or "",
                    "cpf": str(record.attrs.get("cpf", "")),
                    "offset": str(record.attrs.get("offset", "")),
                    "listener": str(record.attrs.get("listener", "")),
                    "objects": count,
                    "messages": depth,
                    "settings": {k: v for k, v in sorted(record.attrs.items()) if k != "qmgr"},
                }
            )
    return out


# The table of `system list`; csv has COLUMNS, json every setting besides.
TABLE = (
    Column("current", "", show=lambda current: "*" if current else ""),
    Column("name", "NAME"),
    Column("platform", "TYPE", show=lambda platform: "z/TPF" if platform == "ztpf" else "z/OS"),
    Column("cpu", "CPU"),
    Column("accelerator", "ZEDC"),
    Column("qmgr", "QMGR", show=lambda text: text or "-"),
    Column("cpf", "CPF", show=lambda text: text or "-"),
    Column("listener", "LISTENER", show=lambda text: text or "-"),
    Column("objects", "OBJECTS", right=True),
    Column("messages", "MSGS", right=True),
)


@system.command("list", context_settings=CONTEXT)
@format_option()
@click.pass_obj
def list_systems(app: App, output_format: str) -> None:
    """List the systems of the complex: platform, CPU and whether it has the zEDC
    accelerator, queue manager, CPF, listener, and how many objects and messages each
    holds; `*` marks the current system. The table ends with the store's path. json
    adds every setting (the display offset among them).

    \b
    Examples:
      mqtool system list
      mqtool system list --format json | jq '.[].settings.cpu'
      mqtool system list --format csv > systems.csv
    """
    from mqtool.state.store import DB_NAME

    records = rows(app)
    emit(records, output_format, TABLE, COLUMNS)
    if output_format == "table":
        click.echo(f"Store: {(app.state_dir / DB_NAME).absolute()}")
