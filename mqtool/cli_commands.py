"""`mqtool cmd`, `mqtool run` and `mqtool init`."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from mqtool.cli import App, fail
from mqtool.runner import EXIT_NOT_RUN, Summary, run_lines


def _read_text(path: str) -> list[str]:
    """The lines of a command file (`-` is standard input); OSError/UnicodeError propagate."""
    if path == "-":
        return sys.stdin.read().splitlines()
    return Path(path).read_text(encoding="utf-8").splitlines()


HELP_OPTIONS = ("-h", "--help")


class CommandArguments(click.Command):
    """Arguments that are operator commands: `-CSQ1 DISPLAY QLOCAL('x.h')` starts with
    a dash but is a command (with a CPF), not a cluster of short options, so everything
    but a lone -h/--help is taken as an argument."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if "--" not in args:
            helps = [arg for arg in args if arg in HELP_OPTIONS]
            args = [*helps, "--", *(arg for arg in args if arg not in HELP_OPTIONS)]
        return super().parse_args(ctx, args)


@click.command(cls=CommandArguments, context_settings={"help_option_names": list(HELP_OPTIONS)})
@click.argument("commands", nargs=-1, required=True)
@click.pass_obj
def cmd(app: App, commands: tuple[str, ...]) -> None:
    """Run one or more commands given as arguments; `-` reads commands from standard
    input (MQSC file rules apply). Prints the responses only.

    Exit status: 0 when every command completed, 10 when some did not, 20 when standard
    input is not UTF-8 text.

    \b
    Examples:
      mqtool cmd 'ZMQSC DISPLAY QL-*'
      mqtool cmd 'ZMQSC DEF QL-PAYQ COMPSIZE-16000' 'ZMQSC DIS QL-PAYQ'
      mqtool cmd '-CSQ1 SET LOG ZHYLINK(YES)' '-CSQ1 DISPLAY LOG'
      echo 'ZMQSC DIS QMGR' | mqtool cmd -
    """
    session = app.session()
    total = Summary()
    for item in commands:
        # An argument is one whole command as typed (a trailing - or + is part of it, as
        # on the console); standard input follows the MQSC file rules.
        if item == "-":
            try:
                lines = sys.stdin.read().splitlines()
            except UnicodeDecodeError:
                click.echo("mqtool: error: cannot read -: not UTF-8 text", err=True)
                sys.exit(EXIT_NOT_RUN)
            summary = run_lines(session, lines, click.echo, echo=False)
        else:
            summary = run_lines(session, [item], click.echo, echo=False, whole=True)
        total.read += summary.read
        total.syntax += summary.syntax
        total.failed += summary.failed
    sys.exit(total.exit_code)


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
@click.pass_obj
def run(app: App, files: tuple[str, ...], no_echo: bool, verify: bool, keep_going: bool) -> None:
    """Run command files like IBM runmqsc: a numbered echo of each command, its
    response, and a summary of commands read, with syntax errors, and not processed.
    `-` reads standard input. The MQSC file rules apply: `*` in column 1 is a
    comment, a trailing `+` or `-` continues a command, `;` ends one.

    Exit status: 0 all processed, 10 some failed, 20 a file could not be run.

    \b
    Examples:
      mqtool run setup.mqsc
      mqtool --clock 2021-03-09T15:41:22Z run -e scenario.mqsc > scenario.out
      mqtool run -v setup.mqsc
    """
    texts: list[tuple[str, list[str]]] = []
    for path in files:
        try:
            texts.append((path, _read_text(path)))
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not UTF-8 text"
            click.echo(f"mqtool: error: cannot read {path}: {reason}", err=True)
            sys.exit(EXIT_NOT_RUN)
    session = app.session()
    total = Summary()
    for number, (path, lines) in enumerate(texts):
        if number:
            click.echo("")  # a blank line between the reports of two files
        current = session.current_system()
        click.echo(f"Starting MQSC for {path} on system {current.name if current else '(none)'}.")
        click.echo("")
        summary = run_lines(session, lines, click.echo, echo=not no_echo, verify=verify, stop_on_error=not keep_going)
        click.echo("")
        for line in summary.lines():
            click.echo(line)
        total.read += summary.read
        total.syntax += summary.syntax
        total.failed += summary.failed
        if summary.exit_code and not keep_going:
            break
    sys.exit(total.exit_code)


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
