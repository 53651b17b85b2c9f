"""`mqtool cmd`, `mqtool run` and `mqtool init`."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import click

from mqtool.cli.main import App, fail
from mqtool.cli.runner import EXIT_NOT_RUN, Report, Summary, run_lines, unreadable
from mqtool.parse.lines import LineTooLong, read_all


def _read_text(path: str) -> list[str]:
    """The lines of a command file (`-` is standard input); OSError, UnicodeError and
    LineTooLong (a line longer than any command: /dev/zero) propagate."""
    if path == "-":
        return read_all(sys.stdin)
    with open(path, encoding="utf-8") as stream:
        return read_all(stream)


HELP_OPTIONS = ("-h", "--help")
# Options of `cmd` itself, taken wherever they stand among the commands.
CMD_OPTIONS = ("--format", "--system")
# Options of `mqtool` itself: refused after `cmd` with the place they go.
GROUP_OPTIONS = ("--state", "--clock", "--version")


class CommandArguments(click.Command):
    """Arguments that are operator commands: `-CSQ1 DISPLAY QLOCAL('x.h')` starts with
    a dash but is a command (with a CPF), not a cluster of short options, so only a lone
    -h/--help and the words starting with two dashes are options. No command starts
    with two dashes (a CPF is one special character, then letters, digits, @ # $), so
    `--system CSQ9` or `--format json` is taken as the option wherever it stands; any
    other `--word` is refused before a command runs. After a lone `--` every argument
    is a command."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        options: list[str] = []
        commands: list[str] = []
        rest = list(args)
        while rest:
            arg = rest.pop(0)
            name = arg.partition("=")[0]
            if arg == "--":
                commands += rest
                break
            if arg in HELP_OPTIONS:
                options.append(arg)
            elif name in CMD_OPTIONS:
                options.append(arg)
                if "=" not in arg:
                    if not rest:
                        raise click.UsageError(f"option {name} requires a value", ctx)
                    options.append(rest.pop(0))
            elif name in GROUP_OPTIONS:
                raise click.UsageError(
                    f"{name} is an option of mqtool itself: put it before the subcommand (mqtool {name} ... cmd ...)",
                    ctx,
                )
            elif arg.startswith("--"):
                raise click.UsageError(
                    f"no such option: {name} (cmd takes {', '.join(CMD_OPTIONS)}; quote each command)", ctx
                )
            else:
                commands.append(arg)
        return super().parse_args(ctx, [*options, "--", *commands])


FORMAT_OPTION = click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"], case_sensitive=False),
    default="text",
    show_default=True,
    help="text: the console responses; json: IBM MQ runCommandJSON responses (see mqtool-cmd(1)).",
)


@click.command(cls=CommandArguments, context_settings={"help_option_names": list(HELP_OPTIONS)})
@click.argument("commands", nargs=-1, required=True)
@FORMAT_OPTION
@click.option(
    "--system",
    "system",
    metavar="NAME",
    help="The current system for these commands (as mqtool --system NAME; this one wins).",
)
@click.pass_obj
def cmd(app: App, commands: tuple[str, ...], output_format: str, system: str | None) -> None:
    """Run one or more commands given as arguments; `-` reads commands from standard
    input (MQSC file rules apply). Prints the responses only; --format json prints each
    command's response as one line of JSON in IBM MQ's runCommandJSON shape
    (commandResponse, overallCompletionCode, overallReasonCode). The options --format
    and --system may stand anywhere among the commands; any other word starting with
    two dashes is refused before a command runs.

    Exit status: 0 when every command completed, 10 when some did not, 20 when standard
    input is not UTF-8 text or has a line longer than any command (32762 characters).

    \b
    Examples:
      mqtool cmd 'ZMQSC DISPLAY QL-*'
      mqtool cmd 'ZMQSC DEF QL-PAYQ COMPSIZE-16000' 'ZMQSC DIS QL-PAYQ'
      mqtool cmd '-CSQ1 SET LOG ZHYLINK(YES)' '-CSQ1 DISPLAY LOG'
      echo 'ZMQSC DIS QMGR' | mqtool cmd -
      mqtool cmd --format json '-CSQ1 DIS QL(*) WHERE(CURDEPTH GT 0)'
      mqtool cmd 'DISPLAY QMGR' --system CSQ1
    """
    unquoted = _unquoted(commands)
    if unquoted is not None:
        fail(f"each argument is one whole command: quote it, e.g. mqtool cmd {unquoted}")
    session = app.session(system)
    total = Summary()
    emit: Callable[[str], None] = click.echo
    observe = None
    if output_format.lower() == "json":
        from mqtool.cli.transcripts import json_lines

        emit, observe = _quiet, json_lines(session, click.echo)
    for item in commands:
        # An argument is one whole command as typed (a trailing - or + is part of it, as
        # on the console); standard input follows the MQSC file rules.
        if item == "-":
            try:
                lines = _read_text("-")
            except (UnicodeDecodeError, LineTooLong) as exc:
                click.echo(f"mqtool: error: cannot read -: {unreadable(exc)}", err=True)
                sys.exit(EXIT_NOT_RUN)
            summary = run_lines(session, lines, emit, echo=False, observe=observe)
        else:
            summary = run_lines(session, [item], emit, echo=False, whole=True, observe=observe)
        total.read += summary.read
        total.syntax += summary.syntax
        total.failed += summary.failed
    sys.exit(total.exit_code)


def _unquoted(arguments: tuple[str, ...]) -> str | None:
    """`mqtool cmd ZMQSC DIS QMGR`: one command typed without quotes arrives as words,
    each of which would run as a command of its own. Recognised when the first argument
    is one word that cannot stand alone (ZMQSC, ZHTPS, an MQSC verb, a CPF before an
    MQSC verb: all need more words) and more follow; returns the command quoted."""
    if len(arguments) < 2 or arguments[0].strip() in ("", "-") or " " in arguments[0].strip():
        return None  # (a lone - is standard input)
    from mqtool.complex import CPF_FIRST
    from mqtool.session import ZTPF_HTTP_WORDS, ZTPF_MQID_WORD
    from mqtool.tables import load

    first, following = arguments[0].strip().upper(), arguments[1].split()
    alone = first in ("ZMQSC", ZTPF_MQID_WORD, *ZTPF_HTTP_WORDS) or load("zos").verb(first) is not None
    cpf = first[0] in CPF_FIRST and bool(following) and load("zos").verb(following[0]) is not None
    if not (alone or cpf):
        return None
    text = " ".join(arguments)
    # MQSC quotes values with apostrophes: "DIS QLOCAL('x')" reads better than shlex's form.
    if "'" in text and not any(char in text for char in '"$`\\!'):
        return f'"{text}"'
    import shlex  # here: `cmd` need not load it

    return shlex.quote(text)


def _quiet(line: str) -> None:
    """The text transcript's sink when another renderer prints."""


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("-e", "no_echo", is_flag=True, help="Do not echo the commands into the report.")
@click.option("-v", "verify", is_flag=True, help="Check the syntax only; change nothing.")
@click.option(
    "--continue/--stop-on-error",
    "keep_going",
    default=True,
    help="Go on after a failed command (default), or stop at the first one.",
)
@click.option(
    "--verify-first",
    is_flag=True,
    help="Check the syntax of every file first; run none of them if one has a syntax error.",
)
@FORMAT_OPTION
@click.option(
    "--expect",
    metavar="FILE.out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Compare the transcript with this file instead of printing it: a unified diff and exit 1 when it differs.",
)
@click.option("--update", is_flag=True, help="With --expect: write the transcript to the file.")
@click.pass_obj
def run(
    app: App,
    files: tuple[str, ...],
    no_echo: bool,
    verify: bool,
    keep_going: bool,
    verify_first: bool,
    output_format: str,
    expect: Path | None,
    update: bool,
) -> None:
    """Run command files like IBM runmqsc: a numbered echo of each command, its
    response, and a summary of commands read, with syntax errors, and not processed.
    `-` reads standard input; a folder runs its *.mqsc files in name order (as IBM's
    container runs its autoconfig folder). The MQSC file rules apply: `*` in column 1
    is a comment, a trailing `+` or `-` continues a command, `;` ends one.

    --format json writes one JSON document: per file, each command with its IBM MQ
    runCommandJSON response, and the summaries. --expect compares the transcript with
    an expected file (a golden check of your own automation: run it with a frozen
    --clock on a fresh --state); --update rewrites that file.

    Exit status: 0 all processed, 10 some failed, 20 a file could not be run (or
    --verify-first found a syntax error); with --expect 0 when the transcript matches,
    1 when it differs.

    \b
    Examples:
      mqtool run setup.mqsc
      mqtool run --verify-first config/
      mqtool --clock 2021-03-09T15:41:22Z run -e scenario.mqsc > scenario.out
      mqtool --state "$(mktemp -d)" --clock 2021-03-09T15:41:22Z run scenario.mqsc --expect scenario.out
      mqtool run -v setup.mqsc
    """
    from mqtool.cli.transcripts import SourceError, expand_paths

    if update and expect is None:
        fail("--update needs --expect FILE.out: the file to write")
    try:
        paths = expand_paths(files)
    except SourceError as exc:
        click.echo(f"mqtool: error: {exc}", err=True)
        sys.exit(EXIT_NOT_RUN)
    texts: list[tuple[str, list[str]]] = []
    for path in paths:
        try:
            texts.append((path, _read_text(path)))
        except (OSError, UnicodeDecodeError, LineTooLong) as exc:
            click.echo(f"mqtool: error: cannot read {path}: {unreadable(exc)}", err=True)
            sys.exit(EXIT_NOT_RUN)
    if verify_first:
        from mqtool.cli.transcripts import syntax_check

        errors = syntax_check(app.session(), texts, click.echo)
        if errors:
            click.echo(f"mqtool: error: {errors} syntax error(s); --verify-first ran no file", err=True)
            sys.exit(EXIT_NOT_RUN)
    transcript: list[str] = []
    emit: Callable[[str], None] = Report() if expect is None else transcript.append
    total = _run_files(app, texts, emit, no_echo, verify, keep_going, output_format.lower() == "json")
    if expect is None:
        sys.exit(total.exit_code)
    from mqtool.cli.transcripts import compare

    try:
        sys.exit(compare(expect, "".join(line + "\n" for line in transcript), update, click.echo))
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
        hint = "; --update writes it" if isinstance(exc, FileNotFoundError) else ""
        fail(f"cannot {'write' if update else 'read'} {expect}: {reason}{hint}")


def _run_files(
    app: App,
    texts: list[tuple[str, list[str]]],
    emit: Callable[[str], None],
    no_echo: bool,
    verify: bool,
    keep_going: bool,
    as_json: bool,
) -> Summary:
    """Runs the files one after the other, writing the report (text or JSON) to `emit`."""
    session = app.session()
    total = Summary()
    document = None
    if as_json:
        from mqtool.cli.transcripts import JsonRun

        document = JsonRun(session)
    for number, (path, lines) in enumerate(texts):
        if document is not None:
            document.start(path)
            summary = run_lines(
                session, lines, _quiet, verify=verify, stop_on_error=not keep_going, observe=document.observe
            )
            document.finish(summary)
        else:
            if number:
                emit("")  # a blank line between the reports of two files
            current = session.current_system()
            emit(f"Starting MQSC for {path} on system {current.name if current else '(none)'}.")
            emit("")
            summary = run_lines(session, lines, emit, echo=not no_echo, verify=verify, stop_on_error=not keep_going)
            emit("")
            for line in summary.lines():
                emit(line)
        total.read += summary.read
        total.syntax += summary.syntax
        total.failed += summary.failed
        if summary.exit_code and not keep_going:
            break
    if document is not None:
        emit(document.text(total))
    if isinstance(emit, Report):
        emit.flush()
    return total


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--force", is_flag=True, help="Replace an existing store with a new default complex.")
@click.pass_obj
def init(app: App, force: bool) -> None:
    """Create the default complex: z/TPF system TPF1 on a z15 with queue manager
    TPFQM, and z/OS queue manager CSQ1 with command prefix -CSQ1. Any other command
    creates it too when it finds no store.

    \b
    Examples:
      mqtool init
      mqtool --state ./lab init --force
    """
    from mqtool.complex import create_default
    from mqtool.state import Store, StoreError
    from mqtool.state.store import DB_NAME

    path = app.state_dir / DB_NAME
    if force:  # whatever is there, a store or a damaged file (an empty one too)
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
    elif path.exists() and path.stat().st_size > 0:
        fail(f"{path} already holds a complex; use --force to replace it")
    try:
        store = Store.open(app.state_dir)
    except StoreError as exc:
        fail(str(exc))
    with store.transaction() as tx:
        create_default(tx, app.clock.timestamp())
        tx.set_meta("initialised", "1")
    store.close()
    click.echo(f"Created the default complex in {app.state_dir}: TPF1 (z/TPF, z15, TPFQM) and CSQ1 (z/OS, -CSQ1).")
