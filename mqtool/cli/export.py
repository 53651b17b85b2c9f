"""`mqtool export`: the configuration of systems as replayable commands, one line per
object, or a YAML or JSON document (the shape `mqtool apply` reads), in the manner of
dmpmqcfg: `-t` and `-n` pick object types and (generic) names, and the header names
the command that wrote it."""

from __future__ import annotations

import importlib
import json
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from mqtool.cli.main import App, fail, find_system
from mqtool.complex import PLATFORM_NAMES
from mqtool.definitions import ExportLine, one_line_per_object

YAML_KIND = "mqtool-complex"
YAML_VERSION = 1
DIALECT_OF = {"ztpf": "ztpf_mq", "zos": "zos"}
FORMATS = ("commands", "1line", "yaml", "json")
# Words -t takes on every platform besides the dialects' own object types.
QUEUES = "QUEUE"
QUEUE_WORDS = ("QUEUE", "Q")
CHANNEL_WORDS = ("CHANNEL", "CHL")
MQID_WORDS = ("MQID", "ZMQID")  # z/TPF: the entries of the MQI channel directory


@dataclass
class Selection:
    """What to export: the systems, and the object types and name patterns of -t / -n."""

    names: list[str]
    types: tuple[str, ...] = ()  # as given; resolved per platform by store_types
    patterns: tuple[str, ...] = ()
    all_attributes: bool = False
    command: str = ""  # the export command, for the header
    left_out: list[str] = field(default_factory=list)  # systems of the complex this export does not hold
    current: bool = False  # the system was chosen as the current one, not named
    _resolved: dict[str, set[str] | None] = field(default_factory=dict)

    def store_types(self, platform: str) -> set[str] | None:
        """The object types (as stored) that -t selects on a platform; None for all."""
        if platform not in self._resolved:
            if not self.types or "ALL" in (t.upper() for t in self.types):
                self._resolved[platform] = None
            else:
                self._resolved[platform] = {t for word in self.types for t in object_types(platform, word)}
        return self._resolved[platform]

    def wants(self, platform: str, type_: str | None, name: str | None) -> bool:
        if type_ is None:  # a comment line: kept while nothing is filtered
            return not self.types and not self.patterns
        types = self.store_types(platform)
        if types is not None and type_ not in types:
            return False
        return not self.patterns or any(matches(name or "", pattern) for pattern in self.patterns)


def matches(name: str, pattern: str) -> bool:
    """A name against a -n pattern: a trailing * is generic, as in MQSC."""
    return name.startswith(pattern[:-1]) if pattern.endswith("*") else name == pattern


def object_types(platform: str, word: str) -> tuple[str, ...]:
    """The stored object types a -t word means on a platform (none when it means none
    there): a dialect object word or abbreviation (QL, QLOCAL, STGCLASS, CHL ...),
    QUEUE for every queue type, CHANNEL, QMGR."""
    from mqtool import tables

    upper = word.strip().upper()
    table = tables.load(DIALECT_OF[platform])
    definable = {o for verb in ("DEFINE", "ALTER") for o in table.verbs[verb].objects}
    if platform == "ztpf":
        if upper in QUEUE_WORDS:
            return ("QL", "QA", "QR")
        if upper in CHANNEL_WORDS:
            return ("CHL",)
        if upper in MQID_WORDS:
            return ("CHANNEL",)
    spec = table.object(upper)
    if spec is None:
        return ()
    if platform == "zos":
        if spec.name == "CHLAUTH":
            return ("CHLAUTH",)  # SET CHLAUTH lines; the chlauth list of YAML and JSON
        stored = tuple(table.raw["objects"][spec.name].get("store") or (spec.name,))
        return stored if spec.name == QUEUES or spec.name in definable else ()
    return (spec.name,) if spec.name in definable else ()


def _export_module(platform: str) -> Any:
    """The dialect's export module: lines(tx, system, all_attributes) -> [ExportLine]."""
    name = "mqtool.commands.ztpf_mq.export" if platform == "ztpf" else "mqtool.commands.zos.export"
    try:
        return importlib.import_module(name)
    except ImportError as exc:
        if exc.name not in (name, name.rsplit(".", 1)[0]):
            raise
        return None


def _system_lines(tx: Any, system: Any, selection: Selection) -> list[ExportLine]:
    module = _export_module(system.platform)
    if module is None or not hasattr(module, "lines"):
        fail(
            f"system {system.name}: this mqtool cannot write {PLATFORM_NAMES[system.platform]} definitions as "
            f"commands yet ({'mqtool.commands.zos.export' if system.platform == 'zos' else 'its export'} is "
            "missing); use --format yaml"
        )
    found: list[ExportLine] = module.lines(tx, system, all_attributes=selection.all_attributes)
    return [line for line in found if selection.wants(system.platform, line.type, line.name)]


def commands_text(app: App, selection: Selection, one_line: bool = False) -> str:
    """The command file: a comment header per system saying how to replay it, then the
    commands; with several systems a `.system NAME` directive before each block. With
    `one_line`, one line per object (its later lines joined to its first) under a
    one-line header per system, for grep and diff."""
    from mqtool import __version__
    from mqtool.cli.system import qmgr_name
    from mqtool.complex import add_command_line

    several = len(selection.names) > 1
    if one_line:
        out = [f"* Written by mqtool {__version__} ({selection.command}): one object per line."]
    else:
        out = [f"* Written by mqtool {__version__} ({selection.command}); replay with mqtool run FILE."]
    out += [f"* {line}" for line in holds(selection)]
    with app.store.transaction(write=False) as tx:
        for name in selection.names:
            system = tx.get_system(name)
            assert system is not None
            lines = _system_lines(tx, system, selection)
            header = f"* System {system.name}: {PLATFORM_NAMES[system.platform]}, CPU {system.cpu}."
            if one_line:
                out.append(header)
            else:
                qmgr = qmgr_name(tx, system)
                out.append("*")
                out.append(header)
                out.append("* Its settings and queue manager, when the system does not exist yet:")
                out.append(f"*   {add_command_line(system, qmgr)}")
                if system.platform == "ztpf" and not qmgr:
                    out.append("* The system has no queue manager, so it has no definitions.")
                elif system.platform == "ztpf":
                    out.append("* Replay into a z/TPF system whose queue manager has no other definitions yet.")
            if several:
                out.append(f".system {system.name}")
            out.extend(line.text for line in (one_line_per_object(lines) if one_line else lines))
    return "\n".join(out) + "\n"


def holds(selection: Selection) -> list[str]:
    """The header lines that say plainly which systems the export holds, and which of the
    complex it leaves out (dmpmqcfg writes one queue manager; mqtool's complex may hold
    several)."""
    names = ", ".join(selection.names) or "none"
    if not selection.left_out:
        return [f"Systems: {names}, the whole complex."] if len(selection.names) > 1 else []
    which = " (the current system)" if selection.current else ""
    return [
        f"Systems: {names}{which} only. Not in this file: {', '.join(selection.left_out)}; "
        "mqtool export --all writes the whole complex."
    ]


def describe(app: App, selection: Selection) -> dict[str, Any]:
    """The YAML (or JSON) document: each system's platform, settings (all of them) and
    objects (type -> name -> attributes; only those that differ from the DEFINE
    defaults, plus the inherited ones, unless `all_attributes`)."""
    from mqtool import tables
    from mqtool.apply.schema import MORE_TABLES
    from mqtool.cli.system import qmgr_name
    from mqtool.commands.ztpf_mq.export import attributes
    from mqtool.engine.core.subscriptions import is_runtime

    systems: dict[str, Any] = {}
    with app.store.transaction(write=False) as tx:
        for name in selection.names:
            system = tx.get_system(name)
            assert system is not None
            table = tables.load(DIALECT_OF[system.platform])
            more = [tables.load(name) for name in MORE_TABLES.get(system.platform, ())]
            settings = {key: value for key, value in system.attrs.items() if key != "qmgr"}
            qmgr = qmgr_name(tx, system)
            if system.platform == "ztpf" and qmgr:
                settings["qmgr"] = qmgr
            objects: dict[str, dict[str, Any]] = {}
            for record in tx.objects(system.name):
                # Definitions only: run-time records such as a started HTTP server's
                # options in force are not objects of the dialect (its files configure it),
                # nor are applications' subscriptions and managed subscription queues, nor
                # rows of a type no table has (POLICY rows an unreleased build stored).
                owner = next((t for t in (table, *more) if record.type in t.objects), None)
                if owner is None or not selection.wants(system.platform, record.type, record.name):
                    continue
                if is_runtime(record):
                    continue
                base = owner.defaults(record.type)
                if system.platform == "ztpf" and record.type == "CHL":
                    base["CPU"] = str(system.attrs.get("processor", "B")).upper()
                found = attributes(owner, record, base, selection.all_attributes)
                objects.setdefault(record.type, {})[record.name] = found
            systems[system.name] = {"platform": system.platform, "settings": settings, "objects": objects}
            if system.platform == "zos":
                found_records = _chlauth_records(tx, system, selection)
                if found_records is not None:
                    systems[system.name]["chlauth"] = found_records
    return {"kind": YAML_KIND, "version": YAML_VERSION, "systems": systems}


def _chlauth_records(tx: Any, system: Any, selection: Selection) -> list[dict[str, Any]] | None:
    """A z/OS system's channel authentication records for the document, all of them, when
    they are not just the back-stop records a new queue manager has (or with
    --all-attributes); None when the document need not say (or -t/-n leave them out)."""
    from mqtool.commands.zos.chlauth import records, to_document
    from mqtool.engine.security.chlauth import backstop

    have = records(tx, system)
    if not selection.all_attributes and sorted(have, key=lambda r: r.key()) == sorted(
        backstop(), key=lambda r: r.key()
    ):
        return None
    chosen = [record for record in have if selection.wants("zos", "CHLAUTH", record.profile)]
    if not chosen and (selection.types or selection.patterns):
        return None
    return [to_document(record) for record in chosen]


def yaml_text(
    document: dict[str, Any], command: str = "mqtool export --format yaml", selection: Selection | None = None
) -> str:
    import yaml

    head = (
        f"# mqtool complex: systems with their settings and definitions ({command}).\n"
        "# Attributes left out take their DEFINE defaults; mqtool apply makes a store match it.\n"
    )
    if selection is not None and selection.left_out:
        head += "".join(f"# {line}\n" for line in holds(selection))
    body: str = yaml.safe_dump(document, sort_keys=True, default_flow_style=False, allow_unicode=True, width=1000)
    return head + body


def json_text(document: dict[str, Any], command: str) -> str:
    """The document as JSON, sorted like the YAML; `generated` names the command."""
    return json.dumps({"generated": command, **document}, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def command_line(
    output_format: str,
    names: list[str],
    all_systems: bool,
    all_attributes: bool,
    types: tuple[str, ...],
    patterns: tuple[str, ...],
) -> str:
    """The export command in a canonical form for the header: the same options give the
    same text, whatever their order or spelling on the command line."""
    words = ["mqtool", "export", "--format", output_format]
    words += ["--all"] if all_systems else [w for name in names for w in ("--system", name)]
    if all_attributes:
        words.append("-a")
    words += [w for t in types for w in ("-t", t.upper())]
    words += [w for n in patterns for w in ("-n", n)]
    return " ".join(shlex.quote(word) for word in words)


@click.command("export", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.option(
    "--format",
    "output_format",
    type=click.Choice(FORMATS, case_sensitive=False),
    default="commands",
    show_default=True,
    help="commands: a command file that `mqtool run` replays; 1line: one object per line; yaml or json: a "
    "document of systems and objects that `mqtool apply` reads.",
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
    "-t",
    "--type",
    "types",
    multiple=True,
    metavar="TYPE",
    help="Only objects of this type: QMGR, QUEUE, CHANNEL, or a dialect's object type (QL, QLOCAL, STGCLASS ...); "
    "repeat it for more.",
)
@click.option(
    "-n",
    "--name",
    "patterns",
    multiple=True,
    metavar="NAME",
    help="Only objects of this name; a trailing * is generic (PAY*); repeat it for more.",
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
    app: App,
    output_format: str,
    system_name: str | None,
    all_systems: bool,
    all_attributes: bool,
    types: tuple[str, ...],
    patterns: tuple[str, ...],
    output: Path,
) -> None:
    """Write the configuration of a system (or of all) like dmpmqcfg.

    Without --system or --all this is the current system, as dmpmqcfg writes the
    default queue manager; the header says which systems the file holds and which it
    leaves out, and a line on standard error says so when other systems exist.

    The commands format is a command file in replay order: for z/TPF ALTER QMGR and
    the changed system queues, then local queues, remote definitions, aliases and
    channels; z/OS commands carry the system's CPF. The queue manager comes with the
    system, as dmpmqcfg assumes: replay into a system whose queue manager has no other
    definitions yet (a new store, or `mqtool system add NAME --platform ztpf --qmgr
    QM`); the header comments give that `mqtool system add` line. With --all each
    block starts with `.system NAME`. Values that need it are quoted. The first line
    names the export command (in a canonical form); the output holds no time stamp, so
    two exports of the same configuration are identical.

    The 1line format writes each object on one line (as dmpmqcfg -o 1line), for grep
    and diff: the commands of an object joined into one.

    The yaml format describes the complex: for each system its platform, every setting,
    and its objects (type, name, attributes). Attributes equal to their default are
    left out unless -a; inherited ones (COMPSIZE and MAXMSGL of a queue, BATCHSZ and
    MAXMSGL of a channel, copied from the queue manager at DEFINE) are always written.
    Keys are sorted, so the text is stable; `mqtool apply` makes a store match it.
    The json format is the same document as JSON, with `generated` naming the command:

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

    -t and -n keep only the objects of those types and names (in every format).

    \b
    Examples:
      mqtool export > tpf1.mqsc
      mqtool system add LAB --platform ztpf --qmgr TPFQM && mqtool --system LAB run tpf1.mqsc
      mqtool export --format yaml --all -o complex.yaml
      mqtool export --system CSQ1 -a
      mqtool export --format 1line --all -t QUEUE -n 'PAY*' | grep MAXDEPTH
    """
    if all_systems and system_name:
        fail("--all and --system exclude each other")
    with app.store.transaction(write=False) as tx:
        known = tx.systems()
    wanted = system_name or app.system
    if all_systems:
        names = [s.name for s in known]
    elif wanted is None:
        current = app.session().current_system()
        names = [current.name] if current is not None else []
    else:
        names = [find_system(known, wanted).name]
    platforms = {s.platform for s in known if s.name in names}
    for word in types:
        if word.upper() != "ALL" and not any(object_types(p, word) for p in platforms):
            fail(f"-t {word}: not an object type of the systems exported; types: QMGR, QUEUE, CHANNEL, ALL, or a "
                 "dialect's object type such as QL, QLOCAL, STGCLASS")  # fmt: skip
    output_format = output_format.lower()
    command = command_line(output_format, names, all_systems, all_attributes, types, patterns)
    left_out = [s.name for s in known if s.name not in names]
    selection = Selection(names, types, patterns, all_attributes, command, left_out, current=wanted is None)
    if output_format == "yaml":
        text = yaml_text(describe(app, selection), command, selection)
    elif output_format == "json":
        text = json_text(describe(app, selection), command)
    else:
        text = commands_text(app, selection, one_line=output_format == "1line")
    if str(output) == "-":
        click.echo(text, nl=False)
    else:
        try:
            output.write_text(text, encoding="utf-8")
        except OSError as exc:
            fail(f"cannot write {output}: {exc.strerror}")
    if left_out and wanted is None:
        # Chosen for the user, not by them: say so where a redirected export still shows it.
        click.echo(
            f"mqtool: exported {', '.join(names)} (the current system) only; the complex also has "
            f"{', '.join(left_out)} (mqtool export --all writes every system)",
            err=True,
        )
