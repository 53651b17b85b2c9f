"""`mqtool trigger-monitor INITQ`: a trigger monitor in the spirit of CKTI and runmqtrm.
It holds the initiation queue open for input (so the queue manager writes trigger
messages to it), gets each trigger message (MQTM) and starts the program its process
names (APPLICID) with the MQTMC2, the character form of the trigger message, as one
argument and ENVRDATA after it, as runmqtrm builds its command.

A trigger message is got under syncpoint and the get commits only after the program
has started: a monitor killed before that leaves the message on the initiation queue
for the next monitor (at least once: one killed between the start and the commit
starts the program again next time). A program that cannot be started, and a message
that is no MQTM, go to the dead-letter queue behind an MQDLH (feedback 265
MQFB_APPL_CANNOT_BE_STARTED, 266 MQFB_TM_ERROR), as runmqtrm does.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from types import FrameType
from typing import Any

import click

from mqtool.cli.engine import CONTEXT, EXIT_REFUSED, _engine_session, _line, _system_option
from mqtool.cli.main import App, fail

APPL_CANNOT_BE_STARTED = 265  # MQFB_APPL_CANNOT_BE_STARTED
TM_ERROR = 266  # MQFB_TM_ERROR: the message is not a valid MQTM


class Stop(Exception):
    """SIGTERM: end the monitor as Ctrl-C does."""


@dataclass
class Running:
    process: subprocess.Popen[bytes]
    command: str
    qname: str


def _on_term(signum: int, frame: FrameType | None) -> None:
    raise Stop


@click.command("trigger-monitor", context_settings=CONTEXT)
@click.argument("initq")
@_system_option
@click.option(
    "--max-running",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Programs running at once; at the limit no trigger message is got until one ends.",
)
@click.option(
    "--shell",
    "use_shell",
    is_flag=True,
    help="Run the command line through /bin/sh -c, as runmqtrm's system() does (ENVRDATA may then hold '&').",
)
@click.option(
    "--interval",
    type=click.FloatRange(0.01, 60),
    default=0.2,
    show_default=True,
    metavar="SECONDS",
    help="How often an empty initiation queue is looked at again.",
)
@click.option(
    "--count", type=click.IntRange(1), help="Stop after this many trigger messages (once their programs end)."
)
@click.pass_obj
def trigger_monitor(
    app: App,
    initq: str,
    system_name: str | None,
    max_running: int,
    use_shell: bool,
    interval: float,
    count: int | None,
) -> None:
    """Watch the initiation queue INITQ of a z/OS queue manager and RUN THE PROGRAM each
    trigger message names: this command starts programs on your machine, the APPLICID
    of the process definitions of the queues that trigger, so only run it where anyone
    who may define processes may run commands as you.

    The command for a trigger message is APPLICID (split into words as a shell would,
    with no shell: no variables, wildcards or redirection), then the MQTMC2 (the trigger
    message in characters: 732, the queue, process, trigger data, application, its
    environment and user data and the queue manager's name) as one argument, then
    ENVRDATA's words. --shell runs `APPLICID 'MQTMC2' ENVRDATA` through /bin/sh -c
    instead. The program's standard input is empty, its output goes where the
    monitor's goes, and it runs with MQTOOL_STATE and MQTOOL_SYSTEM set, so its own
    `mqtool get QUEUE` reads the triggered queue. Each start and each exit status is a
    console line (MQT0771I, MQT0772I).

    Holding INITQ open for input is what makes the queue manager write trigger
    messages to it; opening it triggers the queues it serves that already meet their
    conditions. A trigger message's get commits after its program started (a kill
    before loses nothing; one just after means the program runs again). Ctrl-C or
    SIGTERM stops it (exit 0; programs still running are left to finish); so does STOP
    QMGR.

    Exit status: 0 stopped, 1 INITQ cannot be opened, 2 a bad option.

    \b
    Examples:
      mqtool cmd "-CSQ1 DEFINE PROCESS(ECHO.PROC) APPLICID('/bin/echo triggered') APPLTYPE(UNIX)" \\
        '-CSQ1 DEFINE QLOCAL(APP.INITQ)' \\
        '-CSQ1 DEFINE QLOCAL(APP.Q) TRIGGER TRIGTYPE(FIRST) PROCESS(ECHO.PROC) INITQ(APP.INITQ)'
      mqtool trigger-monitor APP.INITQ --system CSQ1 &
      mqtool put APP.Q --system CSQ1 --data 'wake up'
    """
    from mqtool.engine.core.reasons import Q_MGR_NOT_AVAILABLE, MQError
    from mqtool.engine.platforms import open_queue

    queue = initq.upper()
    session = _engine_session(app, system_name)
    system = session.current_system()
    if not session_model_triggers(system.platform):
        fail(f"{system.name} is a z/TPF system: mqtool builds triggering for z/OS queue managers only")
    store = session.store
    handle = open_queue(store, session.clock, system.name, queue, system.platform)
    try:
        with store.transaction() as tx:
            handle.open(tx, "get")
    except MQError as error:
        click.echo(_line("MQT0777E", queue=queue, system=system.name, reason=str(error)), err=True)
        sys.exit(EXIT_REFUSED)
    qmgr = system.name
    environment = {**os.environ, "MQTOOL_STATE": str(store.path.parent), "MQTOOL_SYSTEM": system.name}
    running: list[Running] = []
    started = 0
    reason = "stopped (Ctrl-C or SIGTERM)"
    previous = signal.signal(signal.SIGTERM, _on_term)
    click.echo(_line("MQT0770I", queue=queue, system=system.name, limit=max_running))
    try:
        while count is None or started < count or running:
            _reap(running)
            if len(running) >= max_running or (count is not None and started >= count):
                time.sleep(interval)
                continue
            try:
                done = _next(session, handle, qmgr, use_shell, environment, running)
            except MQError as error:
                if error.reason == Q_MGR_NOT_AVAILABLE:
                    reason = "the queue manager stopped"
                    break
                raise
            if done is None:
                time.sleep(interval)
                continue
            started += 1
        else:
            reason = f"{started} trigger message{'s' if started != 1 else ''} handled"
    except (KeyboardInterrupt, Stop):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        _reap(running)
        try:
            with store.transaction() as tx:
                handle.close(tx)
        except Exception:  # closing is best effort: a dead process's handle is not counted anyway
            pass
    click.echo(_line("MQT0776I", queue=queue, reason=reason))


def session_model_triggers(platform: str) -> bool:
    """Whether mqtool builds triggering for the platform's queue managers."""
    from mqtool.engine.platforms import model

    return bool(model(platform).process_type)


def _reap(running: list[Running]) -> None:
    """Logs and forgets the programs that have ended."""
    for item in list(running):
        status = item.process.poll()
        if status is not None:
            running.remove(item)
            click.echo(_line("MQT0772I", command=item.command, qname=item.qname, code=status))


def _next(
    session: Any, handle: Any, qmgr: str, use_shell: bool, environment: dict[str, str], running: list[Running]
) -> bool | None:
    """Gets one trigger message and starts its program, committing the get after the
    start; None when the initiation queue is empty."""
    from mqtool.engine.core import mqtm

    store = session.store
    with store.transaction() as tx:
        try:
            message = handle.get(tx)
        except BaseException:
            handle.rolled_back(tx)
            raise
        if message is None:
            return None
        header = message.header
        try:
            if header.get("format") != mqtm.MQFMT_TRIGGER:
                raise ValueError(f"its format is {header.get('format', 'MQFMT_NONE')!r}, not MQFMT_TRIGGER")
            fields = mqtm.unpack(
                message.payload,
                int(header.get("ccsid", mqtm.ZOS_CCSID)),
                int(header.get("encoding", mqtm.ZOS_ENCODING)),
            )
        except (TypeError, ValueError) as error:
            deadq = _dead_letter(session, tx, message, TM_ERROR, handle.queue_name)
            click.echo(_line("MQT0774E", queue=handle.queue_name, reason=str(error), deadq=deadq), err=True)
            return True
        character = mqtm.character_form(fields, qmgr)
        command = fields.appl_id.strip()
        try:
            argv = _command(fields.appl_id, character, fields.env_data, use_shell)
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, env=environment)
        except (OSError, ValueError) as error:
            deadq = _dead_letter(session, tx, message, APPL_CANNOT_BE_STARTED, fields.qname)
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            click.echo(
                _line("MQT0773E", command=command or "(blank)", qname=fields.qname, reason=reason, deadq=deadq),
                err=True,
            )
            return True
    # The get committed: the program is running and its message gone from the queue.
    running.append(Running(process, command, fields.qname))
    click.echo(_line("MQT0771I", command=command, qname=fields.qname, process=fields.process, pid=process.pid))
    return True


def _command(appl_id: str, character: str, env_data: str, use_shell: bool) -> list[str]:
    """The argument list of a trigger message's program (ValueError when APPLICID is
    blank or its quotes do not balance)."""
    if not appl_id.strip():
        raise ValueError("the process's APPLICID is blank")
    if use_shell:
        return ["/bin/sh", "-c", f"{appl_id.strip()} {shlex.quote(character)} {env_data.strip()}".rstrip()]
    return [*shlex.split(appl_id), character, *shlex.split(env_data)]


def _dead_letter(session: Any, tx: Any, message: Any, feedback: int, destination: str) -> str:
    """Puts a trigger message the monitor could not use on the dead-letter queue,
    behind an MQDLH with `feedback` as its reason (in the get's transaction); the
    queue's name, or a note that it was dropped."""
    from mqtool.engine.channels.deadletter import DeadLetterHeader, build
    from mqtool.engine.core.message import PutOptions
    from mqtool.engine.core.reasons import MQError
    from mqtool.engine.platforms import open_queue

    system = session.current_system()
    qmgr = tx.get_object(system.name, "QMGR", system.name)
    deadq = str(qmgr.attrs.get("DEADQ") or "") if qmgr is not None else ""
    if not deadq:
        return "no dead-letter queue: dropped"
    header = DeadLetterHeader(feedback, destination, system.name, "mqtool trigger-monitor", session.clock.timestamp())
    target = open_queue(session.store, session.clock, system.name, deadq, system.platform)
    try:
        target.open(tx)
        target.put(tx, build(header) + message.payload, PutOptions(persistent=False, priority=message.priority))
        target.close(tx)
    except MQError as error:
        return f"the dead-letter queue {deadq}, which refused it ({error}): dropped"
    return f"the dead-letter queue {deadq}"
