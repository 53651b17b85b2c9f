"""`mqtool export`: the configuration of systems as replayable commands or as a YAML
document (the shape a later `mqtool apply` reads), in the manner of dmpmqcfg."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path
from typing import Any

import click

from mqtool.cli import App, fail, find_system
from mqtool.complex import PLATFORM_NAMES

YAML_KIND = "mqtool-complex"
YAML_VERSION = 1
DIALECT_OF = {"ztpf": "ztpf_mq", "zos": "zos"}


def _commands_module(platform: str) -> Any:
    """The dialect's export module: commands(tx, system) -> list[str]."""
    name = "mqtool.commands.ztpf_mq.export" if platform == "ztpf" else "mqtool.commands.zos.export"
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if exc.name not in (name, name.rsplit(".", 1)[0]):
            raise
        return None


def _system_commands(tx: Any, system: Any, all_attributes: bool) -> list[str]:
    module = _commands_module(system.platform)
    if module is None or not hasattr(module, "commands"):
        fail(
            f"system {system.name}: this mqtool cannot write z/OS definitions as commands yet "
            "(mqtool.commands.zos.export is missing); use --format yaml"
        )
    if "all_attributes" in inspect.signature(module.commands).parameters:
        lines: list[str] = module.commands(tx, system, all_attributes=all_attributes)
        return lines
    lines = module.commands(tx, system)
    if all_attributes:
        lines.insert(
            0, f"* -a: the {PLATFORM_NAMES[system.platform]} export writes only what differs from a new system."
        )
    return lines


def commands_text(app: App, names: list[str], all_attributes: bool, several: bool) -> str:
    """The command file: a comment header per system saying how to replay it, then the
    commands; with several systems a `.system NAME` directive before each block."""
    from mqtool import __version__
    from mqtool.cli_system import add_command_line, qmgr_name

    out = [f"* Written by mqtool {__version__} (mqtool export --format commands); replay with mqtool run FILE."]
    with app.store.transaction(write=False) as tx:
        for name in names:
            system = tx.get_system(name)
            assert system is not None
            lines = _system_commands(tx, system, all_attributes)
            qmgr = qmgr_name(tx, system)
            out.append("*")
            out.append(f"* System {system.name}: {PLATFORM_NAMES[system.platform]}, CPU {system.cpu}.")
            out.append("* Its settings and queue manager, when the system does not exist yet:")
            out.append(f"*   {add_command_line(system, qmgr)}")
            if system.platform == "ztpf" and not qmgr:
                out.append("* The system has no queue manager, so it has no definitions.")
            elif system.platform == "ztpf":
                out.append("* Replay into a z/TPF system whose queue manager has no other definitions yet.")
            if several:
                out.append(f".system {system.name}")
            out.extend(lines)
    return "\n".join(out) + "\n"


def describe(app: App, names: list[str], all_attributes: bool) -> dict[str, Any]:
    """The YAML document: each system's platform, settings (all of them) and objects
    (type -> name -> attributes; only those that differ from the DEFINE defaults, plus
    the inherited ones, unless `all_attributes`)."""
    from mqtool import tables
    from mqtool.cli_system import qmgr_name
    from mqtool.commands.ztpf_mq.export import attributes

    systems: dict[str, Any] = {}
    with app.store.transaction(write=False) as tx:
        for name in names:
            system = tx.get_system(name)
            assert system is not None
            table = tables.load(DIALECT_OF[system.platform])
            settings = {key: value for key, value in system.attrs.items() if key != "qmgr"}
            qmgr = qmgr_name(tx, system)
            if system.platform == "ztpf" and qmgr:
                settings["qmgr"] = qmgr
            objects: dict[str, dict[str, Any]] = {}
            for record in tx.objects(system.name):
                base = table.defaults(record.type) if record.type in table.objects else {}
                objects.setdefault(record.type, {})[record.name] = attributes(table, record, base, all_attributes)
            systems[system.name] = {"platform": system.platform, "settings": settings, "objects": objects}
    return {"kind": YAML_KIND, "version": YAML_VERSION, "systems": systems}


def yaml_text(document: dict[str, Any]) -> str:
    import yaml

    head = (
        "# mqtool complex: systems with their settings and definitions (mqtool export --format yaml).\n"
        "# Attributes left out take their DEFINE defaults.\n"
    )
    body: str = yaml.safe_dump(document, sort_keys=True, default_flow_style=False, allow_unicode=True, width=1000)
    return head + body


@click.command("export", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["commands", "yaml"], case_sensitive=False),
    default="commands",
    show_default=True,
    help="commands: a command file that `mqtool run` replays; yaml: a document of systems and objects.",
)
@click.option("--system", "system_name", metavar="NAME", help="The system to export [the current system].")
@click.option("--all", "all_systems", is_flag=True, help="Export every system of the complex.")
@click.option(
    "-a",
    "--all-attributes",
    is_flag=True,
    help="Write every attribute, not only those that differ from the defaults (like dmpmqcfg -a).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True, allow_dash=True, path_type=Path),
    default="-",
    help="Write to this file instead of standard output.",
)
@click.pass_obj
def export(
    app: App, output_format: str, system_name: str | None, all_systems: bool, all_attributes: bool, output: Path
) -> None:
    """Write the configuration of a system (or of all) like dmpmqcfg.

    The commands format is a command file in replay order: for z/TPF ALTER QMGR and
    the changed system queues, then local queues, remote definitions, aliases and
    channels; z/OS commands carry the system's CPF. The queue manager comes with the
    system, as dmpmqcfg assumes: replay into a system whose queue manager has no other
    definitions yet (a new store, or `mqtool system add NAME --platform ztpf --qmgr
    QM`); the header comments give that `mqtool system add` line. With --all each
    block starts with `.system NAME`. Values that need it are quoted. The output holds
    no time stamp, so two exports of the same configuration are identical.

    The yaml format describes the complex: for each system its platform, every setting,
    and its objects (type, name, attributes). Attributes equal to their default are
    left out unless -a; inherited ones (COMPSIZE and MAXMSGL of a queue, BATCHSZ and
    MAXMSGL of a channel, copied from the queue manager at DEFINE) are always written.
    Keys are sorted, so the text is stable:

    \b
      kind: mqtool-complex
      version: 1
      systems:
        TPF1:
          platform: ztpf
          settings: {cpu: z15, qmgr: TPFQM, swbpool: 33000, ...}
          objects:
            QL:
              PAYQ: {COMPSIZE: 16000, MAXMSGL: 4194304, USAGE: XMITQ}

    \b
    Examples:
      mqtool export > tpf1.mqsc
      mqtool system add LAB --platform ztpf --qmgr TPFQM && mqtool --system LAB run tpf1.mqsc
      mqtool export --format yaml --all -o complex.yaml
      mqtool export --system CSQ1 -a
    """
    if all_systems and system_name:
        fail("--all and --system exclude each other")
    with app.store.transaction(write=False) as tx:
        known = tx.systems()
    if all_systems:
        names = [s.name for s in known]
    else:
        wanted = system_name or app.system
        if wanted is None:
            current = app.session().current_system()
            names = [current.name] if current is not None else []
        else:
            names = [find_system(known, wanted).name]
    if output_format.lower() == "yaml":
        text = yaml_text(describe(app, names, all_attributes))
    else:
        text = commands_text(app, names, all_attributes, several=all_systems)
    if str(output) == "-":
        click.echo(text, nl=False)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        fail(f"cannot write {output}: {exc.strerror}")
