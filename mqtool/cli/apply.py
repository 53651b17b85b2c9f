"""`mqtool apply FILE`: the plan that makes the store match a complex document, printed
as commands with each object's outcome, then run (mqtool.apply.plan does the work)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from mqtool.cli.main import App, fail

PROGRESS_FROM = 50  # a progress bar for plans of this many commands or more (on a terminal)
EXIT_FAILED = 10


@click.command("apply", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("file", type=click.Path(allow_dash=True, path_type=Path))
@click.option("--dry-run", is_flag=True, help="Print the plan and the outcomes it would have; change nothing.")
@click.option("--prune", is_flag=True, help="Delete the objects of the document's systems that it does not name.")
@click.option("--purge", is_flag=True, help="Let --prune delete local queues that hold messages (with them).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"], case_sensitive=False),
    default="text",
    show_default=True,
    help="text: the plan, then one line per object; json: one document with both.",
)
@click.pass_obj
def apply(app: App, file: Path, dry_run: bool, prune: bool, purge: bool, output_format: str) -> None:
    """Make the systems of a complex document match it: the YAML (or JSON) that
    `mqtool export --format yaml` writes, checked against its JSON Schema first.

    The plan DEFINEs the objects the store lacks, ALTERs only the attributes that
    differ (ZMQSC has no REPLACE), and with --prune DELETEs the objects of the
    document's systems that it does not name; a system the store lacks is added and
    settings that differ are altered (settings the document leaves out stay as they
    are). The plan is printed as a command file (`.system NAME` before z/TPF commands),
    then each command runs as its own transaction and each object's outcome (CREATED,
    UPDATED with the attributes changed, UNCHANGED, DELETED) is printed once it has
    committed. The order follows the references: the queue manager first, a
    transmission queue before the channel or remote queue naming it, a stream target
    before the queue streaming to it, an alias target before the alias; deletes the
    other way round. Applying the same document again plans nothing.

    Exit status: 0 applied (or nothing to do), 2 the document or the plan is refused
    (nothing changed), 10 a command failed (the commands before it stay applied).

    \b
    Examples:
      mqtool export --format yaml --all -o complex.yaml
      mqtool --state ./lab apply complex.yaml --dry-run
      mqtool --state ./lab apply complex.yaml --prune
    """
    from mqtool.apply import plan as applying
    from mqtool.apply.document import DocumentError, read, read_stream
    from mqtool.inputs import InputError

    source = "-" if str(file) == "-" else str(file)
    try:
        document = read_stream(sys.stdin.buffer) if source == "-" else read(file)
        plan = applying.plan(app.store, document, prune=prune, purge=purge)
    except DocumentError as exc:
        for problem in exc.problems:
            click.echo(f"mqtool: error: {problem.shown(exc.source)}", err=True)
        sys.exit(2)
    except applying.ApplyError as exc:
        fail(f"{source}: {exc}; nothing was changed")
    except InputError as exc:
        fail(f"cannot read {source}: {exc}")
    except OSError as exc:
        fail(f"cannot read {source}: {exc.strerror or exc}")
    as_json = output_format.lower() == "json"
    report = _Report(source, plan, dry_run, as_json)
    report.start()
    failure = report.run(app) if plan.actions else None
    report.finish(failure)
    sys.exit(EXIT_FAILED if failure is not None else 0)


def _terminal() -> bool:
    """Whether standard output is a terminal (a progress bar then; none in a pipe or file)."""
    return sys.stdout.isatty()


class _Report:
    """The text or JSON report of an apply, written as the plan runs."""

    def __init__(self, source: str, plan: Any, dry_run: bool, as_json: bool) -> None:
        self.source = source
        self.plan = plan
        self.dry_run = dry_run
        self.as_json = as_json
        self.printed: list[Any] = []
        self.console: Any = None  # a rich console while a progress bar shows
        self.session: Any = None

    def emit(self, line: str) -> None:
        if self.as_json:
            return
        if self.console is not None:
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            click.echo(line)

    def start(self) -> None:
        self.emit(f"Plan for {self.source}: {self.plan.summary()}.")
        for line in self.plan.lines():
            self.emit(line)
        if self.plan.outcomes:
            self.emit("")

    def done(self, outcome: Any) -> None:
        self.printed.append(outcome)
        self.emit(outcome.line())

    def run(self, app: App) -> Any:
        from mqtool.apply import plan as applying

        session = self.session = app.session()
        progress = None
        if not self.dry_run and not self.as_json and len(self.plan.actions) >= PROGRESS_FROM and _terminal():
            from rich.progress import Progress

            progress = Progress(transient=True)
            task = progress.add_task("apply", total=len(self.plan.actions))
            progress.start()
            self.console = progress.console
        try:
            step = (lambda: progress.advance(task)) if progress is not None else None
            return applying.execute(session, self.plan, self.done, step, dry_run=self.dry_run)
        finally:
            if progress is not None:
                progress.stop()
                self.console = None

    def finish(self, failure: Any) -> None:
        from mqtool.apply import plan as applying

        unchanged = [o for o in self.plan.outcomes if o.outcome == applying.UNCHANGED]
        for outcome in unchanged:
            self.printed.append(outcome)
            self.emit(outcome.line())
        counts = {key.lower(): sum(1 for o in self.printed if o.outcome == key) for key in self.plan.counts()}
        if self.as_json:
            self._json(failure, counts)
            return
        if failure is not None:
            for line in failure.outcome.lines:
                self.emit(line)
            action = failure.action
            self.emit(f"{'FAILED':<9} {action.system} {action.type} {action.name}: {action.text}")
            self.emit(
                f"Stopped at command {failure.applied + 1} of {len(self.plan.actions)}; the {failure.applied} "
                "before it are applied, the rest was not run."
            )
            return
        totals = f"{counts['created']} created, {counts['updated']} updated, {counts['deleted']} deleted, "
        totals += f"{counts['unchanged']} unchanged"
        if self.dry_run:
            self.emit(f"Dry run of {self.source}: nothing was changed ({self.plan.summary()}).")
        elif not self.plan.actions:
            self.emit(f"Nothing to change: {self.source} matches ({totals}).")
        else:
            self.emit(f"Applied {self.source}: {totals}.")

    def _json(self, failure: Any, counts: dict[str, int]) -> None:
        from mqtool.cli.transcripts import dumps

        document: dict[str, Any] = {
            "file": self.source,
            "dryRun": self.dry_run,
            "plan": [{"system": a.system, "command": a.text} for a in self.plan.actions],
            "objects": [o.json() for o in self.printed],
            "summary": counts,
            "leftAlone": self.plan.left_alone,
            "status": "dry run" if self.dry_run else "failed" if failure is not None else "applied",
        }
        if failure is not None:
            from mqtool.render.json import outcome_json

            document["failure"] = {
                "system": failure.action.system,
                "command": failure.action.text,
                "response": outcome_json(self.session, failure.outcome),
            }
        click.echo(dumps(document))
