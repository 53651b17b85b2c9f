"""Generates the parts of the man pages that come from the code: section-1 pages from
the click help, the keyword reference of each dialect from its YAML table, and
mqtool-messages(7) from the message catalogue.

    python man/generate.py          # rewrite what is out of date
    python man/generate.py --check  # exit 1 when a page is out of date (a test runs this)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import click

from mqtool import __version__, tables
from mqtool.messages import CATALOGUE, ECHO

MAN = Path(__file__).resolve().parent
DATE = "2026-11"
BEGIN = '.\\" BEGIN GENERATED KEYWORDS'
END = '.\\" END GENERATED KEYWORDS'
DIALECT_PAGES = {"ztpf_mq": "mqtool-ztpf.7", "zos": "mqtool-zos.7", "ztpf_http": "mqtool-http.7"}
DIALECT_TITLES = {"ztpf_mq": "z/TPF MQ (ZMQSC)", "zos": "IBM MQ for z/OS (MQSC)", "ztpf_http": "z/TPF HTTP server (ZHTPS)"}


def esc(text: str) -> str:
    """Escapes text for troff: backslashes, and a leading dot or quote."""
    out = text.replace("\\", "\\e").replace("-", "\\-")
    if out.startswith((".", "'")):
        out = "\\&" + out
    return out


def _paragraphs(text: str) -> list[str]:
    """Click help text to troff, keeping \\b (no-rewrap) blocks as .nf blocks."""
    lines: list[str] = []
    blocks = text.strip("\n").split("\n\n")
    for block in blocks:
        raw = block.strip("\n")
        if raw.startswith("\b"):
            lines.append(".PP")
            lines.append(".nf")
            lines.extend(esc(line) for line in raw.split("\n")[1:])
            lines.append(".fi")
        else:
            lines.append(".PP")
            lines.append(esc(" ".join(part.strip() for part in raw.split("\n"))))
    return lines


def command_page(path: list[str], command: click.Command, parent: click.Context | None) -> str:
    name = "-".join(path)
    ctx = click.Context(command, info_name=path[-1], parent=parent)
    usage = " ".join(command.collect_usage_pieces(ctx))
    out = [
        f'.TH {name.upper()} 1 "{DATE}" "mqtool {__version__}" "mqtool manual"',
        ".SH NAME",
        f"{esc(name)} \\- {esc(command.get_short_help_str(limit=200))}",
        ".SH SYNOPSIS",
        f".B {' '.join(path)}",
        esc(usage),
        ".SH DESCRIPTION",
        *_paragraphs(command.help or ""),
    ]
    params = [p.get_help_record(ctx) for p in command.get_params(ctx)]
    records = [r for r in params if r is not None]
    if records:
        out.append(".SH OPTIONS")
        for opts, help_text in records:
            out += [".TP", f".B {esc(opts)}", esc(help_text)]
    if isinstance(command, click.Group) and parent is None:
        from mqtool.cli import SHORT_HELP

        out.append(".SH COMMANDS")
        for sub_name in command.list_commands(ctx):
            out += [".TP", f".B mqtool {esc(sub_name)}", esc(SHORT_HELP.get(sub_name, "")) + f" See mqtool\\-{esc(sub_name)}(1)."]
    elif isinstance(command, click.Group):
        out.append(".SH COMMANDS")
        for sub_name in command.list_commands(ctx):
            sub = command.get_command(ctx, sub_name)
            if sub is None:
                continue
            sub_ctx = click.Context(sub, info_name=sub_name, parent=ctx)
            out += [".SS", esc(f"{' '.join(path)} {sub_name} {' '.join(sub.collect_usage_pieces(sub_ctx))}")]
            out += _paragraphs(sub.help or "")
            for record in (p.get_help_record(sub_ctx) for p in sub.get_params(sub_ctx)):
                if record is not None:
                    out += [".TP", f".B {esc(record[0])}", esc(record[1])]
    out += [".SH SEE ALSO", "mqtool(1), mqtool\\-ztpf(7), mqtool\\-zos(7), mqtool\\-http(7), mqtool\\-messages(7)"]
    return "\n".join(out) + "\n"


def section_one() -> dict[str, str]:
    from mqtool.cli import main_group

    pages = {}
    root = click.Context(main_group, info_name="mqtool")
    pages["mqtool.1"] = command_page(["mqtool"], main_group, None)
    for name in main_group.list_commands(root):
        command = main_group.get_command(root, name)
        if command is not None:
            pages[f"mqtool-{name}.1"] = command_page(["mqtool", name], command, root)
    return pages


def keyword_block(dialect: str) -> str:
    table = tables.load(dialect)
    prefix = table.command or "MQSC"
    out = [BEGIN, ".SH KEYWORD REFERENCE", f"Generated from the keyword table of {DIALECT_TITLES[dialect]}."]
    out.append(".SS Verbs")
    for verb in table.verbs.values():
        also = f" ({', '.join(verb.abbrev)})" if verb.abbrev else ""
        objects = f" Objects: {', '.join(verb.objects)}." if verb.objects else ""
        out += [".TP", f".B {esc(prefix + ' ' + verb.name + also)}", esc(verb.help + "." + objects)]
    for obj in table.objects.values():
        also = f" (also {', '.join(obj.aliases)})" if obj.aliases else ""
        out += [".SS", esc(f"{obj.name}{also}: {obj.help}")]
        for spec in obj.keywords.values():
            details = [spec.describe_values()]
            if spec.default is not None and spec.type != "flag":
                default = ",".join(spec.default) if isinstance(spec.default, list) else spec.default
                details.append(f"default {default}")
            if spec.required:
                details.append("required at DEFINE")
            if not spec.alterable:
                details.append("cannot be altered")
            if spec.abbrev:
                details.append("abbreviation " + ", ".join(spec.abbrev))
            details.append("verbs " + ", ".join(spec.verbs))
            out += [".TP", f".B {esc(spec.name)}", esc(f"{spec.help} ({'; '.join(str(d) for d in details)}).")]
    out.append(END)
    return "\n".join(out)


def fill_keywords(page: str, dialect: str) -> str:
    if BEGIN not in page or END not in page:
        raise SystemExit(f"{DIALECT_PAGES[dialect]}: the generated-keywords markers are missing")
    head, _, rest = page.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return head + keyword_block(dialect) + tail


def messages_page() -> str:
    out = [
        f'.TH MQTOOL-MESSAGES 7 "{DATE}" "mqtool {__version__}" "mqtool manual"',
        ".SH NAME",
        "mqtool\\-messages \\- every message id mqtool prints, with its text and meaning",
        ".SH DESCRIPTION",
        "Generated from the one message catalogue (mqtool/messages.py). Fields in braces are",
        "filled in when the message is printed. Ids ending in I inform, W warn, E report an error;",
        "an error changes nothing.",
        ".SH MESSAGES",
    ]
    for msg_id, entry in CATALOGUE.items():
        if msg_id == ECHO:
            continue
        first = entry.template.split("\n")[0]
        out += [".TP", f".B {esc(msg_id)}", esc(first), ".br", esc(entry.meaning)]
    out += [".SH SEE ALSO", "mqtool(1), mqtool\\-ztpf(7), mqtool\\-zos(7), mqtool\\-http(7)"]
    return "\n".join(out) + "\n"


def expected() -> dict[str, str]:
    pages = section_one()
    pages["mqtool-messages.7"] = messages_page()
    for dialect, page in DIALECT_PAGES.items():
        path = MAN / page
        if path.exists():
            pages[page] = fill_keywords(path.read_text(encoding="utf-8"), dialect)
    return pages


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when a page is out of date")
    args = parser.parse_args()
    stale = []
    for name, text in expected().items():
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
