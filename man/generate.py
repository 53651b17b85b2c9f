"""Generates the parts of the man pages that come from the code: section-1 pages from
the click help plus the hand-written prose of man/extra/, the keyword reference of each
dialect from its YAML table, and mqtool-messages(7) from the message catalogue.

    python man/generate.py          # rewrite what is out of date
    python man/generate.py --check  # exit 1 when a page is out of date (a test runs this)
    python man/generate.py mqtool-run.1 mqtool-ztpf.7   # only these pages

A section-1 page is NAME, SYNOPSIS, DESCRIPTION (the command's help), OPTIONS, COMMANDS
(of a group), EXIT STATUS (from an "Exit status:" paragraph of the help, unless the extra
file has its own), the sections of man/extra/PAGE.troff in their order, EXAMPLES (the
help's "Examples:" block, then the extra file's EXAMPLES section) and SEE ALSO (the extra
file's, or a default list). In an extra file a line `.\\" INSERT NAME` is replaced by
generated text: `directives` (the registry of mqtool/directives.py), `summary` (the
wording of a run summary, from mqtool/cli/runner.py).
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import click

from mqtool import __version__, tables
from mqtool.messages import CATALOGUE, ECHO

MAN = Path(__file__).resolve().parent
EXTRA = MAN / "extra"
DATE = "2026-11"
BEGIN = '.\\" BEGIN GENERATED KEYWORDS'
END = '.\\" END GENERATED KEYWORDS'
INSERT = '.\\" INSERT '
DIALECT_PAGES = {
    "ztpf_mq": "mqtool-ztpf.7",
    "zos": "mqtool-zos.7",
    "ztpf_http": "mqtool-http.7",
    "ztpf_mqid": "mqtool-ztpf.7",
}
# A second dialect on a page has markers (and a heading) of its own.
MARKERS = {"ztpf_mqid": ('.\\" BEGIN GENERATED ZMQID KEYWORDS', '.\\" END GENERATED ZMQID KEYWORDS')}
HEADINGS = {"ztpf_mqid": '"ZMQID KEYWORD REFERENCE"'}
DIALECT_TITLES = {
    "ztpf_mqid": "the z/TPF MQI channel directory (ZMQID)",
    "ztpf_mq": "z/TPF MQ (ZMQSC)",
    "zos": "IBM MQ for z/OS (MQSC)",
    "ztpf_http": "z/TPF HTTP server (ZHTPS)",
}
# Hand-written pages with nothing generated in them; a test of their own checks each
# (mqtool-rest.7: tests/test_rest_cli.py, against the REST API's ids, roles and headers;
# mqtool-wire.7: tests/test_tcp_wire.py, against the wire format's constants).
HAND_WRITTEN = ("mqtool-rest.7", "mqtool-wire.7")
SECTION_SEVEN = ("mqtool-ztpf(7)", "mqtool-zos(7)", "mqtool-http(7)", "mqtool-messages(7)")
# Message id prefixes -> the heading they are listed under in mqtool-messages(7).
MESSAGE_GROUPS = (
    ("MQT", "mqtool itself (directives, the engine from the command line)"),
    ("CSMP", "z/TPF console"),
    ("MQSC", "z/TPF MQ (ZMQSC and its engine)"),
    ("MQID", "z/TPF MQI channel directory (ZMQID)"),
    ("HTTPS", "z/TPF HTTP server (ZHTPS)"),
    ("CSQ", "IBM MQ for z/OS (MQSC)"),
    ("MQWB", "IBM MQ REST API (mqweb), in the error JSON of the REST API stand-in"),
)
_OPTION_NAMES = re.compile(r"^(-[^\s,/]+(?:(?:, | / )-[^\s,/]+)*)(.*)$")
_CODE = re.compile(r"`([^`]+)`")


def esc(text: str) -> str:
    """Escapes text for troff: backslashes, dashes, and a leading dot or quote."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    if out.startswith((".", "'")):
        out = "\\&" + out
    return out


def prose(text: str) -> str:
    """Help text to troff: escaped, with `code` in bold."""
    return _CODE.sub(lambda m: "\\fB" + m.group(1) + "\\fR", esc(text))


def fill_line(text: str) -> str:
    """A line of a no-fill block: escaped, and kept from reading as a request."""
    return esc(text) if text.strip() else ""


def sentence(text: str) -> str:
    """A table's help text as a sentence: capital first letter, final period."""
    text = text[:1].upper() + text[1:]
    return text if text.endswith(".") else text + "."


def man_ref(page: str) -> str:
    """`mqtool-run(1)` as troff: the name in bold, the section plain."""
    name, _, section = page.partition("(")
    return f"\\fB{esc(name)}\\fR({section}"


# -- click help -------------------------------------------------------------------------
class Help:
    """A command's help split the way a man page wants it."""

    def __init__(self, text: str | None) -> None:
        self.description: list[str] = []
        self.exit_status: list[str] = []
        self.examples: list[str] = []
        for block in inspect.cleandoc(text or "").split("\n\n"):
            raw = block.strip("\n")
            if not raw:
                continue
            if raw.startswith("\b"):
                lines = raw.split("\n")[1:]
                if lines and lines[0].strip() == "Examples:":
                    self.examples += [line.strip() for line in lines[1:] if line.strip()]
                else:
                    self.description += [".PP", ".nf", *(fill_line(line) for line in lines), ".fi"]
                continue
            joined = " ".join(part.strip() for part in raw.split("\n"))
            if joined.startswith("Exit status:"):
                self.exit_status = [".PP", prose(joined[len("Exit status:") :].strip())]
            else:
                self.description += [".PP", prose(joined)]


def option_entry(record: tuple[str, str]) -> list[str]:
    """A click help record as a tagged paragraph: option names bold, the metavar italic."""
    names, help_text = record
    match = _OPTION_NAMES.match(names)
    if match is None:
        tag = f".B {esc(names)}"
    else:
        parts = re.split(r"(, | / )", match.group(1))
        tag = "".join(part if part in (", ", " / ") else f"\\fB{esc(part)}\\fR" for part in parts)
        if match.group(2).strip():
            tag += " \\fI" + esc(match.group(2).strip()) + "\\fR"
    return [".TP", tag, prose(help_text)]


def synopsis(path: list[str], command: click.Command, ctx: click.Context) -> list[str]:
    pieces = " ".join(command.collect_usage_pieces(ctx))
    # Metavars (OPTIONS, FILES..., COMMAND [ARGS]...) in italics, brackets and dots plain.
    usage = re.sub(r"[A-Z][A-Z_]+", lambda m: "\\fI" + m.group(0) + "\\fR", esc(pieces))
    return [f".B {' '.join(path)}", usage]


def context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    return click.Context(command, info_name=name, parent=parent, **(command.context_settings or {}))


def short_description(path: list[str], command: click.Command) -> str:
    """The NAME line's description: the package summary for mqtool, SHORT_HELP for a
    subcommand, in the lower case that whatis(1) lines use, without a final period."""
    from mqtool.cli.main import SHORT_HELP

    if len(path) == 1:
        try:
            text = metadata.metadata("mqtool")["Summary"]
        except metadata.PackageNotFoundError:
            text = command.get_short_help_str(limit=200)
    else:
        text = SHORT_HELP.get(path[-1]) or command.get_short_help_str(limit=200)
    text = text.rstrip(".")
    if text[:1].isupper() and not text[1:2].isupper():
        text = text[0].lower() + text[1:]
    return prose(text)


# -- extra prose ------------------------------------------------------------------------
Section = tuple[str, list[str]]


def section_title(line: str) -> str:
    return line[len(".SH") :].strip().strip('"')


def read_extra(page: str, inserts: dict[str, Callable[[], list[str]]]) -> list[Section]:
    """The sections of man/extra/PAGE.troff, with INSERT lines expanded. Text before the
    first .SH may only be comments."""
    path = EXTRA / f"{page}.troff"
    if not path.exists():
        return []
    sections: list[Section] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith(".SH"):
            sections.append((section_title(line), []))
        elif line.startswith(INSERT):
            name = line[len(INSERT) :].strip()
            if name not in inserts:
                raise SystemExit(f"{path}:{number}: unknown INSERT {name!r}; known: {', '.join(sorted(inserts))}")
            if not sections:
                raise SystemExit(f"{path}:{number}: INSERT before the first .SH")
            sections[-1][1].extend(inserts[name]())
        elif sections:
            sections[-1][1].append(line)
        elif line.strip() and not line.startswith('.\\"'):
            raise SystemExit(f"{path}:{number}: text before the first .SH")
    return sections


def directives_block() -> list[str]:
    """Every directive of the registry with its usage, help and options."""
    from mqtool.directives import DIRECTIVES

    out: list[str] = []
    for spec in DIRECTIVES.values():
        out += [".TP", f"\\fB{esc(spec.usage)}\\fR", prose(sentence(spec.help))]
        if spec.options:
            out[-1] += " Options: " + ", ".join(f"\\fB{esc(option)}=\\fR" for option in spec.options) + "."
    return out


def summary_block() -> list[str]:
    """The three summary lines of a run, in each of their wordings (none, one, several)."""
    from mqtool.cli.runner import Summary

    out = [".PP", ".RS", ".nf"]
    for read, syntax, failed in ((0, 0, 0), (1, 1, 1), (5, 2, 3)):
        out += [fill_line(line) for line in Summary(read, syntax, failed).lines()]
        out.append("")
    out[-1:] = [".fi", ".RE"]
    return out


INSERTS: dict[str, Callable[[], list[str]]] = {"directives": directives_block, "summary": summary_block}


# -- section 1 ----------------------------------------------------------------------------
def see_also_default(path: list[str], subcommands: list[str]) -> list[str]:
    refs = [f"mqtool-{name}(1)" for name in subcommands] if len(path) == 1 else ["mqtool(1)"]
    refs += SECTION_SEVEN
    return [",\n".join(man_ref(ref) for ref in refs)]


def subcommand_section(path: list[str], group: click.Group, ctx: click.Context) -> list[str]:
    """The subcommands of a nested group, one subsection each."""
    out = [".SH COMMANDS"]
    for sub_name in group.list_commands(ctx):
        sub = group.get_command(ctx, sub_name)
        if sub is None:
            continue
        sub_ctx = context(sub, sub_name, ctx)
        help_ = Help(sub.help)
        heading = " ".join([*path, sub_name])
        out += [f'.SS "{esc(heading)}"', *synopsis([*path, sub_name], sub, sub_ctx), ".br"]
        out += help_.description + help_.exit_status
        for param in _options(sub, sub_ctx):
            record = param.get_help_record(sub_ctx)
            # --help of each subcommand would repeat itself; the group's OPTIONS has it.
            if record is not None and "--help" not in param.opts:
                out += option_entry(record)
        if help_.examples:
            out += [".PP", "Examples:", ".RS", ".nf", *(fill_line(line) for line in help_.examples), ".fi", ".RE"]
    return out


def _options(command: click.Command, ctx: click.Context) -> list[click.Parameter]:
    """The options of a command; arguments are in the synopsis (and click versions
    differ on whether arguments have help records, which would make pages unstable)."""
    return [param for param in command.get_params(ctx) if isinstance(param, click.Option)]


def command_page(path: list[str], command: click.Command, parent: click.Context | None) -> str:
    from mqtool.cli.main import SHORT_HELP

    name = "-".join(path)
    ctx = context(command, path[-1], parent)
    help_ = Help(command.help)
    extra = read_extra(f"{name}.1", INSERTS)
    titles = {title for title, _ in extra}
    out = [
        f'.TH {name.upper()} 1 "{DATE}" "mqtool {__version__}" "mqtool manual"',
        '.\\" Generated by man/generate.py from the click help and man/extra/' + name + ".1.troff; do not edit.",
        ".nh",
        ".ad l",
        ".SH NAME",
        f"{esc(name)} \\- {short_description(path, command)}",
        ".SH SYNOPSIS",
        *synopsis(path, command, ctx),
        ".SH DESCRIPTION",
        *help_.description,
    ]
    records = [r for r in (p.get_help_record(ctx) for p in _options(command, ctx)) if r is not None]
    if records:
        out.append(".SH OPTIONS")
        for record in records:
            out += option_entry(record)
    subcommands: list[str] = []
    if isinstance(command, click.Group) and parent is None:
        subcommands = command.list_commands(ctx)
        out.append(".SH COMMANDS")
        for sub_name in subcommands:
            text = SHORT_HELP.get(sub_name, "")
            out += [".TP", f"\\fBmqtool {esc(sub_name)}\\fR", prose(text) + f" See {man_ref(f'mqtool-{sub_name}(1)')}."]
    elif isinstance(command, click.Group):
        out += subcommand_section(path, command, ctx)
    if help_.exit_status and "EXIT STATUS" not in titles:
        out += [".SH EXIT STATUS", *help_.exit_status]
    examples: list[str] = []
    if help_.examples:
        examples = [".PP", ".nf", *(fill_line(line) for line in help_.examples), ".fi"]
    see_also = see_also_default(path, subcommands)
    for title, lines in extra:
        if title == "EXAMPLES":
            if examples and lines and not lines[0].startswith("."):
                examples.append(".PP")
            examples += lines
        elif title == "SEE ALSO":
            see_also = lines
        else:
            out += [f'.SH "{title}"' if " " in title else f".SH {title}", *lines]
    if examples:
        out += [".SH EXAMPLES", *examples]
    out += ['.SH "SEE ALSO"', *see_also]
    return "\n".join(out) + "\n"


def section_one() -> dict[str, str]:
    from mqtool.cli.main import main_group

    pages = {}
    root = context(main_group, "mqtool", None)
    pages["mqtool.1"] = command_page(["mqtool"], main_group, None)
    for name in main_group.list_commands(root):
        command = main_group.get_command(root, name)
        if command is not None:
            pages[f"mqtool-{name}.1"] = command_page(["mqtool", name], command, root)
    return pages


# -- section 7 ----------------------------------------------------------------------------
def keyword_block(dialect: str) -> str:
    table = tables.load(dialect)
    # MQSC has no command word of its own: its verbs stand first (after an optional CPF).
    prefix = f"{table.command} " if table.command else ""
    begin, end = MARKERS.get(dialect, (BEGIN, END))
    heading = HEADINGS.get(dialect, "KEYWORD REFERENCE")
    out = [begin, f".SH {heading}", f"Generated from the keyword table of {DIALECT_TITLES[dialect]}."]
    out.append(".SS Verbs")
    for verb in table.verbs.values():
        also = f" ({', '.join(verb.abbrev)})" if verb.abbrev else ""
        objects = f" Objects: {', '.join(verb.objects)}." if verb.objects else ""
        out += [".TP", f".B {esc(prefix + verb.name + also)}", esc(sentence(verb.help) + objects)]
    for obj in table.objects.values():
        also = f" (also {', '.join(obj.aliases)})" if obj.aliases else ""
        out += [f'.SS "{esc(obj.name + also)}"', esc(sentence(obj.help))]
        for spec in obj.keywords.values():
            details = [spec.describe_values()]
            if spec.default is not None and spec.type != "flag":
                default = ",".join(spec.default) if isinstance(spec.default, list) else spec.default
                details.append(f"default {default}" if str(default) != "" else "default blank")
            if spec.required:
                details.append("required at DEFINE")
            if spec.alter_same:
                details.append("ALTER takes only the current value")
            elif not spec.alterable:
                details.append("cannot be altered")
            if spec.abbrev:
                details.append("abbreviation " + ", ".join(spec.abbrev))
            if spec.shown_only:
                details.append("stored and shown only")
            details.append("verbs " + ", ".join(spec.verbs) if spec.verbs else "shown by DISPLAY, set by no command")
            text = sentence(spec.help).removesuffix(".")
            out += [".TP", f".B {esc(spec.name)}", esc(f"{text} ({'; '.join(str(d) for d in details)}).")]
    out.append(end)
    return "\n".join(out)


def fill_keywords(page: str, dialect: str) -> str:
    begin, end = MARKERS.get(dialect, (BEGIN, END))
    if begin not in page or end not in page:
        raise SystemExit(f"{DIALECT_PAGES[dialect]}: the generated-keywords markers of {dialect} are missing")
    head, _, rest = page.partition(begin)
    _, _, tail = rest.partition(end)
    return head + keyword_block(dialect) + tail


def message_group(msg_id: str) -> str:
    for prefix, title in MESSAGE_GROUPS:
        if msg_id.startswith(prefix):
            return title
    return "other"


def messages_page() -> str:
    out = [
        f'.TH MQTOOL-MESSAGES 7 "{DATE}" "mqtool {__version__}" "mqtool manual"',
        '.\\" Generated by man/generate.py from mqtool/messages.py; do not edit.',
        ".nh",
        ".ad l",
        ".SH NAME",
        "mqtool\\-messages \\- every message id mqtool prints, with its text and meaning",
        ".SH DESCRIPTION",
        "Generated from the one message catalogue of mqtool (mqtool/messages.py): every id",
        "that mqtool prints is listed here, and a test fails when one is missing.",
        "Fields in braces are filled in when the message is printed; a message of several",
        "lines (a statistics display) is shown by its first line.",
        ".PP",
        "The last letter of an id is its severity, as on the mainframe:",
        ".B I",
        "information,",
        ".B W",
        "a warning,",
        ".B E",
        "an error. A command answered with an error changes nothing.",
        ".PP",
        "Each dialect frames its messages in its own way (see the dialect pages): z/TPF",
        "lines read",
        ".I MSGID hh.mm.ss text",
        "after the CSMP0097I console header, with",
        ".B +",
        "on the last line; z/OS lines read",
        '.I "MSGID CPF CSECT text"',
        "(report messages have no CSECT; a CSQ9022I or CSQ9023E line ends each command);",
        "the lines of mqtool itself",
        "(MQT) read",
        '.IR "MSGID text" .',
        "Errors of the tool (bad options, unreadable files, a damaged store) are not",
        "messages with ids: they are one line starting",
        ".B mqtool: error:",
        "on standard error (see",
        ".BR mqtool (1)).",
    ]
    groups: dict[str, list[str]] = {}
    for msg_id, entry in CATALOGUE.items():
        if msg_id == ECHO:
            continue
        first = entry.template.split("\n")[0]
        groups.setdefault(message_group(msg_id), []).extend(
            [".TP", f".B {esc(msg_id)}", esc(first), ".br", esc(entry.meaning)]
        )
    out.append(".SH MESSAGES")
    for _, title in (*MESSAGE_GROUPS, ("", "other")):
        if title in groups:
            out += [f'.SS "{esc(title)}"', *groups[title]]
    out += ['.SH "SEE ALSO"', ",\n".join(man_ref(ref) for ref in ("mqtool(1)", *SECTION_SEVEN[:3]))]
    return "\n".join(out) + "\n"


def expected() -> dict[str, str]:
    """Every generated page by file name, as it should read now."""
    pages = section_one()
    pages["mqtool-messages.7"] = messages_page()
    for dialect, page in DIALECT_PAGES.items():
        path = MAN / page
        if page in pages:
            pages[page] = fill_keywords(pages[page], dialect)
        elif path.exists():
            pages[page] = fill_keywords(path.read_text(encoding="utf-8"), dialect)
    for page in HAND_WRITTEN:
        pages[page] = (MAN / page).read_text(encoding="utf-8")
    orphans = sorted(p.name for p in EXTRA.glob("*.troff") if p.name.removesuffix(".troff") not in pages)
    if orphans:
        raise SystemExit(f"man/extra has prose for pages that are not generated: {', '.join(orphans)}")
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a page is out of date")
    parser.add_argument("pages", nargs="*", metavar="PAGE", help="only these pages (e.g. mqtool-run.1)")
    args = parser.parse_args()
    pages = expected()
    unknown = [name for name in args.pages if name not in pages]
    if unknown:
        parser.error(f"not a generated page: {', '.join(unknown)}")
    stale = []
    for name, text in pages.items():
        if args.pages and name not in args.pages:
            continue
        path = MAN / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print("out of date: " + ", ".join(stale) + " (run python man/generate.py)", file=sys.stderr)
        return 1
    if not args.check:
        print("written: " + (", ".join(stale) if stale else "nothing (all up to date)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
