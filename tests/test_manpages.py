"""The man pages: the generated parts are up to date, and every keyword, message id,
subcommand, directive and environment variable is documented where it belongs; groff
reads every page without a warning."""

from __future__ import annotations

import importlib.util
import itertools
import re
import subprocess
from pathlib import Path
from types import ModuleType

import click
import pytest

from mqtool import tables
from mqtool.cli.main import SUBCOMMANDS, main_group
from mqtool.directives import DIRECTIVES
from mqtool.messages import CATALOGUE, ECHO

ROOT = Path(__file__).resolve().parent.parent
MAN = ROOT / "man"
DIALECT_PAGES = {
    "ztpf_mq": "mqtool-ztpf.7",
    "zos": "mqtool-zos.7",
    "ztpf_http": "mqtool-http.7",
    "ztpf_mqid": "mqtool-ztpf.7",
}
# The heading of a dialect's keyword reference when its page holds another's too.
REFERENCES = {"ztpf_mqid": "ZMQID KEYWORD REFERENCE"}
CHOICES = "CHOICES MADE BY MQTOOL"


@pytest.fixture(scope="module")
def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("mqtool_man_generate", MAN / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def expected(generator: ModuleType) -> dict[str, str]:
    pages: dict[str, str] = generator.expected()
    return pages


def page(name: str) -> str:
    path = MAN / name
    assert path.exists(), f"man/{name} is missing (python man/generate.py writes the generated pages)"
    return path.read_text(encoding="utf-8")


def plain(text: str) -> str:
    """Troff text as a reader sees it: font changes and escapes removed."""
    text = re.sub(r"\\f[BIRP]", "", text)
    text = text.replace("\\-", "-").replace("\\&", "").replace("\\e", "\\").replace("\\(aq", "'")
    return text


def sections(text: str) -> dict[str, list[str]]:
    """The lines of each .SH section, by title."""
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith(".SH"):
            current = out.setdefault(line[3:].strip().strip('"'), [])
        else:
            current.append(line)
    return out


def macro_text(line: str) -> str:
    """The text a font macro line prints: `.B a b` -> `a b`; the alternating macros
    (`.IB STATE /mqtool.db`) join their arguments without blanks."""
    match = re.match(r"^\.(B|I|BR|RB|BI|IB|IR|RI) (.*)$", line)
    if match is None:
        return plain(line).strip()
    arguments = [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', match.group(2))]
    return plain((" " if len(match.group(1)) == 1 else "").join(arguments)).strip()


def tagged(lines: list[str]) -> list[str]:
    """The tags of tagged paragraphs: the line after each .TP, as plain text."""
    return [macro_text(line) for before, line in itertools.pairwise(lines) if before == ".TP"]


def subsections(lines: list[str]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current: list[str] = []
    for line in lines:
        if line.startswith(".SS"):
            current = out.setdefault(plain(line[3:].strip().strip('"')), [])
        else:
            current.append(line)
    return out


# -- generated parts ---------------------------------------------------------------------
def test_generated_pages_are_up_to_date(expected: dict[str, str]) -> None:
    stale = [name for name, text in expected.items() if not (MAN / name).exists() or page(name) != text]
    assert not stale, f"out of date: {', '.join(stale)}; run python man/generate.py and commit the pages"


def test_no_page_without_a_source(expected: dict[str, str]) -> None:
    found = {path.name for path in MAN.iterdir() if re.fullmatch(r".+\.[17]", path.name)}
    assert found - set(expected) == set(), "a page in man/ that nothing generates or checks"


def test_generator_refuses_an_unknown_insert(generator: ModuleType, tmp_path: Path) -> None:
    extra = tmp_path / "mqtool-x.1.troff"
    extra.write_text('.SH NOTES\n.\\" INSERT nothing\n', encoding="utf-8")
    generator.EXTRA, saved = tmp_path, generator.EXTRA
    try:
        with pytest.raises(SystemExit, match="unknown INSERT 'nothing'"):
            generator.read_extra("mqtool-x.1", generator.INSERTS)
    finally:
        generator.EXTRA = saved


# -- keywords of the dialect tables ----------------------------------------------------------
@pytest.mark.parametrize("dialect", sorted(DIALECT_PAGES))
def test_every_keyword_is_in_its_dialect_page(dialect: str) -> None:
    table = tables.load(dialect)
    text = page(DIALECT_PAGES[dialect])
    heading = REFERENCES.get(dialect, "KEYWORD REFERENCE")
    reference = sections(text).get(heading)
    assert reference is not None, f"{DIALECT_PAGES[dialect]} has no {heading} section"
    parts = subsections(reference)
    verbs = {tag.split(" (")[0]: tag for tag in tagged(parts.get("Verbs", []))}
    prefix = f"{table.command} " if table.command else ""
    missing = []
    for verb in table.verbs.values():
        tag = verbs.get(prefix + verb.name)
        if tag is None:
            missing.append(f"verb {verb.name}")
            continue
        missing += [f"verb {verb.name} abbreviation {a}" for a in verb.abbrev if not re.search(rf"\b{a}\b", tag)]
    for obj in table.objects.values():
        heading = next((h for h in parts if h.split(" ")[0] == obj.name), None)
        if heading is None:
            missing.append(f"object {obj.name}")
            continue
        missing += [f"alias {alias} of {obj.name}" for alias in obj.aliases if alias not in heading]
        body = parts[heading]
        names = tagged(body)
        for keyword in obj.keywords.values():
            if keyword.name not in names:
                missing.append(f"{obj.name} {keyword.name}")
            abbreviations = plain(" ".join(body))
            missing += [f"{obj.name} {keyword.name} abbreviation {a}" for a in keyword.abbrev if a not in abbreviations]
    assert not missing, f"{DIALECT_PAGES[dialect]} lacks: {', '.join(missing)}"


@pytest.mark.parametrize("name", sorted(set(DIALECT_PAGES.values())))
def test_dialect_pages_write_their_choices_down(name: str) -> None:
    text = sections(page(name))
    assert CHOICES in text and any(line.startswith(".IP") for line in text[CHOICES])


# -- message ids -----------------------------------------------------------------------------
def test_every_message_id_is_in_the_messages_page() -> None:
    text = sections(page("mqtool-messages.7"))
    listed = tagged(text["MESSAGES"])
    catalogue = [msg_id for msg_id in CATALOGUE if msg_id != ECHO]
    assert sorted(set(catalogue) - set(listed)) == []
    assert sorted(set(listed) - set(catalogue)) == [], "ids in mqtool-messages.7 that the catalogue lacks"
    meanings = plain("\n".join(text["MESSAGES"]))
    assert [msg_id for msg_id in catalogue if CATALOGUE[msg_id].meaning not in meanings] == []


# -- subcommands ------------------------------------------------------------------------------
def test_every_subcommand_has_its_page() -> None:
    root = click.Context(main_group, info_name="mqtool")
    commands = sections(page("mqtool.1"))["COMMANDS"]
    listed = [tag.removeprefix("mqtool ") for tag in tagged(commands)]
    assert listed == sorted(SUBCOMMANDS)
    for name in SUBCOMMANDS:
        text = page(f"mqtool-{name}.1")
        assert text.startswith(f".TH MQTOOL-{name.upper()} 1 ")
        command = main_group.get_command(root, name)
        if isinstance(command, click.Group):
            ctx = click.Context(command, info_name=name, parent=root)
            found = subsections(sections(text)["COMMANDS"])
            for sub in command.list_commands(ctx):
                assert f"mqtool {name} {sub}" in found, f"mqtool-{name}.1 lacks the subcommand {sub}"


def test_no_page_for_a_subcommand_that_does_not_exist() -> None:
    pages = {path.name.removeprefix("mqtool-").removesuffix(".1") for path in MAN.glob("mqtool-*.1")}
    assert pages == set(SUBCOMMANDS)


# -- mqtool(1) -----------------------------------------------------------------------------
def test_every_directive_is_in_mqtool_1() -> None:
    listed = tagged(sections(page("mqtool.1"))["DIRECTIVES"])
    names = [tag.split(" ")[0] for tag in listed]
    assert names == [f".{name}" for name in DIRECTIVES]
    assert listed == [plain(spec.usage) for spec in DIRECTIVES.values()]


def test_mqtool_1_documents_environment_files_and_exit_status() -> None:
    text = sections(page("mqtool.1"))
    environment = tagged(text["ENVIRONMENT"])
    wanted = {param.envvar for param in main_group.params if isinstance(param.envvar, str)} | {"NO_COLOR"}
    assert wanted <= set(environment)
    assert "STATE/mqtool.db" in tagged(text["FILES"])
    assert {"0", "2", "10", "20", "70"} <= set(tagged(text["EXIT STATUS"]))
    assert CHOICES in text


def test_manual_references_name_pages_that_exist() -> None:
    """Every mqtool page that a page or the README names, name(N), is in man/."""
    sources = {path.name: plain(path.read_text(encoding="utf-8")) for path in MAN.glob("*.[17]")}
    sources["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    broken = []
    for source, text in sources.items():
        for name, section in re.findall(r"\b(mqtool(?:-[a-z]+)*)`? ?\((\d)\)", text):
            if not (MAN / f"{name}.{section}").exists():
                broken.append(f"{source}: {name}({section})")
    assert not broken


def test_readme_manual_lists_every_page() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    manual = readme.split("## Manual", 1)[1].split("\n## ", 1)[0]
    unlisted = [path.name for path in sorted(MAN.glob("*.[17]")) if f"`{path.stem}({path.suffix[1:]})`" not in manual]
    assert not unlisted, "README's Manual section does not list these pages"


# -- troff ---------------------------------------------------------------------------------
def test_groff_reads_every_page_without_a_warning(groff: str) -> None:
    warnings = {}
    for path in sorted([*MAN.glob("*.1"), *MAN.glob("*.7")]):
        result = subprocess.run(
            [groff, "-man", "-ww", "-z", str(path)], capture_output=True, text=True, check=False, timeout=60
        )
        if result.returncode or result.stderr:
            warnings[path.name] = result.stderr.strip()
    assert not warnings
