"""The one message catalogue: every message id mqtool prints, with its text template
and its meaning. Handlers return `Message(id, fields)`; renderers call `text()`.

Templates use `str.format` fields. A template with newlines is a multi-line message:
the first line follows the id, the others stand alone (as in the z/TPF STAT display).
`man/mqtool-messages.7` is checked against this table by a test.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

ECHO = "ECHO"  # not a message: a line printed as given (the `.echo` directive)


class Entry(tuple[str, str]):
    """A message's template and meaning. A tuple written out rather than a NamedTuple,
    whose class is compiled from source when the catalogue is imported by every command
    (issue 19, start-up)."""

    __slots__ = ()

    def __new__(cls, template: str, meaning: str) -> Entry:
        return tuple.__new__(cls, (template, meaning))

    template = property(itemgetter(0), doc="The text, with str.format fields.")
    meaning = property(itemgetter(1), doc="What the message means (mqtool-messages(7)).")

    def __repr__(self) -> str:
        return f"Entry(template={self[0]!r}, meaning={self[1]!r})"


CATALOGUE: dict[str, Entry] = {
    ECHO: Entry("{text}", "Text printed by the .echo directive, as given."),
    # ---------------------------------------------------------------- mqtool (tool)
    "MQT0001E": Entry(
        "Unknown command '{word}': not ZMQSC, ZMQID, ZHTPS, a CPF or an MQSC verb",
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
        "Current system {system} is not z/OS and this session has used no z/OS system: "
        "prefix the command with a CPF ({cpfs}) or use .system",
        "An MQSC command without a CPF while the current system is z/TPF, the session has not used "
        "a z/OS system yet and the complex has several.",
    ),
    "MQT0012E": Entry(
        "Command is longer than {limit} characters with its continuation lines; it was not run",
        "A command (all its lines) longer than the longest that mqtool reads; the rest of it is skipped.",
    ),
    "MQT0013E": Entry(
        "Unknown command prefix '{word}': the CPFs of the complex are {cpfs}",
        "A line starts like a command prefix that no z/OS system has; the message lists those there are.",
    ),
    "MQT0014E": Entry(
        "Unknown command '{word}': did you mean {suggestion}?",
        "The first word names no dialect but is close to ZMQSC, ZHTPS or an MQSC verb.",
    ),
    "MQT0015I": Entry(
        "Did you mean '{suggestion}'?",
        "Follows CSQ9001E when the unknown verb, object type or keyword is close to one the MQSC table knows.",
    ),
    "MQT0016I": Entry(
        "{word} NOT RECOGNIZED - DID YOU MEAN {suggestion}",
        "Follows a ZHTPS error when the unknown verb, object or keyword is close to one the table knows.",
    ),
    # IBM MQ for z/OS commands mqtool does not implement, the log and traces (z/OS framing)
    "MQT0400E": Entry(
        "'{command}' is an IBM MQ for z/OS command: recognised, not available in mqtool",
        "An MQSC command (or command and object) that IBM MQ for z/OS has and mqtool does not implement; "
        "nothing was changed. mqtool-zos(7) lists them.",
    ),
    "MQT0401E": Entry(
        "ARCHIVE LOG NOT PROCESSED - THE LOG PARAMETERS OF {system} SAY OFFLOAD=NO",
        "ARCHIVE LOG needs archiving on (OFFLOAD=YES in the system's log parameters); nothing was changed.",
    ),
    # publish/subscribe (bread-pubsub)
    "MQT0420E": Entry(
        "PUBLISH/SUBSCRIBE IS NOT ACTIVE ON {qmgr}, PSMODE({psmode}) - {command} NOT PROCESSED",
        "A subscription or topic status command (DEFINE, ALTER or DELETE SUB, DISPLAY SBSTATUS or TPSTATUS, "
        "CLEAR TOPICSTR) while the queue manager's PSMODE is DISABLED; CSQM090E follows with X'00000CF6' "
        "(3318 MQRCCF_PUBSUB_INHIBITED). mqtool's id: IBM's console answer is not documented.",
    ),
    "MQT0402E": Entry(
        "TRACE NOT STARTED - ALL {count} TRACE NUMBERS ARE IN USE",
        "START TRACE while the most traces mqtool keeps are active; STOP TRACE frees a number.",
    ),
    "MQT0201I": Entry(
        "{server} {method} {path} HTTP/{version}: {status} {reason}, Content-Encoding: {coding}, "
        "Content-Length: {length}, {decoded} bytes decoded",
        "The .http directive's request was answered; sizes are the body as sent and as decoded.",
    ),
    "MQT0202E": Entry(
        "HTTP server {server} of {system} is not started; ZHTPS START SERVER-{server} starts it",
        ".http names a server that is not started.",
    ),
    "MQT0203E": Entry("HTTP request to {server} failed: {reason}", ".http could not connect, or the connection broke."),
    "MQT0204E": Entry(
        "{server} answered {status} with a body that cannot be decoded: {reason}",
        "The response's Content-Encoding does not match its body.",
    ),
    "MQT0205E": Entry(
        ".{name} needs a z/TPF system; the current system {system} is {platform}",
        ".http or .httpconf while the current system is not z/TPF (use .system).",
    ),
    "MQT0206I": Entry("Wrote {file} of {system} ({lines})", ".httpconf wrote a server's configuration file."),
    "MQT0207E": Entry(".httpconf: cannot write {file}: {reason}", "The configuration file could not be written."),
    # automation: JSON responses, WHERE, apply (mqtool cmd/run --format json, mqtool apply)
    "MQT0301E": Entry(
        "A WHERE filter applies to an MQSC DISPLAY only, not to: {command}",
        "The JSON interface was given a where clause for a command that is not an MQSC DISPLAY.",
    ),
    # the MQ REST API stand-in (mqtool rest, mqtool serve): its console lines, then the ids of the
    # error JSON it answers with: IBM mqweb's MQWB ids where IBM documents one, else mqtool's own.
    "MQT0350I": Entry(
        "REST API listening on {scheme}://{address}/ibmmq/rest/v2 ({users})",
        "mqtool serve (or the shell) opened the REST listener that mqtool rest init configured.",
    ),
    "MQT0351E": Entry(
        "REST API cannot listen on {address}: {reason}; trying again every {seconds}s",
        "The REST listener could not be opened (the port is in use, or the address is not this machine's).",
    ),
    "MQT0352E": Entry(
        "REST API configuration {path} cannot be used: {reason}",
        "rest.yaml is damaged or was edited wrongly; nothing listens until it is fixed (mqtool rest init --force).",
    ),
    # trust-rest: https, failed logins and their throttling (console lines of the REST listener)
    "MQT0353E": Entry(
        "REST API cannot serve https: {reason}; the listener is not opened until the files or rest.yaml change",
        "The certificate or key that rest.yaml names for https could not be loaded when the listener started "
        "(missing, unreadable, not PEM, an encrypted key, a key that does not match the certificate); the rest "
        "of mqtool serve goes on.",
    ),
    "MQT0354W": Entry(
        "REST API login failed for user {user} from {address} ({count} in a row from that address)",
        "A request's credentials matched no user of rest.yaml (an unknown user or a wrong password). Reported "
        "for the first failure of a run from an address and then at 2, 4, 8 ... failures in a row.",
    ),
    "MQT0355W": Entry(
        "REST API slows logins from {address}: {count} failures in a row; each further attempt from it waits "
        "{delay}s, doubling up to {cap}s, until one succeeds",
        "Repeated failed logins from one client address: its further attempts are answered only after a delay "
        "(mqtool-rest(7), THROTTLING); other addresses are not delayed.",
    ),
    "MQT0360E": Entry(
        "The request body is not valid JSON: {problem}",
        "A POST to the mqsc resource whose body does not parse as JSON (or is not UTF-8). Nothing was run.",
    ),
    "MQT0361E": Entry(
        "The request body must be a JSON object, not {kind}",
        "A POST to the mqsc resource whose JSON body is an array, a string or a number. Nothing was run.",
    ),
    "MQT0362E": Entry(
        "The request body's {field} {problem}",
        "A field of a runCommand or runCommandJSON body is missing, of the wrong JSON type or has an unknown "
        "value (type must be runCommand or runCommandJSON). Nothing was run.",
    ),
    "MQT0363E": Entry(
        "The {method} method is not allowed for {path}; allowed: {allowed}",
        "A known resource was asked with a method it does not take (the Allow header lists those it takes).",
    ),
    "MQT0364E": Entry(
        "Queue {queue} does not exist on queue manager {qmgr}",
        "The messaging API named a queue the queue manager does not have (MQRC 2085).",
    ),
    "MQT0365E": Entry(
        "The request body is larger than {limit} bytes",
        "A body over the listener's maxbody (rest.yaml) was refused before it was read whole.",
    ),
    # trust-rest: one value per runCommandJSON parameter, and command authority
    "MQT0366E": Entry(
        "The value of parameter {keyword} {problem}",
        "A runCommandJSON parameter value that cannot be one value of its keyword (an object, an array for a "
        "keyword that takes one value, a control character, more characters than the keyword takes). "
        "Nothing was run.",
    ),
    "MQT0367E": Entry(
        "{command} NOT AUTHORIZED FOR REST API USER {user} - NO COMMAND AUTHORITY (MQRC 2035)",
        "A MQWebUser sent a z/TPF command that changes something and `mqtool rest init --grant` did not grant "
        "it that verb; nothing was run (completionCode 2, reasonCode 2035).",
    ),
    # rest-pymqrest: what IBM's runCommandJSON does not take
    "MQT0369E": Entry(
        "The MQSC command {command} is not supported in a JSON formatted command (runCommandJSON); send it "
        "with runCommand",
        "IBM's REST API documents DISPLAY ARCHIVE, CHINIT, GROUP, LOG, SECURITY, SYSTEM, THREAD, TRACE and "
        "USAGE as not supported in a runCommandJSON body (their replies are lines, not objects); the request "
        "is answered 400 and nothing is run. The status and the id are inferred: IBM's own are not documented.",
    ),
    "CSQN205I": Entry(
        "  COUNT={count:>8}, RETURN={code}, REASON={reason}",
        "The first line of a z/OS command server reply (REST runCommand): the replies that follow, counting "
        "this one, and the return and reason codes in hexadecimal (0000000C and 00000008 when the command failed).",
    ),
    "MQWB0000E": Entry(
        "An unexpected exception {exception} occurred.",
        "An exception was thrown which is not otherwise handled (mqtool: an internal error; nothing was committed).",
    ),
    "MQWB0009E": Entry(
        "Could not query the queue manager '{qmgr}'.",
        "The REST API was invoked specifying a queue manager name which cannot be located.",
    ),
    "MQWB0100E": Entry(
        "The CSRF header {header} was omitted from the request.",
        "The REST API request cannot be completed because the CSRF header was omitted.",
    ),
    "MQWB0103E": Entry(
        "Not authorized to {action} {target}.",
        "The authenticated principal is not authorized to perform the requested REST API operation.",
    ),
    "MQWB0104E": Entry(
        "The REST API request to {uri} is not authenticated.",
        "The REST API request cannot be completed because credentials were omitted from the request "
        "(or do not match a user of rest.yaml).",
    ),
    "MQWB0116E": Entry(
        "The URI cannot be invoked as it does not correspond to an existing REST interface.",
        "There is no corresponding REST interface on the provided URI.",
    ),
    "MQWB0300E": Entry(
        "Cannot create messaging connection to {qmgr} on {host}.",
        "The queue manager or destination might not be created or active (mqtool: the queue manager is stopped).",
    ),
    "MQWB0302E": Entry(
        "The {header} request header cannot be set as {value} is not a valid request header value.",
        "The API request cannot be completed because an invalid value was specified for a request header.",
    ),
    "MQWB0303E": Entry(
        "An unforeseen error occurred while sending, publishing, receiving, or browsing the message.",
        "An underlying error occurred while sending, publishing, receiving, or browsing the message "
        "(mqtool: the queue manager refused it; reasonCode says why).",
    ),
    "MQWB0305E": Entry(
        "The character set {charset} is not acceptable for the request.",
        "The request is encoded using an unacceptable character set.",
    ),
    "MQWB0306E": Entry(
        "The media type is unsupported for this type of request.",
        "The request attempted to use an unsupported media type.",
    ),
    # engine workload: puts, gets, the console, serve (mqtool put/get/console/serve, .put/.get/.console)
    "MQT0101I": Entry(
        "Put {messages} to {queue}{route}: {length}, stored {stored}; {compressed} compressed, {persistent} persistent",
        "Messages were put (and committed); sizes are original and stored (after queue compression) totals.",
    ),
    "MQT0102I": Entry(
        "Message {number} put to {queue}: MSGID {msgid}, {length}, stored {stored}{codec}",
        "Acknowledges one message: it is committed to the store (persistent ones survive a crash).",
    ),
    "MQT0103I": Entry(
        "Sweeper ran {sweeps} times, every {interval}s on average: {swept} messages swept, {ios} I/Os, "
        "{per_message} I/Os per message put",
        "The sweeps that happened while a .put with every= ran (the sweeper's interval and I/O cost).",
    ),
    "MQT0368E": Entry(
        "Queue manager {qmgr} has no publish/subscribe: {detail}",
        "A REST topic publish to a z/TPF queue manager (z/TPF MQ has no topics); nothing was published.",
    ),
    "MQT0104I": Entry(
        "Published {messages} on topic '{topic}': {copies} delivered to subscriptions' queues{retained}",
        "mqtool put --topic, .put topic= (z/OS): each publication went, in its unit of work, to every matching "
        "subscription's destination; the copies are counted (publish/subscribe, bread-pubsub).",
    ),
    # subscriptions that applications make (mqtool get --topic, .subscribe, .unsubscribe; pubsub-more)
    "MQT0160I": Entry(
        "Subscribed to topic '{topic}': {kind} subscription {name}, SUBID {subid}; publications arrive on "
        "{queue}{retained}",
        "An application's subscription (MQSUB) was made or, durable, taken up again: its name, SUBID and the "
        "managed queue the publications arrive on; a new one first receives the retained publications it matches.",
    ),
    "MQT0161I": Entry(
        "Subscription {name} ended{queue}",
        "MQCLOSE of a non-durable subscription (or of a durable one with remove): it is removed, with its managed "
        "queue and the messages still on it.",
    ),
    "MQT0162I": Entry(
        "Subscription {name} closed; it stays (durable) with its queue {queue}{left}",
        "MQCLOSE of a durable subscription: it goes on receiving publications on its queue until taken up again "
        "or removed (DELETE SUB, or remove).",
    ),
    "MQT0110I": Entry(
        "{verb} {queue} message {number}: MSGID {msgid}, {length} bytes{stored}, {persistence}, "
        "priority {priority}{swept}{data}",
        "One message got or browsed by .get: its id, size (stored size when compressed) and a preview.",
    ),
    "MQT0111I": Entry("{verb} {messages} from {queue}", "How many messages a get or browse returned."),
    "MQT0112I": Entry(
        "No more messages on {queue}: {reason}", "A get or browse of all messages reached the end of the queue."
    ),
    "MQT0120E": Entry(
        "{action} {queue} failed: {reason}",
        "The queue manager refused a put or get; the MQ reason code says why. Nothing was changed by it.",
    ),
    "MQT0121E": Entry("{source}: {reason}", "A payload for a put could not be read (file, option or input)."),
    "MQT0150E": Entry(
        "Message {number} of {queue}: MSGID {msgid}, {length} of binary data, not written to the terminal; "
        "it stays on the queue (redirect standard output, or use --out DIR or --raw)",
        "mqtool get would have written a binary payload to a terminal: the get stops and the message stays.",
    ),
    "MQT0151I": Entry(
        "Message {number} of {queue}: MSGID {msgid}, {length} of binary data, not shown on the terminal "
        "(redirect standard output, or use --out DIR or --raw)",
        "mqtool get --browse met a binary payload while writing to a terminal: it is not shown.",
    ),
    "MQT0152W": Entry(
        "Put {messages} to {queue}{route}: {length}, stored {stored}; {compressed} compressed, "
        "{persistent} persistent; {ending}",
        "A put was interrupted (Ctrl-C) or stopped by a failure of the store: the messages counted were "
        "committed, the rest were not put.",
    ),
    "MQT0153I": Entry(
        "Queue {queue} is not defined on {system}; define it first: {command}",
        "Follows MQRC 2085 (MQRC_UNKNOWN_OBJECT_NAME) of a put or get: the command that defines the queue.",
    ),
    "MQT0130I": Entry(
        "Console messages since the last .console: {count}",
        "The .console directive's header; the console lines follow, each after its system's name.",
    ),
    "MQT0140I": Entry(
        "Serving {systems} in real time (timers{services}); Ctrl-C stops",
        "mqtool serve started its loop; console messages follow as they arise.",
    ),
    "MQT0141I": Entry("Stopped serving after {seconds}s", "mqtool serve stopped cleanly (Ctrl-C or SIGTERM)."),
    # capacity planning (mqtool estimate)
    "MQT0600I": Entry(
        "Estimated {messages} ({bytes}) from {origin}{skipped}",
        "mqtool estimate measured these messages; its report follows. Nothing was written to the store.",
    ),
    "MQT0601E": Entry(
        "Cannot read {source}: {reason}; the other inputs are still estimated",
        "An input of mqtool estimate could not be read (or is no MQ message); the report leaves it out and "
        "the exit status is 1.",
    ),
    "MQT0602W": Entry(
        "{count} not UTF-8 text: measured as they are, not in {encoding}",
        "mqtool estimate --encoding could not re-encode these messages; their figures are of the original bytes.",
    ),
    # idle time, statistics retention and full disks (mqtool smf purge, the tick)
    "MQT0710I": Entry(
        "Purged {queue_records}, {log_records} and {topic_records} of {system} ({which})",
        "mqtool smf purge removed the statistics records of the intervals named, as SMF data sets are offloaded.",
    ),
    "MQT0711I": Entry(
        "Would purge {queue_records}, {log_records} and {topic_records} of {system} ({which}); nothing was removed",
        "mqtool smf purge --dry-run: what a purge would remove.",
    ),
    "MQT0712W": Entry(
        "Timers due since {since} did not run: {reason}; they run at the next command that can write",
        "The catch-up of the timers (statistics intervals, expiry, channels, the z/TPF monitor) at the start "
        "of a command could not write to the store: it is deferred, and the command (a DISPLAY, a browse) "
        "goes on. Said once per process.",
    ),
    "MQT0713W": Entry(
        "Browsed {queue} without counting: {reason}",
        "A browse on a store that cannot be written (a full disk) shows the messages; its MQOPEN, browse and "
        "MQCLOSE counts are not kept.",
    ),
    # channels, in the platform's framing (mqtool's ids: no IBM message says these)
    "MQT0509I": Entry("Channel initiator stopped", "Console (z/OS): STOP CHINIT ended the channel initiator."),
    "MQT0510E": Entry(
        "Channel {name} cannot connect to {conname}: no queue manager listens there, retrying in {seconds}s",
        "Console (z/OS): the sender's CONNAME is no system's listener (mqtool system alter --listener).",
    ),
    "MQT0511E": Entry(
        "Channel {name}: queue manager {qmgr} at {conname} is not active, retrying in {seconds}s",
        "Console (z/OS): the partner queue manager is stopped.",
    ),
    "MQT0512E": Entry(
        "Channel {name}: the channel initiator of {qmgr} at {conname} is not active, retrying in {seconds}s",
        "Console (z/OS): the partner's channel initiator is stopped.",
    ),
    "MQT0513E": Entry(
        "Channel {name}: the receiver on {qmgr} is in use by {other}, retrying in {seconds}s",
        "Console (z/OS): the partner's receiver is bound to a sender of another system.",
    ),
    "MQT0514E": Entry(
        "Channel {name}: channel {name} on {qmgr} is CHLTYPE({chltype}), not a receiver, retrying in {seconds}s",
        "Console (z/OS): the partner's channel of that name is not a receiver.",
    ),
    "MQT0515E": Entry(
        "Channel {name} cannot get from transmission queue {queue}, mqrc={reason} ({rcname}), retrying in {seconds}s",
        "Console (z/OS): the transmission queue is missing or not USAGE(XMITQ) (2085), GET(DISABLED) (2016), or "
        "used by another running sender (2042).",
    ),
    "MQT0516E": Entry(
        "Channel {name}: queue manager {qmgr} is not active, retrying in {seconds}s",
        "Console: the channel's own queue manager (or its channel initiator) is stopped.",
    ),
    "MQT0517E": Entry(
        "Channel {name} batch backed out: {detail}; retrying in {seconds}s",
        "Console (z/OS): a batch failed (corrupt compressed data, an unexpected error); nothing of it was "
        "delivered and its messages stay on the transmission queue.",
    ),
    "MQT0518E": Entry(
        "Channel {name} batch backed out: a message for {queue} cannot go to dead-letter queue {deadq} of {qmgr}, "
        "mqrc={reason} ({rcname}); retrying in {seconds}s",
        "Console (z/OS): a message could not be delivered nor put to the partner's dead-letter queue.",
    ),
    "MQT0519I": Entry(
        "Channel {name} in-doubt batch, sequence numbers {first}-{last} ({count} messages), {action} with {qmgr}",
        "Console (z/OS): a batch left in doubt (a process ended between its two commits) was resolved with the "
        "receiver.",
    ),
    "MQT0523E": Entry(
        "Channel {name}: the receiver on {qmgr} ended, retrying in {seconds}s",
        "Console (z/OS): the running sender's receiver is no longer bound to it (its channel initiator stopped).",
    ),
    "MQT0524E": Entry(
        "Channel {name}: transmission queue {queue} is GET(DISABLED), the batch in doubt stays",
        "RESOLVE CHANNEL ACTION(COMMIT) cannot remove the batch's messages from a GET(DISABLED) transmission queue.",
    ),
    # net-transport: listeners and channels over TCP, in the z/OS framing (mqtool's ids
    # where IBM's catalogue has no message for the event)
    "MQT0530E": Entry(
        "Listener for port {port} address {address} not started: {reason}",
        "START LISTENER of an address that overlaps one this queue manager, or another system of the store, "
        "listens on (IBM: the same, a subset or a superset of an address and port already listened on).",
    ),
    "MQT0531E": Entry(
        "No listener started for port {port} address {address}",
        "STOP LISTENER named no listener of the queue manager (IBM's reason 3234, MQRCCF_LISTENER_STOPPED).",
    ),
    "MQT0532I": Entry(
        "Listener for port {port} address {address} has no socket: no mqtool serve or shell runs on this store",
        "DISPLAY CHINIT: the listener is started (channels of the store reach the system through it), but only a "
        "serving loop opens its socket for other stores and machines.",
    ),
    "MQT0533I": Entry(
        "Listener for port {port}: {connections} connections, {channels} channels started, {refused} refused, "
        "{blocked} blocked by CHLAUTH, {dropped} closed before a channel started",
        "DISPLAY CHINIT, after a listener's CSQX846I (mqtool's line; z/OS has no listener status): what it counted "
        "since START LISTENER.",
    ),
    "MQT0540E": Entry(
        "Channel {name}: the partner at {conname} is not an mqtool channel listener ({detail}); an mqtool channel "
        "talks only to mqtool, never to an IBM MQ queue manager; retrying in {seconds}s",
        "Console: the first bytes from the CONNAME are not mqtool's wire preamble (mqtool-wire(7)).",
    ),
    "MQT0541E": Entry(
        "Channel {name}: the partner at {conname} speaks mqtool wire version {theirs}, this mqtool speaks "
        "version {ours}; retrying in {seconds}s",
        "Console, on both ends: the two mqtool installations use different wire versions; upgrade one of them.",
    ),
    "MQT0542E": Entry(
        "Channel {name}: protocol error with {conname}: {detail}; retrying in {seconds}s",
        "Console: the partner sent a frame this mqtool refuses (garbage, a length over the bound, a message "
        "longer than the channel's MAXMSGL, an unexpected frame); the connection is closed.",
    ),
    "MQT0543E": Entry(
        "Inbound channel {name} from {address} refused: {detail}",
        "Console of the receiving queue manager: a channel that came in through a listener could not start "
        "(not defined, stopped, of the wrong type, busy, a sequence number error, a version or TLS failure).",
    ),
    "MQT0544I": Entry(
        "Channel {name} connects to {conname} over TCP when mqtool serve or a shell runs on this store",
        "Console: no system of the store listens at the sender's CONNAME, so it is reached over TCP, which only a "
        "serving loop does; the channel stays BINDING until one runs.",
    ),
    "MQT0545E": Entry(
        "Channel {name} stopped after {retries} retries; START CHANNEL tries again",
        "Console: the channel used up SHORTRTY and LONGRTY and is STOPPED.",
    ),
    "MQT0547I": Entry(
        "Channel {name}: the sender on {qmgr} at {conname} calls this requester back",
        "Console: a requester started and its partner is a sender (SDR), which starts and connects back to it.",
    ),
    "MQT0548W": Entry(
        "Listener for port {port} address {address} closed {count} connection(s) before a channel started: {reasons}",
        "Console, at most one line a minute per listener: connections that sent garbage, nothing (idle past the "
        "bound), a frame over the bound, or came while the listener had as many waiting as it keeps.",
    ),
    "MQT0549W": Entry(
        "Listener for port {port} address {address} refused channel {name} from {address_from}: {count} channels "
        "are running, the most the listener takes",
        "Console: more channels than the listener runs at once (MAXCHL) asked to start; the newcomer retries.",
    ),
    "MQT0520E": Entry(
        "Channel {name}: {verb} is not valid for CHLTYPE({chltype})",
        "RESET of a server-connection channel, RESOLVE of a channel that is not a sender; START, STOP, PING, "
        "RESET or RESOLVE of a client-connection channel (CLNTCONN: a definition only).",
    ),
    "MQT0521E": Entry("Channel {name} is not in doubt", "RESOLVE CHANNEL of a sender with no batch in doubt."),
    "MQT0522I": Entry(
        "Channel {name} in-doubt batch of {count} messages {action}",
        "RESOLVE CHANNEL: COMMIT removed the batch's messages from the transmission queue, BACKOUT left them to be "
        "sent again.",
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
        "A ZMQSC command while the current system is z/OS; it names the z/TPF systems to switch to.",
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
    "MQSC0040E": Entry(
        "{word} NOT RECOGNIZED - DID YOU MEAN {suggestion}",
        "Follows MQSC0011E, MQSC0012E or MQSC0013E when the word is close to a verb, object or keyword of the table.",
    ),
    "MQSC0041E": Entry(
        "ZMQSC WRITES {token} AS {ztpf}{zos}",
        "Follows MQSC0027E for a KEYWORD(value) or OBJECT(name) in the z/OS manner: the ZMQSC form, and "
        "the MQSC command for z/OS when the word is a z/OS object type.",
    ),
    # engine: queue manager restart, the sweeper, QDEPTHHI, the SWB pool, statistics
    "MQSC0101I": Entry(
        "{kept} PERSISTENT MESSAGES KEPT - {dropped} NON-PERSISTENT MESSAGES DISCARDED",
        "START QMGR: memory and common queues keep their persistent messages and lose the others.",
    ),
    "MQSC0201I": Entry(
        "SWEEPER MOVED {messages} MESSAGES FROM {queues} QUEUES TO FILE - {swbs} SWBS FREED - {ios} I/OS - "
        "{after} OF {pool} SWBS IN USE",
        "The sweeper ran (SWBs in use reached SWEEPHI) and moved messages to file, oldest first.",
    ),
    "MQSC0202W": Entry(
        "SWEEP ABORTED - {after} OF {pool} SWBS STILL IN USE, ABOVE SWEEPLO {sweeplo}% - HELD BY {holders}",
        "The sweeper could not get below SWEEPLO: the rest is on SWEEP-NO queues or in a channel batch in flight.",
    ),
    "MQSC0203W": Entry(
        "SWB POOL EXHAUSTED - {in_use} OF {pool} SWBS IN USE - PUTS TO MEMORY QUEUES REFUSED (QL-{queue} MQRC 2053)",
        "A put found no SWBs left; such puts fail with MQRC 2053 until the pool has room again.",
    ),
    "MQSC0204W": Entry(
        "QL-{queue} DEPTH {depth} REACHED QDEPTHHI {percent}% OF MAXDEPTH {maxdepth}",
        "A queue's depth reached its QDEPTHHI threshold (said once until it falls below).",
    ),
    "MQSC0205I": Entry(
        "QL-{queue} DEPTH {depth} BELOW QDEPTHHI {percent}% OF MAXDEPTH {maxdepth}",
        "A queue that reached QDEPTHHI fell below it again (seen by the 5-second monitor).",
    ),
    "MQSC0251I": Entry(
        "LOCAL QUEUE STATISTICS DISPLAY: - {queue}\n"
        "Current Depth      - {depth}\n"
        "Persistent Msgs    - {persistent} ({persistent_size})\n"
        "NonPersist Msgs   - {nonpersistent} ({nonpersistent_size})\n"
        "Compression Ratio - {ratio_last} ({ratio})\n"
        "Compression Time - {time_last} ({time})\n"
        "Avg Msg Size on Q - {size_last} ({size}) bytes\n"
        "Avg Orig Size Comp - {orig_last} ({orig}) bytes\n"
        "Compressed Msgs   - {compressed}\n"
        "Decompressed Msgs - {decompressed}\n"
        "Compress per sec  - {compress_rate}\n"
        "Decompress per sec - {decompress_rate}\n"
        "Num of MQOPEN     - {opens}\n"
        "Num of MQCLOSE    - {closes}\n"
        "Num of SWB's in use - {swbs}\n"
        "Aborted Sweep Count - {aborted}\n"
        "Checkpoint High    - {ckpt_high} seconds\n"
        "Checkpoint Last    - {ckpt_last} seconds\n"
        "Chkpt in Progress - {ckpt_active}\n"
        "\tCount\tRate\tRateHigh\n"
        "Get\t- {gets}\t{get_rate}\t{get_high}\n"
        "Swept Search\t- {searches}\t{search_rate}\t{search_high}",
        "Local queue statistics (DISPLAY QL-name STAT): A (B) pairs are the last 5-second interval (since reset).",
    ),
    # channels (mqtool/engine/channels): console messages of the channel agents ...
    "MQSC0301I": Entry(
        "CHL-{name} STARTED - PARTNER {qmgr} AT {conname} - COMPMSG {technique} - BATCHSZ {batchsz}",
        "Console: a sender channel bound to its receiver and runs; the technique and batch size negotiated.",
    ),
    "MQSC0302I": Entry(
        "CHL-{name} STARTED - RECEIVING FROM {qmgr} - COMPMSG {technique}",
        "Console: a receiver channel was bound by its sender and runs.",
    ),
    "MQSC0303I": Entry("CHL-{name} STOPPED", "Console: STOP CHL ended the channel."),
    "MQSC0304I": Entry(
        "CHL-{name} INACTIVE - SENDER ON {qmgr} ENDED", "Console: a receiver's sender stopped or went to RETRYING."
    ),
    "MQSC0310W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - NO QUEUE MANAGER LISTENS AT {conname}",
        "Console: the sender's CONNAME is no system's listener address (mqtool system alter --listener).",
    ),
    "MQSC0311W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - QUEUE MANAGER {qmgr} AT {conname} IS STOPPED",
        "Console: the partner queue manager is stopped.",
    ),
    "MQSC0312W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - CHANNEL INITIATOR OF {qmgr} AT {conname} IS NOT ACTIVE",
        "Console: the partner is a z/OS queue manager whose channel initiator is stopped.",
    ),
    "MQSC0313W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - NO CHANNEL {name} ON {qmgr}",
        "Console: the partner queue manager has no channel of the sender's name.",
    ),
    "MQSC0314W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - RECEIVER {name} ON {qmgr} IS STOPPED",
        "Console: the partner's receiver channel is stopped (START it there).",
    ),
    "MQSC0315W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - RECEIVER {name} ON {qmgr} IS IN USE BY {other}",
        "Console: the partner's receiver is bound to a sender of another system.",
    ),
    "MQSC0316W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - CHANNEL {name} ON {qmgr} IS A {chltype}, NOT A RECEIVER",
        "Console: the partner's channel of that name is not a receiver (CHLTYPE RCVR).",
    ),
    "MQSC0317W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - CANNOT GET FROM QL-{queue} - MQRC {reason} ({rcname})",
        "Console: the transmission queue is missing or not USAGE-XMITQ (2085), GET-DISABLED (2016), "
        "or used by another running sender (2042).",
    ),
    "MQSC0318W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - QUEUE MANAGER {qmgr} IS STOPPED",
        "Console: the channel's own queue manager is stopped; the channel runs again after START QMGR.",
    ),
    "MQSC0319E": Entry(
        "CHL-{name} BATCH BACKED OUT - {detail} - RETRYING IN {seconds} SECONDS",
        "Console: a batch failed (corrupt compressed data, an unexpected error); nothing of it was delivered "
        "and its messages stay on the transmission queue.",
    ),
    "MQSC0320E": Entry(
        "CHL-{name} BATCH BACKED OUT - MESSAGE FOR {queue} CANNOT GO TO DEAD-LETTER QUEUE {deadq} OF {qmgr} - "
        "MQRC {reason} ({rcname}) - RETRYING IN {seconds} SECONDS",
        "Console: a message could not be delivered nor put to the partner's dead-letter queue.",
    ),
    "MQSC0321E": Entry(
        "CHL-{name} STOPPED - SEQUENCE NUMBER ERROR - SENT {sent} EXPECTED {expected} - "
        "ENTER ZMQSC RESET CHL-{name} SEQNUM-n",
        "Console: the receiver expects another sequence number than the sender's next one.",
    ),
    "MQSC0322I": Entry(
        "CHL-{name} IN-DOUBT BATCH SEQNUM {first}-{last} ({count} MESSAGES) {action} WITH {qmgr}",
        "Console: a batch left in doubt (a process ended between its two commits) was resolved with the receiver.",
    ),
    "MQSC0323W": Entry(
        "CHL-{name} {count} MESSAGE(S) FOR {queue} PUT TO DEAD-LETTER QUEUE {deadq} - MQRC {reason} ({rcname})",
        "Console: a receiver could not deliver messages and put them, with a dead-letter header, on its DEADQ.",
    ),
    "MQSC0324W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - RECEIVER {name} ON {qmgr} ENDED",
        "Console: the running sender's receiver is no longer bound to it (the partner's channel initiator stopped).",
    ),
    # net-transport: channels over TCP and the listeners (mqtool's ids)
    "MQSC0340W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - CANNOT CONNECT TO {conname} - {reason}",
        "Console: the TCP connection to the sender's CONNAME failed (refused, unreachable, timed out).",
    ),
    "MQSC0341W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - CONNECTION TO {conname} LOST - {detail}",
        "Console: the partner closed the connection or it broke; a batch recorded in doubt is resolved at the next "
        "start.",
    ),
    "MQSC0342W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - NO RESPONSE FROM {conname} IN {wait} SECONDS",
        "Console: the partner sent nothing for the heartbeat interval's bound (2 x HBINT below 60, else HBINT + 60).",
    ),
    "MQSC0343E": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - {conname} IS NOT AN MQTOOL LISTENER ({detail}) - "
        "MQTOOL CHANNELS DO NOT TALK TO IBM MQ",
        "Console: the first bytes from the CONNAME are not mqtool's wire preamble (mqtool-wire(7)).",
    ),
    "MQSC0344E": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - {conname} SPEAKS WIRE VERSION {theirs}, THIS MQTOOL {ours}",
        "Console, on both ends: the two mqtool installations use different wire versions.",
    ),
    "MQSC0345E": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - PROTOCOL ERROR WITH {conname} - {detail}",
        "Console: the partner sent a frame this mqtool refuses; the connection is closed.",
    ),
    "MQSC0346W": Entry(
        "CHL-{name} FROM {address} REFUSED - {detail}",
        "Console of the receiving queue manager: a channel that came in through a listener could not start.",
    ),
    "MQSC0347I": Entry(
        "CHL-{name} CONNECTS TO {conname} OVER TCP WHEN MQTOOL SERVE OR A SHELL RUNS",
        "Console: no system of the store listens at the CONNAME, so it is reached over TCP, which only a serving "
        "loop does; the channel stays BINDING until one runs.",
    ),
    "MQSC0348I": Entry(
        "CHL-{name} INACTIVE - NOTHING TO SEND FOR {seconds} SECONDS (DISCINT)",
        "Console: the sender's disconnect interval passed with nothing to send; START CHL starts it again.",
    ),
    "MQSC0349E": Entry(
        "CHL-{name} STOPPED AFTER {retries} RETRIES - ENTER ZMQSC START CHL-{name}",
        "Console: the channel used up SHORTRTY and LONGRTY and is STOPPED.",
    ),
    "MQSC0350E": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - TLS WITH {conname} FAILED - {detail}",
        "Console: a TLS record of a running channel could not be read (a communications error: the channel "
        "retries); failures of the handshake and its checks stop the channel with MQSC0380E.",
    ),
    "MQSC0352I": Entry(
        "CHL-{name} REQUESTER - SENDER ON {qmgr} AT {conname} CALLS BACK",
        "Console: a requester's partner is a sender, which starts and connects back to it.",
    ),
    "MQSC0353I": Entry(
        "CHANNEL TRANSPORT DISPLAY: - {name}\n"
        "Transport          - {transport}\n"
        "Peer Address       - {peer}\n"
        "CipherSpec         - {sslciph}\n"
        "Peer DN            - {sslpeer}\n"
        "Heartbeat Interval - {hbint}\n"
        "Frame Bytes        - {frames_last} ({frames})\n"
        "Socket Bytes       - {socket_last} ({socket})",
        "Follows MQSC0351I for a channel that ran over TCP: the bytes of its frames (message data as compressed, "
        "and control) and on the socket (after TLS): A (B) is the last batch (since the channel started).",
    ),
    "MQSC0354W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - BLOCKED BY {qmgr} AT {conname}",
        "Console: the partner queue manager's channel authentication records refused the channel (a z/OS "
        "partner says CSQX776E or CSQX777E); the sender retries.",
    ),
    "MQSC0360I": Entry(
        "LISTENER {address} STARTED ON PORT {port}", "Console: a serving loop opened the listener's socket."
    ),
    "MQSC0361I": Entry(
        "LISTENER {address} STOPPED", "Console: the listener's socket was closed (STOP, or the loop ended)."
    ),
    "MQSC0362W": Entry(
        "LISTENER {address} CANNOT LISTEN - {reason} - RETRYING",
        "Console: the socket could not be opened (the port is in use, the address is not this machine's).",
    ),
    "MQSC0363W": Entry(
        "LISTENER {address} CLOSED {count} CONNECTION(S) BEFORE A CHANNEL STARTED - {reasons}",
        "Console, at most one line a minute per listener: connections that sent garbage, nothing, a frame over the "
        "bound, or came while the listener had as many waiting as it keeps.",
    ),
    "MQSC0364W": Entry(
        "LISTENER {address} REFUSED CHL-{name} FROM {address_from} - {count} CHANNELS RUNNING",
        "Console: more channels than the listener runs at once asked to start.",
    ),
    "MQSC0365E": Entry(
        "LISTENER {address} NOT STARTED - {reason}",
        "START LISTENER of an address that overlaps one this or another system of the store listens on.",
    ),
    "MQSC0366E": Entry("NO LISTENER STARTED FOR {address}", "STOP LISTENER named no listener of the queue manager."),
    # channel security (issue 17): TLS on z/TPF MQ channels (mqtool's ids, inferred)
    "MQSC0380E": Entry(
        "CHL-{name} STOPPED - TLS FAILURE - {reason}",
        "Console: a TLS channel stopped: a cipher that does not match, a certificate not trusted or expired, "
        "none where one is required, an SSLPEER that does not match; the reason says which.",
    ),
    # trust-zos: a CONNAME is read when the channel starts (conname.py), not at DEFINE
    "MQSC0325W": Entry(
        "CHL-{name} RETRYING IN {seconds} SECONDS - CONNAME {conname} NOT VALID",
        "Console: the sender's CONNAME is no host(port), IPv4 or IPv6 address or list of them (a template "
        "such as <host>(1414) not yet filled in); ALTER it and the next retry reads it.",
    ),
    # ... and the answers to channel commands
    "MQSC0330I": Entry(
        "START CHL-{name} ACCEPTED", "START CHL: a sender binds to its partner at the next tick of the engine."
    ),
    "MQSC0331E": Entry("CHL-{name} IS ALREADY {state}", "START CHL of a channel that is running or binding."),
    "MQSC0332E": Entry(
        "{verb} NOT VALID FOR CHL-{name} - CHLTYPE-{chltype}", "The command does not apply to this channel type."
    ),
    "MQSC0351I": Entry(
        "CHANNEL STATISTICS DISPLAY: - {name}\n"
        "Channel Type       - {chltype}\n"
        "Status             - {state}\n"
        "Partner            - {partner}\n"
        "Compression        - {technique} ({last})\n"
        "Sequence Number    - {seq}\n"
        "In-doubt Msgs      - {indoubt}\n"
        "Batch Size         - {batchsz}\n"
        "Messages           - {msgs_last} ({msgs})\n"
        "Batches            - {batches}\n"
        "Bytes Before Comp  - {before_last} ({before})\n"
        "Bytes on Wire      - {wire_last} ({wire})\n"
        "Compression Ratio  - {ratio_last} ({ratio})\n"
        "Compression Time   - {time_last} ({time})\n"
        "Compressed Msgs    - {compressed}\n"
        "Sent As Stored     - {stored}\n"
        "Inflated To Send   - {inflated}\n"
        "Decompressed HW    - {hardware}\n"
        "Decompressed SW    - {software}\n"
        "Dead-letter Msgs   - {dead}",
        "Channel statistics (DISPLAY CHL-name STAT): A (B) pairs are the last batch (since the channel started).",
    ),
    # bread-ztpf: MIGRATE, MOVEMSGS, DBREBUILD, triggering, the channel status display and the
    # processor of a channel (texts mqtool's: TPF's are not documented; mqtool-ztpf(7))
    "MQSC0355I": Entry(
        "START OF CHL STATUS DISPLAY",
        "The title of DISPLAY CHL-name STATUS: one block of status lines per channel follows.",
    ),
    "MQSC0356E": Entry(
        "CHL-{name} IS DEFINED FOR CPU-{cpu} - ENTER THE COMMAND ON CPU-{cpu}",
        "START CHL of a channel whose CPU names another processor (CPU-ALL channels start anywhere).",
    ),
    "MQSC0401I": Entry(
        "MIGRATION MODE STARTED FOR QMGR-{qmgr} - {queues} PROCESSOR UNIQUE QUEUE(S) MIGRATED WITH SWEEP-NO",
        "MIGRATE BEGIN: definitions cannot change until COMMIT or FALLBACK; memory queues were set SWEEP-NO.",
    ),
    "MQSC0402I": Entry(
        "MIGRATION COMMITTED FOR QMGR-{qmgr} ON {processors}",
        "MIGRATE COMMIT ended migration mode on every processor (z/TPF system) of the queue manager.",
    ),
    "MQSC0403I": Entry(
        "MIGRATION FALLBACK COMPLETED FOR QMGR-{qmgr} - {queues} QUEUE(S) RESTORED",
        "MIGRATE FALLBACK ended migration mode here and gave the queues back the SWEEP they had before BEGIN.",
    ),
    "MQSC0404E": Entry(
        "MIGRATE COMMIT NOT PROCESSED - DEAD-LETTER QUEUE {deadq} HOLDS {depth} MESSAGE(S) - ENTER WITH FORCE",
        "MIGRATE COMMIT while the dead-letter queue holds messages, without FORCE.",
    ),
    "MQSC0405E": Entry(
        "{command} NOT ALLOWED IN MIGRATION MODE - ENTER ZMQSC MIGRATE COMMIT OR FALLBACK FIRST",
        "DEFINE or ALTER of a queue or channel, any DELETE, and DBREBUILD wait for the end of migration mode.",
    ),
    "MQSC0406E": Entry(
        "QMGR-{qmgr} IS NOT IN MIGRATION MODE - ENTER ZMQSC MIGRATE BEGIN FIRST",
        "MIGRATE COMMIT or FALLBACK without a MIGRATE BEGIN before.",
    ),
    "MQSC0407E": Entry("QMGR-{qmgr} IS ALREADY IN MIGRATION MODE", "MIGRATE BEGIN twice."),
    "MQSC0408E": Entry(
        "MIGRATE COMMIT NOT PROCESSED - CPU-{cpu} ({system}) IS ACTIVE AND NOT IN MIGRATION MODE - "
        "ENTER ZMQSC MIGRATE BEGIN THERE",
        "Every active processor of the queue manager (its queue manager started) must be in migration mode "
        "before COMMIT.",
    ),
    "MQSC0411I": Entry(
        "{moved} MESSAGE(S) MOVED FROM Q-{queue} OF CPU-{cpu} TO CPU-{here}",
        "MOVEMSGS moved every message of the queue from the deactivated processor, in one unit of work.",
    ),
    "MQSC0412W": Entry(
        "{moved} MESSAGE(S) MOVED FROM Q-{queue} OF CPU-{cpu} TO CPU-{here} - {left} LEFT THERE: {reason}",
        "MOVEMSGS with FORCE moved what could be moved; the rest stays on the deactivated processor.",
    ),
    "MQSC0413E": Entry(
        "NO PROCESSOR CPU-{cpu} WITH QMGR-{qmgr} IN THE COMPLEX",
        "MOVEMSGS names a processor that no z/TPF system of the complex (same queue manager, same subsystem) is.",
    ),
    "MQSC0414E": Entry(
        "CPU-{cpu} ({system}) IS ACTIVE - QUEUE MANAGER {qmgr} IS STARTED THERE - MOVEMSGS NEEDS A DEACTIVATED "
        "PROCESSOR",
        "MOVEMSGS from a processor whose queue manager runs (ZMQSC STOP QMGR there first).",
    ),
    "MQSC0415E": Entry(
        "Q-{queue} ON CPU-{cpu} IS {actual} - MOVEMSGS MOVES A NORMAL LOCAL MEMORY QUEUE",
        "The queue is missing on a processor, or is a transmission, common, alias or remote queue.",
    ),
    "MQSC0416E": Entry(
        "MOVEMSGS NOT PROCESSED - {reason} - NO MESSAGES MOVED - FORCE MOVES WHAT CAN BE MOVED",
        "Not every message could move (the target queue full, a message too long or damaged, no SWBs): none moved.",
    ),
    "MQSC0417E": Entry(
        "CPU-{cpu} IS THIS PROCESSOR - MOVEMSGS MOVES MESSAGES FROM ANOTHER ONE",
        "MOVEMSGS names the processor where it is entered.",
    ),
    "MQSC0421I": Entry(
        "DBREBUILD COMPLETED FOR QMGR-{qmgr} - {queues} LOCAL QUEUE(S), {definitions} DEFINITION(S), "
        "{messages} MESSAGE(S) CHECKED",
        "DBREBUILD checked every definition and message of the queue manager and rebuilt its queue directory.",
    ),
    "MQSC0422W": Entry(
        "QL-{queue} DIRECTORY REBUILT - {changes}",
        "DBREBUILD found a queue's directory entry (depth, SWBs, compressed messages, next sequence) wrong and "
        "rebuilt it from the queue's messages.",
    ),
    "MQSC0423W": Entry(
        "{count} MESSAGE(S) OF {queues} UNDEFINED QUEUE(S) REMOVED",
        "DBREBUILD removed messages (and directory entries) left for queues that are no longer defined.",
    ),
    "MQSC0424W": Entry(
        "QL-{queue} HOLDS {count} DAMAGED MESSAGE(S) - A GET REFUSES THEM WITH MQRC 2195",
        "DBREBUILD found messages whose stored bytes do not match their checksum; they stay where they are.",
    ),
    "MQSC0431I": Entry(
        "QL-{queue} TRIGGERED (TRIGTYPE-FIRST) - PROGRAM {program} ACTIVATED WITH MQTM FOR QL-{queue}",
        "Console: a message arrived on an empty queue with TRIGTYPE-FIRST and GET-ENABLED; the queue's PROCESS "
        "(or the user exit CUIR) was activated with the trigger message, when the put committed.",
    ),
    # ---------------------------------------------------------------- z/TPF MQI channel directory (ZMQID)
    # bread-ztpf: MQID0012I and MQID0013I are TPF's (the TPF newsletter on PUT 13); the other
    # ids and texts are mqtool's (mqtool-ztpf(7), THE MQI CHANNEL DIRECTORY).
    "MQID0001I": Entry("{command} COMPLETED", "A ZMQID DEFINE, ALTER or DELETE completed."),
    "MQID0002E": Entry(
        "CHANNEL {name} NOT IN THE MQI CHANNEL DIRECTORY",
        "ZMQID ALTER, DELETE or DISPLAY of an entry that is not there.",
    ),
    "MQID0003E": Entry("CHANNEL {name} ALREADY IN THE MQI CHANNEL DIRECTORY", "ZMQID DEFINE of a name that is there."),
    "MQID0004E": Entry(
        "MQI CHANNEL DIRECTORY FULL - IT HOLDS {limit} ENTRIES", "ZMQID DEFINE when the directory has 50 entries."
    ),
    "MQID0005E": Entry(
        "CONNECTION {value} NOT VALID FOR TRPTYPE-{trptype} - ALLOWED {allowed}",
        "The connection is not a host name or address (TCP) or an LU name (APPC).",
    ),
    "MQID0006E": Entry(
        "KEYWORD {keyword} NOT VALID FOR TRPTYPE-{trptype}", "MODE and TPNAME are for APPC channels only."
    ),
    "MQID0012I": Entry(
        "START OF ZMQID DISPLAY", "The title of ZMQID DISPLAY CH-name: every attribute of the entry follows."
    ),
    "MQID0013I": Entry(
        "START OF ZMQID DISPLAY",
        "The title of ZMQID DISPLAY CH-generic*: the channel, connection and queue manager of each entry follow.",
    ),
    "MQID0014I": Entry("NO CHANNEL FOUND MATCHING {name}", "A generic ZMQID DISPLAY found no entry."),
    "MQID0025E": Entry(
        "SYSTEM {system} IS A {platform} SYSTEM - {command} NEEDS A Z/TPF SYSTEM - ENTER {hint}",
        "A ZMQID command while the current system is z/OS; it names the z/TPF systems to switch to.",
    ),
    "MQID0031E": Entry("VERB {verb} NOT RECOGNIZED - VALID VERBS ARE {allowed}", "The verb is not a ZMQID verb."),
    "MQID0032E": Entry(
        "OBJECT {object} NOT VALID FOR {verb} - VALID OBJECTS ARE {allowed}",
        "ZMQID takes one object: CHannel-name (also CHL-name).",
    ),
    "MQID0033E": Entry(
        "KEYWORD {keyword} NOT VALID FOR {object} - VALID KEYWORDS ARE {allowed}", "The keyword is not a ZMQID keyword."
    ),
    "MQID0034E": Entry(
        "VALUE {value} NOT VALID FOR {keyword} - ALLOWED {allowed}", "A keyword's value is out of range or not allowed."
    ),
    "MQID0035E": Entry("KEYWORD {keyword} SPECIFIED MORE THAN ONCE", "A keyword may be given once per command."),
    "MQID0036E": Entry("KEYWORD {keyword} REQUIRED {detail}", "ZMQID DEFINE needs COnnection."),
    "MQID0037E": Entry("{object} NAME REQUIRED", "The command needs CHannel-name."),
    "MQID0038E": Entry(
        "NAME {name} NOT VALID FOR {object} - {reason}",
        "A channel name has 1-20 of A-Z a-z 0-9 . / _ %, does not begin or end with a period nor hold two in a row.",
    ),
    "MQID0039E": Entry("KEYWORD {keyword} NOT VALID {detail}", "A keyword that does not apply to this verb."),
    "MQID0040E": Entry(
        "KEYWORD {keyword} CANNOT BE ALTERED - DELETE AND REDEFINE {object}-{name}",
        "An attribute fixed at DEFINE (the ZMQID table has none today: every keyword can be altered).",
    ),
    "MQID0041E": Entry("UNBALANCED APOSTROPHES IN {token}", "A quoted value is not closed."),
    "MQID0042E": Entry("{token} NOT IN KEYWORD-VALUE FORM", "A parameter is not KEYWORD-value."),
    "MQID0043E": Entry(
        "{word} NOT RECOGNIZED - DID YOU MEAN {suggestion}",
        "Follows MQID0031E, MQID0032E or MQID0033E when the word is close to one the ZMQID table knows.",
    ),
    # ---------------------------------------------------------------- z/TPF HTTP (ZHTPS)
    "HTTPS0001I": Entry(
        "HTTP SERVER {name} STARTED - PORT {port}",
        "ZHTPS START read and checked NAME.conf and marked the server started; its statistics start over.",
    ),
    "HTTPS0002I": Entry(
        "HTTP SERVER {name} STOPPED",
        "ZHTPS STOP marked the server stopped; the loop listening for it closes the listener and connections.",
    ),
    "HTTPS0003I": Entry(
        "HTTP SERVER {name} REFRESHED - NEW OPTIONS APPLY TO NEW CONNECTIONS",
        "ZHTPS REFRESH re-read NAME.conf; connections already open keep the options they started with.",
    ),
    "HTTPS0004I": Entry("START OF HTTP SERVER DISPLAY", "The title of ZHTPS DISPLAY; one block per server follows."),
    "HTTPS0005I": Entry(
        "NO HTTP SERVERS MATCHING {name} ON {system}", "ZHTPS DISPLAY found no server with that (generic) name."
    ),
    "HTTPS0006I": Entry(
        "NO MQTOOL SERVE OR SHELL IS RUNNING - {name} LISTENS WHILE ONE RUNS",
        "No real-time loop runs on this store, so nothing listens yet; .http still serves requests in-process.",
    ),
    "HTTPS0007W": Entry(
        "{name} KEEPS ITS LISTENER - NEW IP {ip} PORT {port} TAKE EFFECT AT THE NEXT ZHTPS START",
        "REFRESH changed IP or PORT; an open listener is not moved, STOP and START move it.",
    ),
    "HTTPS0011I": Entry(
        "HTTP SERVER STATISTICS FOR {name}\n"
        "ACTIVE - {active} HWMARK - {hwmark}\n"
        "REFUSED - {refused} REUSED - {reused}\n"
        "TIMED OUT - {timed_out} URL ERRORS - {url_errors}\n"
        "AVG COMPRESSION RATIO - {ratio}\n"
        "AVG TIME TO COMPRESS - {time} MILS\n"
        "AVG SIZE (BEFORE COMPRESSION) - {size}\n"
        "HARDWARE COMPRESSION COUNT - {hardware}\n"
        "SOFTWARE COMPRESSION COUNT - {software}\n"
        "NO COMPRESSION COUNT - {none}\n"
        "LAST STATS RESET TOD - {reset}",
        "ZHTPS STATS: the server's statistics since the last START or RESET (mqtool-http(7) defines each figure).",
    ),
    "HTTPS0012I": Entry(
        "STATISTICS FOR {name} RESET", "STATS RESET cleared the figures shown above; the reset TOD is now."
    ),
    "HTTPS0020I": Entry(
        "HTTP SERVER {name} LISTENING ON {ip} PORT {port}",
        "Console: a real-time loop opened the server's listener (PORT-0: the port the system chose).",
    ),
    "HTTPS0021E": Entry(
        "HTTP SERVER {name} CANNOT LISTEN ON {ip} PORT {port} - {reason}",
        "Console: the listener could not be opened (port in use, address not local); retried every 5 seconds.",
    ),
    "HTTPS0022I": Entry(
        "HTTP SERVER {name} NO LONGER LISTENING",
        "Console: a real-time loop closed the server's listener (STOP, a new START, or the loop ended).",
    ),
    "HTTPS0300W": Entry(
        "HTTP SERVER {name} MAXCONN {maxconn} IS OVER WHAT THE FILE DESCRIPTOR LIMIT {limit} ALLOWS"
        " - AT MOST {effective} CONNECTIONS",
        "START or REFRESH (and, on the console, the serving loop with its own limit): the process may open"
        " only so many files (ulimit -n), some of them for itself; connections over the effective value"
        " are refused (REFUSED). Raise the limit or lower MAXCONN.",
    ),
    "HTTPS0301W": Entry(
        "HTTP SERVER {name} CANNOT ACCEPT CONNECTIONS - {reason} - NEW CONNECTIONS WAIT",
        "Console: the serving process ran out of file descriptors (or memory); it waits and accepts again"
        " as connections close. Written once, and again at most once a minute while it lasts.",
    ),
    "HTTPS0302W": Entry(
        "SERVING PROCESS {pid} DID NOT STORE THE COUNTS OF {name} IN TIME - THE LAST ONES MAY BE MISSING",
        "ZHTPS STATS asked the loop that serves the server to store its counts and it did not answer within"
        " 10 seconds (busy, or stopped): the display shows what the store has, up to a poll old.",
    ),
    "HTTPS0101E": Entry(
        "HTTP SERVER {name} NOT STARTED - {error}",
        "NAME.conf has an error, named with its file and line; nothing changed.",
    ),
    "HTTPS0102E": Entry("HTTP SERVER {name} ALREADY STARTED", "START of a started server; REFRESH re-reads its file."),
    "HTTPS0103E": Entry(
        "HTTP SERVER {name} IS NOT STARTED - ENTER ZHTPS START SERVER-{name}",
        "STOP or REFRESH of a server that is not started.",
    ),
    "HTTPS0104E": Entry(
        "HTTP SERVER {name} NOT FOUND - NO {file}",
        "The system has no configuration file for that server (mqtool http init NAME writes one).",
    ),
    "HTTPS0105E": Entry(
        "HTTP SERVER {name} NOT REFRESHED - {error}",
        "NAME.conf has an error, named with its file and line; the options in force stay.",
    ),
    "HTTPS0106E": Entry(
        "HTTP SERVER {name} HAS NO STATISTICS - IT WAS NEVER STARTED", "STATS of a server never started."
    ),
    "HTTPS0107E": Entry(
        "HTTP SERVER {name} NOT STARTED - {ip} PORT {port} IS USED BY HTTP SERVER {other} OF {system}",
        "Another started server has the same address and port; nothing changed.",
    ),
    "HTTPS0108E": Entry(
        "HTTP SERVER {name} NOT REFRESHED - {ip} PORT {port} IS USED BY HTTP SERVER {other} OF {system}",
        "REFRESH would give the server the address and port of another started server; nothing changed.",
    ),
    "HTTPS0201E": Entry("VERB {verb} NOT RECOGNIZED - VALID VERBS ARE {allowed}", "The verb is not a ZHTPS verb."),
    "HTTPS0202E": Entry(
        "{object} NOT VALID FOR {verb} - SPECIFY {forms}", "The command names something other than a server."
    ),
    "HTTPS0203E": Entry(
        "KEYWORD {keyword} NOT VALID FOR {verb} - VALID KEYWORDS ARE {allowed}",
        "A keyword that the verb does not take.",
    ),
    "HTTPS0204E": Entry("KEYWORD {keyword} SPECIFIED MORE THAN ONCE", "A keyword may be given once per command."),
    "HTTPS0205E": Entry("SERVER NAME REQUIRED - ENTER {command} {verb} {forms}", "The command does not name a server."),
    "HTTPS0206E": Entry("NAME {name} NOT VALID FOR SERVER - {reason}", "A server name breaks the naming rules."),
    "HTTPS0207E": Entry("UNBALANCED APOSTROPHES IN {token}", "A quoted name is not closed."),
    "HTTPS0208E": Entry("{token} NOT IN KEYWORD-VALUE FORM", "A word is not SERVER-name, S-name, ALL or a flag."),
    "HTTPS0209E": Entry("KEYWORD {keyword} TAKES NO VALUE", "A flag such as RESET was given a value."),
    "HTTPS0210E": Entry(
        "SYSTEM {system} IS A {platform} SYSTEM - ZHTPS NEEDS A Z/TPF SYSTEM (.SYSTEM NAME)",
        "A ZHTPS command while the current system is not z/TPF.",
    ),
    # ---------------------------------------------------------------- MQ for z/OS
    # IBM's ids where IBM's documentation gives them; ids marked "mqtool's choice" are
    # documented in mqtool-zos(7), CHOICES MADE BY MQTOOL.
    "CSQ3106E": Entry(
        "- QUEUE MANAGER STOPPED. COMMAND NOT PROCESSED - {command}",
        "The queue manager is stopped: only START QMGR is processed.",
    ),
    "CSQ9000E": Entry("'{keyword}' appears more than once", "A keyword was repeated, or given with its negation."),
    "CSQ9001E": Entry(
        "'{keyword}' is invalid", "A verb, object type or keyword is unknown, misspelled, or does not apply here."
    ),
    "CSQ9002E": Entry("Unbalanced parentheses following '{keyword}'", "A value's parentheses do not match."),
    "CSQ9003E": Entry("'{keyword}' parameter contains unbalanced apostrophes", "A quoted value is not closed."),
    "CSQ9016E": Entry(
        "' {verb}' command request not authorized",
        "The user is not authorized to issue the command (the REST API: a MQWebUser without a grant of this "
        "verb, mqtool rest init --grant); nothing was run. MQRC 2035.",
    ),
    "CSQ9022I": Entry(
        "' {verb_words}' NORMAL COMPLETION", "The last line of a z/OS command that completed (full verb and object)."
    ),
    "CSQ9023E": Entry(
        "' {verb_words}' ABNORMAL COMPLETION", "The last line of a z/OS command that failed or was not understood."
    ),
    "CSQ9030E": Entry(
        "'{keyword}' value '{value}' is invalid, allowed: {allowed}",
        "A value out of range or not one of the allowed words; the message lists what is allowed (mqtool's choice).",
    ),
    "CSQ9031E": Entry(
        "'{keyword}' requires {what}",
        "Something the command needs is missing: an object type, a name, or a keyword (mqtool's choice).",
    ),
    "CSQ9032E": Entry(
        "'{keyword}' cannot be specified with '{other}'",
        "Two keywords that exclude each other, such as SET LOG DEFAULT with a value (mqtool's choice).",
    ),
    "CSQI003I": Entry("'PSID' not allowed with TYPE ({type})", "DISPLAY USAGE TYPE(DATASET) takes no PSID."),
    "CSQI010I": Entry("Page set usage ...", "DISPLAY USAGE: the page set report (pages total, unused, in use)."),
    "CSQI024I": Entry(
        "Restart RBA for system as configured={rba}", "DISPLAY USAGE: the log RBA the queue manager restarted at."
    ),
    "CSQJ001I": Entry(
        "CURRENT COPY {copy} ACTIVE LOG DATA SET IS DSNAME={dsname}, STARTRBA={start} ENDRBA={end}",
        "The active log data set of a copy that logging goes on in: at START QMGR (STARTRBA is where logging "
        "resumes) and after a switch (console).",
    ),
    "CSQJ002I": Entry(
        "END OF ACTIVE LOG DATA SET DSNAME={dsname}, STARTRBA={start} ENDRBA={end}",
        "An active log data set is full (or was truncated by ARCHIVE LOG): logging switches to the next one (console).",
    ),
    "CSQJ003I": Entry(
        "FULL ARCHIVE LOG VOLUME DSNAME={dsname}, STARTRBA={start} ENDRBA={end}, STARTTIME={starttime} "
        "ENDTIME={endtime}, UNIT={unit}, COPY{copy}VOL={volume} VOLSPAN={volspan} CATLG={catlg}",
        "An offload made an archive data set of a full active data set (console, one per archive copy). The "
        "times are TOD clock values.",
    ),
    "CSQJ111A": Entry(
        "OUT OF SPACE IN ACTIVE LOG DATA SETS",
        "Every active log data set is full and waits for offload: logging waits while the oldest are offloaded "
        "(console).",
    ),
    "CSQJ139I": Entry("LOG OFFLOAD TASK ENDED", "The offload task has offloaded every full data set (console)."),
    "CSQJ311I": Entry(
        "LOG ARCHIVE (OFFLOAD) TASK INITIATED",
        "ARCHIVE LOG: the active log data sets were switched and their offload started (wording inferred).",
    ),
    "CSQJ319I": Entry(
        "CURRENT ACTIVE LOG DATA SET IS THE LAST AVAILABLE ACTIVE LOG DATA SET. ARCHIVE LOG PROCESSING WILL BE "
        "TERMINATED",
        "ARCHIVE LOG while the next active data set still waits for its offload; nothing was changed (wording "
        "inferred).",
    ),
    "CSQJ099I": Entry("LOG RECORDING TO COMMENCE WITH STARTRBA={rba}", "START QMGR: the log RBA logging resumes at."),
    "CSQJ322I": Entry(
        "{report} report ...", "DISPLAY LOG or DISPLAY ARCHIVE: the parameter report, initial and SET values."
    ),
    "CSQJ325I": Entry("ARCHIVE tape unit report ...", "DISPLAY ARCHIVE: archive tape units in use (none here)."),
    "CSQJ370I": Entry(
        "LOG status report ...",
        "DISPLAY LOG: the active log copies (%Full, zHyperWrite, DSName), RBAs, how zHyperLink writes go, and the "
        "offload task.",
    ),
    "CSQJ380I": Entry(
        "ZHYWRITE SET TO YES BECAUSE ZHYLINK(YES) REQUIRES ZHYPERWRITE",
        "ZHYLINK(YES) turned zHyperWrite on as well (mqtool's choice of id).",
    ),
    "CSQJ381E": Entry(
        "ZHYLINK(YES) REQUIRES ZHYWRITE(YES), {reason} - LOG PARAMETERS NOT CHANGED",
        "SET LOG refused: ZHYWRITE(NO) with ZHYLINK(YES), in one command or while ZHYLINK is YES "
        "(mqtool's choice of id).",
    ),
    "CSQJ382I": Entry(
        "ZHYLINK(YES) ACCEPTED BUT CPU {cpu} CANNOT USE ZHYPERLINK (Z14 OR LATER) - LOG WRITES USE ASYNCHRONOUS I/O",
        "zHyperLink was set on a CPU before the z14 (mqtool's choice).",
    ),
    "CSQJ383I": Entry(
        "ZHYPERLINK NEEDS {needed} WRITE SESSIONS, {available} AVAILABLE - LOG WRITES FALL BACK TO ASYNCHRONOUS I/O",
        "Copies x stripes (x2 with PPRC) is more than a storage subsystem offers (mqtool's choice).",
    ),
    "CSQW127I": Entry(
        "CURRENT TRACE ACTIVITY IS -",
        "DISPLAY TRACE: one line per active trace (number, type, classes, destinations, user id, RMID), then END "
        "OF TRACE REPORT.",
    ),
    "CSQW130I": Entry(
        "'{kind}' TRACE STARTED, ASSIGNED TRACE NUMBER {tno}",
        "START TRACE started a trace with this number; ALTER TRACE restarted it with its number.",
    ),
    "CSQW131I": Entry(
        "STOP TRACE SUCCESSFUL FOR TRACE NUMBER(S) {tnos}",
        "STOP TRACE stopped the traces with these numbers; ALTER TRACE stopped the one it alters.",
    ),
    "CSQW135I": Entry(
        "'{kind}' TRACE ALREADY ACTIVE, TRACE NUMBER {tno}",
        "START TRACE of a trace that runs already with the same classes and destinations (wording inferred).",
    ),
    "CSQW137I": Entry(
        "SPECIFIED TRACE NOT ACTIVE",
        "STOP, DISPLAY or ALTER TRACE found no trace that matches (wording inferred).",
    ),
    "CSQM090E": Entry(
        "FAILURE REASON CODE X'{code}'",
        "The reason code of a failed command: 00D44002 not found (IBM); 00D44003 exists, 00D44004 in use, "
        "00D44005 wrong type, 00D44006 not empty (mqtool's choices).",
    ),
    "CSQM095I": Entry(
        "{objtype} ({name}) QSGDISP(QMGR) ALREADY EXISTS", "DEFINE of an object that exists, without REPLACE."
    ),
    "CSQM101I": Entry(
        "{objtype} ({name}) QSGDISP(QMGR) IS CURRENTLY IN USE, {detail}",
        "DELETE of a storage class that queues name, a page set that a storage class names, or a running channel.",
    ),
    "CSQM110I": Entry(
        "{objtype} ({name}) QSGDISP(QMGR) HAS INCORRECT TYPE, IT IS {actual}",
        "The name belongs to an object of another type (queue names are shared by all queue types; a channel "
        "keeps its CHLTYPE).",
    ),
    "CSQM125I": Entry("{objtype} ({name}) QSGDISP(QMGR) WAS NOT FOUND", "The object named does not exist."),
    "CSQM127I": Entry(
        "{objtype} ({name}) QSGDISP(QMGR) IS NOT EMPTY, CURDEPTH({depth}) - SPECIFY PURGE",
        "DELETE QLOCAL of a queue that holds messages, without PURGE (mqtool's choice of id).",
    ),
    "CSQM181E": Entry(
        "{keyword}({value}) NOT ALLOWED - {reason}",
        "An attribute breaks a rule between attributes or objects, such as the streaming queue restrictions; "
        "the reason says which (mqtool's choice of id).",
    ),
    "CSQM587E": Entry(
        "Unable to put to streaming queue {streamq} for queue {queue}, mqrc={mqrc} ({name})",
        "A copy of a message put to a queue with STREAMQ could not be put to the streaming queue (console, "
        "once per open handle unless the reason changes). With STRMQOS(BESTEF) the original put stands; with "
        "MUSTDUP it fails with the same reason. Text as the MQ for z/OS 9.4 performance report shows it.",
    ),
    "CSQM201I": Entry(
        "{verb} {objtype} DETAILS",
        "One object of a DISPLAY: one KEYWORD(value) line per attribute, then END ... DETAILS.",
    ),
    "CSQM293I": Entry("{count} {objtype} FOUND MATCHING REQUEST CRITERIA", "How many objects a DISPLAY shows."),
    "CSQM297I": Entry(
        "NO {objtype} FOUND MATCHING REQUEST CRITERIA",
        "A DISPLAY (generic or specific name) found nothing to show: a normal completion; in JSON an empty "
        "commandResponse with the codes 0 and 0.",
    ),
    # channels: the command answers (CSQM13xI) and the channel initiator's console
    # messages (CSQX...); texts IBM's where its catalogue gives them, else inferred
    # (mqtool-zos(7), CHANNELS, says which).
    "CSQM131I": Entry(
        "CHANNEL INITIATOR NOT ACTIVE, COMMAND NOT PROCESSED",
        "A channel command while the channel initiator is stopped (START CHINIT starts it). Wording inferred.",
    ),
    "CSQM132I": Entry(
        "CHANNEL INITIATOR ALREADY ACTIVE", "START CHINIT while the channel initiator runs. Wording inferred."
    ),
    "CSQM134I": Entry(
        "{verb} {objtype}({name}) COMMAND ACCEPTED",
        "START, STOP, RESET or RESOLVE CHANNEL was accepted; the channel initiator does the work and reports on "
        "the console.",
    ),
    "CSQM137I": Entry(
        "{verb} {objtype} COMMAND ACCEPTED",
        "STOP CHINIT, START LISTENER, STOP LISTENER or DISPLAY CHINIT was accepted.",
    ),
    "CSQM138I": Entry("CHANNEL INITIATOR STARTING", "START CHINIT was accepted; the channel initiator starts."),
    "CSQX001I": Entry("Channel initiator starting", "Console: the channel initiator starts (START CHINIT)."),
    "CSQX022I": Entry(
        "Channel initiator initialization complete",
        "Console: the channel initiator runs; the senders it ended with STOP CHINIT start again. Wording inferred.",
    ),
    # trust-zos: a CONNAME is read when the channel starts (conname.py), not at DEFINE
    "CSQX205E": Entry(
        "Unable to resolve network address, channel {name}, connection {conname}, TRPTYPE=TCP",
        "Console: the sender's CONNAME is no host(port), IPv4 or IPv6 address or list of them (a template such "
        "as <host>(1414) not yet filled in); the channel retries. IBM's message for a connection name that does "
        "not resolve; its return code insert is left out (mqtool resolves no names). Wording inferred.",
    ),
    # net-transport: the listeners, DISPLAY CHINIT and the TCP transport (wording
    # recalled from IBM's z/OS message manual where no stored source confirmed it:
    # mqtool-zos(7), CHANNELS OVER TCP, says which)
    "CSQX004I": Entry(
        "Channel initiator storage usage: local storage: used {used}MB, free {free}MB: above bar: used "
        "{above_used}MB, free {above_free}MB",
        "DISPLAY CHINIT and START CHINIT: the channel initiator's storage, in the 9.4 form seed 002 quotes; modelled "
        "from the seed's figures (56 MB used at start, 90-1127 KB per running channel by message size).",
    ),
    "CSQX023I": Entry(
        "Listener started for port {port} address {address}",
        "Console: a serving loop opened a TCP listener's socket (PORT(0): the port the system chose). "
        "Wording inferred.",
    ),
    "CSQX024I": Entry(
        "Listener stopped for port {port} address {address}",
        "Console: a TCP listener's socket was closed (STOP LISTENER, STOP CHINIT, or the loop ended). "
        "Wording inferred.",
    ),
    "CSQX202E": Entry(
        "Connection or remote listener unavailable, channel {name}, connection {conname}, TRPTYPE=TCP ({reason}); "
        "retrying in {seconds}s",
        "Console: the TCP connection to the sender's CONNAME failed; the channel retries (SHORTRTY, LONGRTY).",
    ),
    "CSQX209E": Entry(
        "Connection unexpectedly terminated, channel {name}, connection {conname} (queue manager {qmgr}), "
        "TRPTYPE=TCP ({detail}); retrying in {seconds}s",
        "Console: the partner closed the connection or it broke; a batch recorded in doubt is resolved at the next "
        "start.",
    ),
    "CSQX219E": Entry(
        "Unable to bind to port {port} address {address}, TRPTYPE=TCP INDISP=QMGR ({reason})",
        "Console: a listener's socket could not be opened (port in use, address not local); retried. Wording inferred.",
    ),
    "CSQX259E": Entry(
        "Connection timed out, channel {name}, connection {conname} (queue manager {qmgr}), TRPTYPE=TCP, no data for "
        "{wait}s; retrying in {seconds}s",
        "Console: nothing came from the partner within the heartbeat interval's bound (2 x HBINT below 60 seconds, "
        "else HBINT + 60).",
    ),
    "CSQX830I": Entry("Channel initiator active", "DISPLAY CHINIT: the channel initiator runs."),
    "CSQX831I": Entry(
        "{started} adapter subtasks started, {requested} requested",
        "DISPLAY CHINIT: CHIADAPS (mqtool's model: all start).",
    ),
    "CSQX832I": Entry(
        "{started} dispatchers started, {requested} requested", "DISPLAY CHINIT: CHIDISPS (mqtool's model: all start)."
    ),
    "CSQX833I": Entry(
        "{started} SSL server subtasks started, {requested} requested", "DISPLAY CHINIT: SSLTASKS of the queue manager."
    ),
    "CSQX836I": Entry(
        "Maximum channels - TCP/IP {tcp}, LU 6.2 {lu62}", "DISPLAY CHINIT: TCPCHL and LU62CHL (IBM's defaults, 200)."
    ),
    "CSQX840I": Entry(
        "{current} channel connections current, maximum {maximum}",
        "DISPLAY CHINIT: channels with a status (starting, running, stopped or retrying), and MAXCHL.",
    ),
    "CSQX841I": Entry(
        "{active} channel connections active, maximum {maximum}, including {paused} paused",
        "DISPLAY CHINIT: running channels, and ACTCHL.",
    ),
    "CSQX842I": Entry(
        "{starting} channel connections starting, {stopped} stopped, {retrying} retrying",
        "DISPLAY CHINIT: channels binding (starting), stopped and retrying.",
    ),
    "CSQX843I": Entry(
        "TCP/IP listener INDISP=QMGR retrying, for port {port} address {address}",
        "DISPLAY CHINIT: a listener whose socket could not be opened; its loop tries again.",
    ),
    "CSQX845I": Entry("TCP/IP system name is {name}", "DISPLAY CHINIT: TCPNAME (TCPIP)."),
    "CSQX846I": Entry(
        "TCP/IP listener INDISP=QMGR started, for port {port} address {address}",
        "DISPLAY CHINIT: a started listener (PORT(0): the port its loop got, 0 while none runs).",
    ),
    "CSQX848I": Entry("TCP/IP listener INDISP=QMGR not started", "DISPLAY CHINIT: the queue manager has no listener."),
    "CSQX849I": Entry("LU 6.2 listener INDISP=QMGR not started", "DISPLAY CHINIT: mqtool has no LU 6.2."),
    "CSQX500I": Entry("Channel {name} started", "Console: a channel started (a sender bound to its receiver)."),
    "CSQX501I": Entry(
        "Channel {name} is no longer active", "Console: a channel ended (STOP CHANNEL, STOP CHINIT, its partner)."
    ),
    "CSQX514E": Entry(
        "Channel {name} is active",
        "START of a running channel, or RESET or RESOLVE of a running one (stop it first). Wording inferred.",
    ),
    "CSQX520E": Entry(
        "Remote channel {name} not defined",
        "Console: the partner queue manager has no channel of this name; the sender retries. Wording inferred.",
    ),
    "CSQX526E": Entry(
        "Message sequence error for channel {name}, sent={sent} expected={expected}",
        "Console: the sequence numbers of the two ends differ; the sender stops until RESET CHANNEL. Wording inferred.",
    ),
    "CSQX548E": Entry(
        "Messages sent to local dead-letter queue, channel {name}, reason={reason} ({rcname})",
        "Console: a receiver put messages it could not deliver on its DEADQ, behind a dead-letter header.",
    ),
    "CSQX558E": Entry(
        "Remote channel {name} not available",
        "Console: the partner's receiver channel is stopped, or (over TCP) the partner's channel authentication "
        "records blocked it; the sender retries. Wording inferred.",
    ),
    # channel security (issue 17, mqtool/engine/security): TLS failures stop a channel with
    # IBM's CSQX6xx message at each end (tls.classify); blocked channels CSQX776E, CSQX777E,
    # CSQX782E (texts inferred from IBM MQ for Multiplatforms' AMQ9776, AMQ9777, AMQ9782);
    # connection authentication and RUNCHECK mqtool's own ids. mqtool-zos(7), CHANNEL SECURITY.
    "CSQX630E": Entry(
        "Channel {name} requires SSL, connection {conname}",
        "Console: a TLS channel cannot start here: QMGR SSLTASKS is 0, SSLKEYR is blank, or the key ring is "
        "missing or damaged.",
    ),
    "CSQX631E": Entry(
        "Cipher specifications differ, channel {name}, local={local}, remote={remote}, connection {conname}",
        "Console: the CipherSpecs of the two ends have nothing in common, or the one negotiated does not satisfy "
        "this end's SSLCIPH; the channel stops (the partner reports CSQX641E).",
    ),
    "CSQX633E": Entry(
        "SSL certificate for remote channel {name} failed local check, connection {conname}",
        "Console: the partner's certificate is not trusted by this key ring, has expired or is not valid yet; the "
        "channel stops (the partner reports CSQX634E).",
    ),
    "CSQX634E": Entry(
        "SSL certificate failed remote check, channel {name}, connection {conname}",
        "Console: the partner refused this end's certificate (not trusted there, expired); the channel stops.",
    ),
    "CSQX635E": Entry(
        "Invalid cipher specification {cipherspec} for channel {name}, connection {conname}",
        "Console: SSLCIPH names a deprecated CipherSpec, one SSLFIPS(YES) excludes, or one this platform's "
        "OpenSSL cannot honour; the channel does not start.",
    ),
    "CSQX636E": Entry(
        "Distinguished name does not match peer name, channel {name}, name='{dn}', connection {conname}",
        "Console: the partner certificate's distinguished name does not match SSLPEER; the channel stops (the "
        "partner reports CSQX643E).",
    ),
    "CSQX637E": Entry(
        "No SSL certificate for remote channel {name}, connection {conname}",
        "Console: SSLCAUTH(REQUIRED) and the initiating end sent no certificate (it reports CSQX642E).",
    ),
    "CSQX638E": Entry(
        "SSL communications error for channel {name}, connection {conname}",
        "Console: the TLS connection failed otherwise: a handshake that did not complete in time, a reset, "
        "records that cannot be read. During the handshake the channel stops; a running channel retries.",
    ),
    "CSQX639E": Entry(
        "No cipher spec for remote channel {name}, connection {conname}",
        "Console: this end has an SSLCIPH and the partner connected without TLS (the partner reports CSQX641E).",
    ),
    "CSQX640E": Entry(
        "Invalid peer name, channel {name}, attribute {attribute}",
        "Console: the channel's SSLPEER is not a valid peer name (z/OS checks it when the channel starts).",
    ),
    "CSQX641E": Entry(
        "Cipher specification error for remote channel {name}, connection {conname}",
        "Console: the partner found the CipherSpecs differ, or has a CipherSpec and this end none.",
    ),
    "CSQX642E": Entry(
        "No SSL certificate for channel {name}, connection {conname}",
        "Console: the partner requires a certificate (SSLCAUTH(REQUIRED)) and the key ring has none to send.",
    ),
    "CSQX643E": Entry(
        "Peer name error for remote channel {name}, connection {conname}",
        "Console: the partner's SSLPEER does not match this end's certificate.",
    ),
    "CSQX644E": Entry(
        "Cannot determine peer name for remote channel {name}, connection {conname}",
        "Console: SSLPEER is set and the partner sent no certificate (SSLCAUTH(OPTIONAL)).",
    ),
    "CSQX645E": Entry(
        "Certificate {label} missing for channel {name}",
        "Console: the key ring has no personal certificate of the label the channel uses (its CERTLABL, QMGR "
        "CERTLABL, or ibmWebSphereMQ<qmgr>).",
    ),
    "CSQX776E": Entry(
        "Channel {name} from {conname} was blocked by user ID {user}",
        "Console: the user id the channel would run as is in the USERLIST of a BLOCKUSER record (*MQADMIN: a "
        "privileged one); the connection is refused.",
    ),
    "CSQX777E": Entry(
        "Channel {name} from {conname} was blocked by {record}",
        "Console: the channel authentication record that matches the channel has USERSRC(NOACCESS).",
    ),
    "CSQX782E": Entry(
        "Connection from {conname} was blocked by {record}",
        "Console: the listener refused an address in the ADDRLIST of the BLOCKADDR record, before reading a channel "
        "name.",
    ),
    "CSQX787I": Entry(
        "Channel {name} from {conname} would have been blocked by {record}, WARN(YES)",
        "Console: a record with WARN(YES) would have refused the channel; it runs (mqtool's choice of id).",
    ),
    "MQT0410E": Entry(
        "User ID {user} of channel {name} from {conname} failed authentication: {reason}, MQRC=2035",
        "Console: CONNAUTH refused a connection's user id and password (answered after FAILDLAY seconds).",
    ),
    "MQT0411I": Entry(
        "Channel {name} from {conname} runs as {user}",
        "Console: the user id an inbound channel runs as after CHLAUTH mapping and CONNAUTH.",
    ),
    "MQT0412I": Entry(
        "No channel authentication record matches: channel {channel} would run as MCAUSER({user})",
        "DISPLAY CHLAUTH MATCH(RUNCHECK) found no record for the channel: it would run, as this user id.",
    ),
    "CSQY001I": Entry(
        "QUEUE MANAGER STARTING, USING PARAMETER MODULE {zparm}", "START QMGR: the queue manager is starting."
    ),
    "CSQY002I": Entry("QUEUE MANAGER STOPPING", "STOP QMGR: the queue manager stops."),
    "CSQP013I": Entry(
        "NEW EXTENT CREATED FOR PAGE SET {psid}. NEW EXTENT WILL NOW BE FORMATTED",
        "A put did not fit on a page set with EXPAND(USER) or EXPAND(SYSTEM): the page set grew by a secondary "
        "extent (console).",
    ),
    "CSQP016E": Entry(
        "PAGE SET {psid} HAS REACHED THE MAXIMUM NUMBER OF EXTENTS. IT CANNOT BE EXTENDED AGAIN",
        "A page set that must grow already has 119 extents: the put fails with 2192 (console, once).",
    ),
    # triggering, buffer pools, namelists and dynamic queues (bread-trigger): IBM's ids
    # and texts where its catalogue gives them (CSQP002I, CSQP005I), else inferred
    # (mqtool-zos(7) says which); then mqtool's own MQT077x ids.
    "CSQP002I": Entry(
        "BUFFPOOL VALUE OUT OF RANGE", "DEFINE, ALTER or DELETE BUFFPOOL(n) with n outside 0-99: nothing changes."
    ),
    "CSQP005I": Entry(
        "BUFFERS VALUE OUT OF RANGE",
        "DEFINE or ALTER BUFFPOOL with BUFFERS above 500000 and LOCATION(BELOW) (ABOVE allows 999999999).",
    ),
    "CSQP023I": Entry(
        "Request completed for buffer pool {pool}, now has {buffers} buffers",
        "Console: ALTER BUFFPOOL is done; the pool's buffers now. Wording inferred.",
    ),
    "CSQP024I": Entry(
        "Request initiated for buffer pool {pool}",
        "ALTER BUFFPOOL accepted; CSQP023I on the console says when it is done. Wording inferred.",
    ),
    "CSQP054I": Entry(
        "Buffer pool {pool} is now located above the bar",
        "Console: ALTER BUFFPOOL LOCATION(ABOVE) moved the pool to 64-bit storage. Wording inferred.",
    ),
    "CSQP055I": Entry(
        "Buffer pool {pool} is now located below the bar",
        "Console: ALTER BUFFPOOL LOCATION(BELOW) moved the pool to 31-bit storage. Wording inferred.",
    ),
    "CSQI065I": Entry(
        "Buffer pool attributes ...",
        "DISPLAY USAGE: the buffer pool report (buffers, stealable buffers, page class, location). Layout inferred.",
    ),
    "MQT0775E": Entry(
        "Buffer pool {pool} is not defined", "ALTER or DELETE BUFFPOOL(n) of a pool that does not exist."
    ),
    "MQT0770I": Entry(
        "Trigger monitor started on {queue} of {system}; it runs the APPLICID of each trigger message's process "
        "(at most {limit} at once)",
        "mqtool trigger-monitor holds the initiation queue open for input and waits for trigger messages.",
    ),
    "MQT0771I": Entry(
        "Started {command} for queue {qname} (process {process}, pid {pid})",
        "mqtool trigger-monitor started the program of a trigger message; the message is then gone from the "
        "initiation queue.",
    ),
    "MQT0772I": Entry(
        "Program {command} for queue {qname} ended with exit status {code}",
        "A program the trigger monitor started has ended (a negative status is the signal that ended it).",
    ),
    "MQT0773E": Entry(
        "Cannot start {command} for queue {qname}: {reason}; the trigger message goes to {deadq}",
        "The program of a trigger message could not be started; the message is put on the dead-letter queue "
        "(or, without one, dropped), as runmqtrm does.",
    ),
    "MQT0774E": Entry(
        "A message on {queue} is not a trigger message ({reason}); it goes to {deadq}",
        "The trigger monitor got a message that is no MQTM of version 1.",
    ),
    "MQT0776I": Entry(
        "Trigger monitor on {queue} ended: {reason}",
        "mqtool trigger-monitor stopped (Ctrl-C, SIGTERM, the queue manager stopped); programs still running are "
        "left to finish.",
    ),
    "MQT0777E": Entry(
        "Trigger monitor cannot open {queue} of {system}: {reason}",
        "mqtool trigger-monitor could not open the initiation queue for input (it does not exist, is not local, "
        "or the queue manager is stopped).",
    ),
    "MQT0778I": Entry(
        "Opened {queue} for {purpose}{route}",
        ".open: the queue is open (IPPROCS or OPPROCS count it) until .close or the end of the process; a "
        "model queue's name made a dynamic queue, named here.",
    ),
    "MQT0779I": Entry("Closed {queue}{route}", ".close: the queue is closed (a temporary dynamic queue is gone)."),
    "CSQY003I": Entry("QUEUE MANAGER IS ALREADY ACTIVE", "START QMGR while the queue manager runs."),
    "CSQY022I": Entry("QUEUE MANAGER INITIALIZATION COMPLETE", "START QMGR: the queue manager is ready."),
    # ------------------------------------------------ bread-commands: the everyday commands
    # (issue 18 item 4): the command server (CSQN), security (CSQH), threads (CSQV), and
    # mqtool's MQT0450-MQT0469 where IBM's documentation gives no wording (mqtool-zos(7)).
    "CSQN001I": Entry("COMMAND SERVER STARTED", "START CMDSERV: the command server starts processing commands."),
    "CSQN002I": Entry("COMMAND SERVER ALREADY STARTED", "START CMDSERV while the command server runs: nothing done."),
    "CSQN005I": Entry(
        "COMMAND SERVER STOPPED",
        "STOP CMDSERV: the command server stops after the command it processes; MQSC commands through the REST "
        "API are refused until START CMDSERV is entered at the console.",
    ),
    "CSQN006I": Entry("COMMAND SERVER ALREADY STOPPED", "STOP CMDSERV while the command server is stopped."),
    "CSQN013I": Entry(
        "COMMAND SERVER STATUS IS RUNNING",
        "DISPLAY CMDSERV through the command server (the REST API): it is processing this command.",
    ),
    "CSQN014I": Entry(
        "COMMAND SERVER STATUS IS WAITING",
        "DISPLAY CMDSERV at the console: the command server waits for commands (from the REST API).",
    ),
    "CSQN015I": Entry("COMMAND SERVER STATUS IS STOPPED", "DISPLAY CMDSERV: STOP CMDSERV stopped the command server."),
    "CSQH010I": Entry(
        "Reverify flag not set for user-id {userid}, no entry found",
        "RVERIFY SECURITY: the user ID is not signed on to the queue manager (with subsystem security off no "
        "user ID ever is). Wording inferred.",
    ),
    "CSQH015I": Entry("Security timeout = {minutes} minutes", "DISPLAY SECURITY: TIMEOUT (ALTER SECURITY)."),
    "CSQH016I": Entry("Security interval = {minutes} minutes", "DISPLAY SECURITY: INTERVAL (ALTER SECURITY)."),
    "CSQH018I": Entry(
        "Security refresh for {resource} not processed, security switch set OFF",
        "REFRESH SECURITY on a queue manager whose subsystem security switch is off: nothing to refresh. Wording "
        "inferred.",
    ),
    "CSQH030I": Entry("Security switches ...", "DISPLAY SECURITY: the security switches follow (CSQH031I)."),
    "CSQH031I": Entry(
        "{switch}: {setting}, '{profile}' found",
        "DISPLAY SECURITY: a security switch, how it is set and the profile that sets it. Without an external "
        "security manager subsystem security is off and no other switch is shown.",
    ),
    "CSQV401I": Entry("DISPLAY THREAD REPORT FOLLOWS -", "DISPLAY THREAD: the report begins."),
    "CSQV402I": Entry(
        "ACTIVE THREADS -",
        "DISPLAY THREAD TYPE(ACTIVE): one line per connection (NAME, ST, A, REQ, ID, AUTHID, ASID, TOKEN), then "
        "DISPLAY ACTIVE REPORT COMPLETE.",
    ),
    "CSQV419I": Entry("NO ACTIVE CONNECTIONS FOUND", "DISPLAY THREAD: no connection matches. Wording inferred."),
    "CSQV420I": Entry(
        "NO INDOUBT THREADS FOUND",
        "DISPLAY THREAD TYPE(INDOUBT), RESOLVE INDOUBT NID(*): mqtool keeps no unit of work open between commands "
        "and has no CICS, IMS or RRS connection. Wording inferred.",
    ),
    "CSQM130I": Entry(
        "CLUSTER REQUEST QUEUED",
        "RESET CLUSTER, REFRESH CLUSTER, SUSPEND or RESUME QMGR CLUSTER: passed to the repository manager, which "
        "reports on the console (MQT0451E). Wording inferred.",
    ),
    "MQT0450E": Entry(
        "'{command}' NOT PROCESSED - QUEUE MANAGER {qmgr} IS NOT IN A QUEUE SHARING GROUP",
        "A queue-sharing-group command (DISPLAY GROUP, CFSTRUCT, CFSTATUS, SMDS, SMDSCONN, FACILITY(DB2), "
        "QSGDISP(SHARED)) on a queue manager in no group; nothing was changed (runCommandJSON reason 3212, "
        "MQRCCF_Q_MGR_NOT_IN_QSG). IBM's MQSC wording could not be confirmed: mqtool's id.",
    ),
    "MQT0451E": Entry(
        "Cluster request for {cluster} ignored: queue manager {qmgr} is in no cluster",
        "Console: the repository manager found no cluster to act on (RESET, REFRESH, SUSPEND or RESUME).",
    ),
    "MQT0452I": Entry(
        "PING CHANNEL({name}) COMPLETED - {length} BYTES SENT TO {qmgr} AND RETURNED",
        "PING CHANNEL: the partner receiver answered and returned the data unchanged.",
    ),
    "MQT0453E": Entry(
        "REFRESH QMGR TYPE(EARLY) NOT PROCESSED - THE QUEUE MANAGER IS ACTIVE",
        "REFRESH QMGR TYPE(EARLY) runs only while the queue manager is stopped (STOP QMGR first).",
    ),
    "MQT0454I": Entry(
        "EARLY PROCESSING PROGRAM REFRESHED FOR {qmgr}",
        "REFRESH QMGR TYPE(EARLY) while the queue manager is stopped (mqtool has no early code to load).",
    ),
    "MQT0455E": Entry(
        "RESET QSTATS NOT PROCESSED - PERFORMANCE EVENTS ARE DISABLED, ALTER QMGR PERFMEV(ENABLED)",
        "RESET QSTATS needs the queue manager's PERFMEV ENABLED (IBM: the command fails otherwise); "
        "runCommandJSON reason 3224, MQRCCF_EVENTS_DISABLED.",
    ),
    "MQT0456I": Entry(
        "{count} MESSAGES MOVED FROM QLOCAL({source}) TO QLOCAL({target})",
        "MOVE QLOCAL: every message moved, in one unit of work.",
    ),
    "MQT0457E": Entry(
        "MOVE QLOCAL NOT PROCESSED - QLOCAL({target}) IS NOT EMPTY, CURDEPTH({depth}); TYPE(ADD) ADDS TO IT",
        "MOVE QLOCAL TYPE(MOVE) needs an empty target queue; nothing was moved.",
    ),
    "MQT0458E": Entry(
        "MOVE QLOCAL NOT PROCESSED - {total} MESSAGES WOULD EXCEED MAXDEPTH({maxdepth}) OF QLOCAL({target})",
        "The messages of both queues would not fit in the target's MAXDEPTH; nothing was moved (IBM's rule).",
    ),
    "MQT0459E": Entry(
        "MOVE QLOCAL NOT PROCESSED - {keyword}({target_value}) OF QLOCAL({target}) DIFFERS FROM "
        "{keyword}({source_value}) OF QLOCAL({source})",
        "MOVE QLOCAL needs the same USAGE (and DEFTYPE) on both queues; nothing was moved.",
    ),
    "MQT0460E": Entry(
        "MOVE QLOCAL NOT PROCESSED - MESSAGE {number} CANNOT BE PUT TO QLOCAL({target}): MQRC {reason} "
        "({name}) - NO MESSAGES MOVED",
        "A message could not be put to the target (too long, page set full ...): the unit of work is backed out.",
    ),
    "MQT0461I": Entry(
        "{removed} EXPIRED MESSAGES REMOVED, {count} LOCAL QUEUES MATCHING {name} SCANNED",
        "REFRESH QMGR TYPE(EXPIRY): the expiry scan ran now on the queues named.",
    ),
    "MQT0462E": Entry(
        "REFRESH QMGR TYPE(CONFIGEV) NOT PROCESSED - CONFIGURATION EVENTS ARE DISABLED",
        "REFRESH QMGR TYPE(CONFIGEV) needs the queue manager's configuration events enabled (CONFIGEV); "
        "runCommandJSON reason 3224, MQRCCF_EVENTS_DISABLED.",
    ),
    # zos-configev: configuration events (REFRESH QMGR TYPE(CONFIGEV)); the id is mqtool's own,
    # IBM's documentation gives the command no response line beyond CSQ9022I.
    "MQT0795I": Entry(
        "{put} OF {count} REFRESH OBJECT EVENTS PUT ON SYSTEM.ADMIN.CONFIG.EVENT - OBJECT({object}) NAME({name})",
        "REFRESH QMGR TYPE(CONFIGEV): one Refresh object event was written for each object selected; an event the "
        "event queue refuses (PUT(DISABLED), full) is lost, as on z/OS, and the first figure is lower.",
    ),
    "MQT0463E": Entry(
        "'{command}' NOT PROCESSED - THE IMS BRIDGE IS NOT ACTIVE",
        "SUSPEND or RESUME QMGR FACILITY(IMSBRIDGE), RESET TPIPE: the queue manager has no IMS connection.",
    ),
    "MQT0464E": Entry(
        "The command server of queue manager '{qmgr}' is not running (STOP CMDSERV); enter START CMDSERV at the "
        "console.",
        "The REST API passes MQSC commands to the command server: while it is stopped they are refused (HTTP 503, "
        "reason 2322 MQRC_CMD_SERVER_NOT_AVAILABLE); how mqweb words this is inferred.",
    ),
    "MQT0466E": Entry(
        "PING CHANNEL({name}) FAILED - {reason}",
        "PING CHANNEL: the partner cannot answer (no listener at CONNAME, its queue manager or channel "
        "initiator stopped, its channel of that name not a receiver, or in use by another sender).",
    ),
    "MQT0465E": Entry(
        "MOVE QLOCAL NOT PROCESSED - QLOCAL({name}) IS BOTH THE SOURCE AND THE TARGET",
        "MOVE QLOCAL names the same queue twice (only a queue-sharing group has a shared and a private queue of "
        "one name).",
    ),
    # -- bread-last: the last commands of IBM's z/OS list (DEFINE LOG, RECOVER BSDS, RESET QMGR,
    # RESOLVE INDOUBT). IBM's CSQJ/CSQV replies to these could not be confirmed: mqtool's ids.
    "MQT0480E": Entry(
        "DEFINE LOG NOT PROCESSED - COPY(2) NEEDS DUAL ACTIVE LOGGING, TWOACTV IS NO",
        "DEFINE LOG COPY(2) on a queue manager that writes one copy of its active log; nothing was added.",
    ),
    "MQT0481E": Entry(
        "DEFINE LOG NOT PROCESSED - {dsname} IS ALREADY AN ACTIVE LOG DATA SET OF COPY {copy}",
        "DEFINE LOG names a data set the active log rings already have; nothing was added.",
    ),
    "MQT0482E": Entry(
        "DEFINE LOG NOT PROCESSED - COPY {copy} HAS {count} ACTIVE LOG DATA SETS, THE MOST IBM ALLOWS",
        "An active log ring holds at most 310 data sets (IBM); nothing was added.",
    ),
    "MQT0483I": Entry(
        "{dsname} ADDED TO ACTIVE LOG COPY {copy}, WHICH NOW HAS {total} DATA SETS",
        "DEFINE LOG: the data set joins the ring after the data sets already there; it is used once every copy "
        "has a data set at that place in its ring (dual logging switches both copies together).",
    ),
    "MQT0484E": Entry(
        "RECOVER BSDS NOT PROCESSED - SINGLE BSDS MODE (TWOBSDS=NO), THERE IS NO SECOND BSDS TO REESTABLISH",
        "RECOVER BSDS copies the working bootstrap data set over the failed one of a dual pair.",
    ),
    "MQT0485I": Entry(
        "RECOVER BSDS - BOTH BOOTSTRAP DATA SETS ARE IN USE, DUAL BSDS MODE NEEDS NO RECOVERY",
        "RECOVER BSDS when neither bootstrap data set has failed (mqtool's never fail): nothing to do.",
    ),
    "MQT0486E": Entry(
        "RESET QMGR TYPE(PUBSUB) NOT PROCESSED - {name} IS NOT {relation} OF {qmgr}",
        "RESET QMGR TYPE(PUBSUB) CHILD or PARENT names a queue manager that is not this one's child or parent "
        "(mqtool makes no publish/subscribe hierarchy: there are no children, and the parent is PARENT's value).",
    ),
    "MQT0487I": Entry(
        "HIERARCHICAL CONNECTION TO PARENT {name} CANCELLED - PARENT({name}) IS KEPT UNTIL ALTER QMGR PARENT(' ')",
        "RESET QMGR TYPE(PUBSUB) PARENT: the connection to the parent is cancelled (mqtool never makes one); the "
        "queue manager's PARENT attribute is not changed.",
    ),
    "MQT0488E": Entry(
        "THREAD NID={nid} OF CONNECTION {conn} IS NOT IN DOUBT",
        "RESOLVE INDOUBT names a thread that is not in doubt: mqtool keeps no unit of recovery of CICS, IMS or "
        "RRS, so none ever is.",
    ),
    # -- zos-last: SUSPEND/RESUME QMGR LOG and DISPLAY THREAD TYPE(REGIONS) (issue 18). The ids
    # CSQJ372I, CSQJ373I and CSQV432I are IBM's, their wording inferred; the refusals are mqtool's
    # ids (IBM's answers could not be confirmed; mqtool-zos(7), SUSPEND QMGR LOG).
    "CSQJ372I": Entry(
        "UPDATE ACTIVITY HAS BEEN SUSPENDED FOR {qmgr} AT RBA {rba}",
        "SUSPEND QMGR LOG: the log buffers were written, a checkpoint taken, and log update activity suspended at "
        "that RBA until RESUME QMGR LOG or STOP QMGR; DISPLAY LOG repeats it while the suspension lasts. Wording "
        "inferred.",
    ),
    "CSQJ373I": Entry(
        "UPDATE ACTIVITY HAS BEEN RESUMED FOR {qmgr}", "RESUME QMGR LOG: updates run again. Wording inferred."
    ),
    "CSQV432I": Entry(
        "ACTIVE REGIONS -",
        "DISPLAY THREAD TYPE(REGIONS): one line per connection name and address space (NAME, ST, THREADS, "
        "ACTIVE, AUTHID, ASID), then DISPLAY REGIONS REPORT COMPLETE. Layout and wording inferred.",
    ),
    "MQT0490E": Entry(
        "SUSPEND QMGR LOG NOT PROCESSED - UPDATE ACTIVITY OF {qmgr} IS ALREADY SUSPENDED AT RBA {rba}",
        "SUSPEND QMGR LOG while the log is suspended; nothing was changed.",
    ),
    "MQT0491E": Entry(
        "RESUME QMGR LOG NOT PROCESSED - UPDATE ACTIVITY OF {qmgr} IS NOT SUSPENDED",
        "RESUME QMGR LOG while the log is not suspended; nothing was changed.",
    ),
    "MQT0492E": Entry(
        "'{command}' NOT PROCESSED - LOG UPDATE ACTIVITY OF {qmgr} IS SUSPENDED; RESUME QMGR LOG AT THE CONSOLE",
        "A command that changes what z/OS logs (definitions, messages, channel synchronization, the active log) "
        "while SUSPEND QMGR LOG is in effect: on z/OS it would wait for RESUME QMGR LOG; mqtool refuses it and "
        "changes nothing (puts and gets that remove answer MQRC 2059 with the same reason).",
    ),
    "MQT0493E": Entry(
        "'{command}' CAN BE ISSUED ONLY FROM THE Z/OS CONSOLE",
        "SUSPEND or RESUME QMGR LOG through the command server (the REST API): IBM allows them from the console "
        "only; nothing was changed.",
    ),
}


def text(msg_id: str, fields: dict[str, Any]) -> str:
    """The message text with its fields filled in. Tabs in a template (the z/TPF STAT
    display's Count Rate RateHigh table) stay tabs, byte for byte as in the seed."""
    return CATALOGUE[msg_id].template.format(**fields)


def line(msg_id: str, **fields: Any) -> str:
    """`ID text`: a message as one console or error line."""
    return f"{msg_id} {text(msg_id, fields)}"
