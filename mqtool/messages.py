"""The one message catalogue: every message id mqtool prints, with its text template
and its meaning. Handlers return `Message(id, fields)`; renderers call `text()`.

Templates use `str.format` fields. A template with newlines is a multi-line message:
the first line follows the id, the others stand alone (as in the z/TPF STAT display).
`man/mqtool-messages.7` is checked against this table by a test.
"""

from __future__ import annotations

from typing import Any, NamedTuple

ECHO = "ECHO"  # not a message: a line printed as given (the `.echo` directive)


class Entry(NamedTuple):
    template: str
    meaning: str


CATALOGUE: dict[str, Entry] = {
    ECHO: Entry("{text}", "Text printed by the .echo directive, as given."),
    # ---------------------------------------------------------------- mqtool (tool)
    "MQT0001E": Entry(
        "Unknown command '{word}': not ZMQSC, ZHTPS, a CPF or an MQSC verb",
        "The first word of a line names no dialect.",
    ),
    "MQT0002E": Entry(
        "Unknown directive .{name}; .help lists them", "A line starts with a dot but names no directive."
    ),
    "MQT0003E": Entry("Directive .{name}: {reason}", "A directive's arguments are wrong; the reason says how."),
    "MQT0004I": Entry("Current system is {system} ({platform})", "The .system directive switched systems."),
    "MQT0005E": Entry("No system named {system}; systems: {known}", "A system name that the complex does not hold."),
    "MQT0006I": Entry(
        "Clock advanced {seconds}s to {time}; {timers} timer runs", "The .advance directive moved the clock."
    ),
    "MQT0007E": Entry(
        "No {platform} system in the complex for this command", "A dialect was used with no system of its platform."
    ),
    "MQT0008E": Entry("Unbalanced apostrophes in '{token}'", "A directive line has an odd number of quotes."),
    "MQT0009E": Entry("Command is empty", "A line holds only a prefix, with no verb."),
    "MQT0011E": Entry(
        "Current system {system} is not z/OS: prefix the command with a CPF ({cpfs}) or use .system",
        "An MQSC command without a CPF while the current system is z/TPF.",
    ),
    # ---------------------------------------------------------------- z/TPF MQ (ZMQSC)
    "CSMP0097I": Entry(
        "{time} CPU-{processor} SS-{subsystem} SSU-{ssu} IS-{istream}",
        "The z/TPF console header that starts every ZMQSC and ZHTPS response (local time, console identity).",
    ),
    "MQSC0001I": Entry("{command} COMPLETED", "A DEFINE, ALTER, DELETE, CLEAR, START, STOP or RESET completed."),
    "MQSC0002I": Entry("START OF {object} DISPLAY", "The title of an object display; one block per object follows."),
    "MQSC0003I": Entry("NO {object} FOUND MATCHING {name}", "A DISPLAY found no object with that (generic) name."),
    "MQSC0004I": Entry("QUEUE MANAGER {qmgr} STARTED", "START QMGR made the queue manager active."),
    "MQSC0005I": Entry("QUEUE MANAGER {qmgr} STOPPED", "STOP QMGR stopped the queue manager."),
    "MQSC0006I": Entry("QL-{name} CREATED WITH QMGR-{qmgr}", "DEFINE QMGR also created this system queue."),
    "MQSC0010E": Entry(
        "QUEUE MANAGER NOT DEFINED - ENTER ZMQSC DEFINE QMGR-name FIRST",
        "Queues and channels need the queue manager to be defined first.",
    ),
    "MQSC0011E": Entry("VERB {verb} NOT RECOGNIZED - VALID VERBS ARE {allowed}", "The verb is not a ZMQSC verb."),
    "MQSC0012E": Entry(
        "OBJECT {object} NOT VALID FOR {verb} - VALID OBJECTS ARE {allowed}",
        "The object type is missing or not valid with this verb.",
    ),
    "MQSC0013E": Entry(
        "KEYWORD {keyword} NOT VALID FOR {object} - VALID KEYWORDS ARE {allowed}",
        "The keyword does not exist for this object type.",
    ),
    "MQSC0014E": Entry(
        "VALUE {value} NOT VALID FOR {keyword} - ALLOWED {allowed}",
        "A keyword's value is out of range or not one of the allowed values.",
    ),
    "MQSC0015E": Entry("KEYWORD {keyword} SPECIFIED MORE THAN ONCE", "A keyword may be given once per command."),
    "MQSC0016E": Entry("KEYWORD {keyword} REQUIRED {detail}", "A keyword that this command needs is missing."),
    "MQSC0017E": Entry("{object}-{name} ALREADY EXISTS", "DEFINE of an object that exists."),
    "MQSC0018E": Entry("{object}-{name} NOT FOUND", "The named object does not exist."),
    "MQSC0019E": Entry(
        "QL-{name} NOT EMPTY - CURRENT DEPTH {depth} - SPECIFY PURGE",
        "DELETE of a queue that holds messages, without PURGE.",
    ),
    "MQSC0020E": Entry(
        "KEYWORD {keyword} CANNOT BE ALTERED - DELETE AND REDEFINE {object}-{name}",
        "An attribute fixed at DEFINE (COMMON, CHLTYPE).",
    ),
    "MQSC0021E": Entry("NAME {name} NOT VALID FOR {object} - {reason}", "An object name breaks the naming rules."),
    "MQSC0022E": Entry(
        "KEYWORD {keyword} NOT VALID {detail}",
        "A keyword that exists but does not apply here (wrong verb, channel type or queue kind).",
    ),
    "MQSC0023E": Entry(
        "CHL-{name} IS {state} - STOP THE CHANNEL FIRST", "The channel must be stopped for this command."
    ),
    "MQSC0024E": Entry("UNBALANCED APOSTROPHES IN {token}", "A quoted value is not closed."),
    "MQSC0025E": Entry(
        "SYSTEM {system} IS A {platform} SYSTEM - {command} NEEDS A Z/TPF SYSTEM - ENTER {hint}",
        "A ZMQSC or ZHTPS command while the current system is not z/TPF.",
    ),
    "MQSC0026E": Entry("{object} NAME REQUIRED", "The object type needs a name: OBJ-name."),
    "MQSC0027E": Entry("{token} NOT IN KEYWORD-VALUE FORM", "A parameter is not KEYWORD-value or a known flag."),
    "MQSC0028E": Entry("QUEUE MANAGER {qmgr} ALREADY DEFINED", "A z/TPF system has at most one queue manager."),
    "MQSC0029E": Entry(
        "{object}-{name} IS REFERENCED BY {refs} - DELETE OR ALTER THEM FIRST",
        "The object is in use by another definition (an alias target, a channel's XMITQ).",
    ),
    "MQSC0030E": Entry("{keyword}-{value} CONFLICTS WITH {other}", "Two attributes that cannot go together."),
    "MQSC0031E": Entry(
        "QUEUE {name} IS NOT A TRANSMISSION QUEUE (USAGE-XMITQ)",
        "A sender channel's XMITQ must be a local queue with USAGE-XMITQ.",
    ),
    "MQSC0032E": Entry("NAME {name} ALREADY USED BY {object}-{name}", "Queue names are unique across QL, QA and QR."),
    "MQSC0033E": Entry(
        "QUEUE MANAGER {qmgr} STILL HAS {count} QUEUE(S) OR CHANNEL(S) - DELETE THEM FIRST",
        "DELETE QMGR while queues (other than the system queues) or channels remain.",
    ),
    "MQSC0034E": Entry("QUEUE MANAGER {qmgr} ALREADY STARTED", "START QMGR while the queue manager is active."),
    "MQSC0035E": Entry("QUEUE MANAGER {qmgr} ALREADY STOPPED", "STOP QMGR while the queue manager is stopped."),
    "MQSC0036E": Entry(
        "{keyword} QUEUE {name} NOT DEFINED - DEFINE IT FIRST",
        "A queue named by TARGQ, XMITQ or DEADQ (at ALTER QMGR) must exist when the command is entered.",
    ),
    "MQSC0037E": Entry(
        "QL-{name} IS A SYSTEM QUEUE - IT IS DELETED WITH THE QUEUE MANAGER",
        "DEAD.LETTER.QUEUE and SPECIAL.RECOVERY.QUEUE go only with DELETE QMGR.",
    ),
    "MQSC0038E": Entry(
        "MAXMSGL {value} IS LESS THAN MAXMSGL {queue_value} OF {object}-{name} - LOWER THE QUEUES FIRST",
        "The queue manager's MAXMSGL may not fall below a local queue's MAXMSGL.",
    ),
    "MQSC0039E": Entry(
        "{keyword}-{name} IS {actual} - {keyword} MUST NAME {wanted}",
        "A queue named by TARGQ or DEADQ exists but is of the wrong kind.",
    ),
    # ---------------------------------------------------------------- z/TPF HTTP (ZHTPS)
    # ---------------------------------------------------------------- MQ for z/OS
    "CSQ9022I": Entry(
        "' {verb_words}' NORMAL COMPLETION", "The last line of a z/OS command that completed (full verb and object)."
    ),
    "CSQ9023E": Entry(
        "' {verb_words}' ABNORMAL COMPLETION", "The last line of a z/OS command that failed or was not understood."
    ),
    "CSQ9000E": Entry("'{keyword}' appears more than once", "A keyword was repeated, or given with its negation."),
    "CSQ9001E": Entry("'{keyword}' is invalid", "A keyword is unknown, misspelled, or does not apply here."),
    "CSQ9002E": Entry("Unbalanced parentheses following '{keyword}'", "A value's parentheses do not match."),
    "CSQ9003E": Entry("'{keyword}' parameter contains unbalanced apostrophes", "A quoted value is not closed."),
}


def text(msg_id: str, fields: dict[str, Any]) -> str:
    """The message text with its fields filled in."""
    return CATALOGUE[msg_id].template.format(**fields)
