"""Who may run which command through the REST API: mqweb's roles and mqtool's command
grants, as data in and a decision out (no store, no sockets).

- MQWebAdmin: every command.
- MQWebAdminRO: the commands that change nothing (DISPLAY, in every dialect); any
  other is refused before it runs: 403, MQWB0103E.
- MQWebUser: IBM runs its commands under the user's own identity, so the queue
  manager's authority records decide; mqtool's queue managers have none, so a
  MQWebUser may run the commands that change nothing, and the verbs `mqtool rest
  init --grant NAME[:VERB,...]` granted it (all of them for a grant without verbs);
  any other is answered as the queue manager answers a command its user may not
  issue: completionCode 2, reasonCode 2035 (MQRC_NOT_AUTHORIZED), with CSQ9016E on
  z/OS and MQT0367E on z/TPF, and nothing runs.

A user with several roles gets what any of them allows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mqtool import tables

from .config import ALL_COMMANDS, RestUser

RUN = "run"
FORBIDDEN = "forbidden"  # 403 MQWB0103E: the role does not allow it at all
NOT_AUTHORIZED = "not_authorized"  # 2035: the queue manager's authority check refuses it


@dataclass(frozen=True)
class Verb:
    """The verb of a command line or document: its dialect, its name in the table (or
    the IBM verb mqtool only recognises; None when the line names none), whether it
    changes anything, and the object word after it (for the reply's echo)."""

    dialect: str
    name: str | None
    writes: bool = True
    object: str | None = None
    word: str = ""  # the verb as typed (what a refusal names when it is no verb)

    @property
    def shown(self) -> str:
        return self.name or self.word.upper()[:16] or "(none)"


def decide(user: RestUser, verb: Verb) -> str:
    """RUN, FORBIDDEN or NOT_AUTHORIZED for `user` running a command of `verb`."""
    if user.has("MQWebAdmin"):
        return RUN
    reads = verb.name is not None and not verb.writes
    if reads and user.has("MQWebAdminRO", "MQWebUser"):
        return RUN
    if user.has("MQWebUser"):
        if ALL_COMMANDS in user.commands or (verb.name is not None and verb.name in user.commands):
            return RUN
        return NOT_AUTHORIZED
    return FORBIDDEN


def verb_of_line(line: str, systems: list[Any]) -> Verb:
    """The verb of a runCommand line: ZMQSC, ZMQID and ZHTPS lines by their second word, MQSC
    lines (with or without a command prefix) by their first."""
    from mqtool.session import ZTPF_HTTP_WORDS, ZTPF_MQID_WORD, _match_cpf

    words = line.split()
    first = words[0].upper() if words else ""
    if first in ("ZMQSC", ZTPF_MQID_WORD) or first in ZTPF_HTTP_WORDS:
        dialect = {"ZMQSC": "ztpf_mq", ZTPF_MQID_WORD: "ztpf_mqid"}.get(first, "ztpf_http")
        verb_word = words[1].split("-")[0] if len(words) > 1 else ""
        object_word = words[2].split("-")[0] if len(words) > 2 else None
        return _verb(dialect, verb_word, object_word)
    rest = _match_cpf(line, systems)[1].replace("(", " (").split()
    return _verb("zos", rest[0] if rest else "", rest[1] if len(rest) > 1 and not rest[1].startswith("(") else None)


def verb_of_command(dialect: str, verb: str, object_word: str | None) -> Verb:
    """The verb of a runCommandJSON document's command and qualifier."""
    return _verb(dialect, verb, object_word)


def _verb(dialect: str, word: str, object_word: str | None) -> Verb:
    spec = tables.load(dialect).verb(word) if word else None
    if spec is not None:
        return Verb(dialect, spec.name, spec.writes, object_word, word)
    if dialect == "zos" and word:
        from mqtool.commands.zos.unavailable import ibm_verb

        return Verb(dialect, ibm_verb(word), True, object_word, word)
    return Verb(dialect, None, True, object_word, word)
