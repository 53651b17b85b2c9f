"""Where `mqtool get` puts the messages it gets, under syncpoint (see
`engine.core.streams.get_stream`): each message is handed over and made durable before its
removal from the queue commits.

- `FolderSink` (`--out DIR`): one file per message, `MSGID.msg`, exactly once. The
  bytes go to a hidden marker file named after the message's identity in the store
  (`.MSGID.IDENT.got`), which is synced to disk and then hard-linked to its visible name
  (`MSGID.msg`, or `MSGID.N.msg` when another message with the same id holds that name);
  the folder is synced before the get commits and the marker is removed after. A process
  killed before the commit leaves the marker: the next get of the same message finds the
  name linked to it and writes nothing new, so the message is one file whether it was
  delivered once or twice. A visible name is never an empty or partial file.
- `StreamSink` (standard output): each payload and a newline, flushed before the commit:
  at least once (a message written just before a kill is written again by the next get).
  On a terminal a binary payload is not written (it would garble the screen): the get
  stops with a notice and the message stays on the queue, unless `raw`.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from mqtool.engine.core.message import Message, format_id
from mqtool.engine.core.streams import Undelivered
from mqtool.state.store import sync_folder

MARKER_SUFFIX = ".got"
_CONTROL_FREE = {ord("\n"): None, ord("\r"): None, ord("\t"): None}


def is_text(payload: bytes) -> bool:
    """UTF-8 text without control characters other than line ends and tabs: safe to
    show on a terminal."""
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return text.translate(_CONTROL_FREE).isprintable()


class FolderSink:
    """Writes messages as files in a folder, exactly once (see the module docstring)."""

    def __init__(self, folder: Path, store_path: Path) -> None:
        self.folder = folder
        self._store = str(store_path)
        self._links = True  # False on a file system without hard links (then at least once)

    def marker(self, message: Message) -> Path:
        """The hidden file that holds a message between its delivery and its commit,
        named by what identifies it in the store (not only its message id, which a
        putter may give to several messages)."""
        identity = f"{self._store}\0{message.queue}\0{message.row_id}\0{message.put_time!r}\0{message.length}"
        digest = hashlib.blake2s(identity.encode("utf-8", "surrogateescape"), digest_size=8).hexdigest()
        return self.folder / f".{format_id(message.msgid)}.{digest}{MARKER_SUFFIX}"

    def deliver(self, message: Message) -> None:
        marker = self.marker(message)
        msgid = format_id(message.msgid)
        if marker.exists() and self._linked_name(marker, msgid) is not None:
            return  # delivered before a kill that came ahead of the commit: that file is this message
        try:
            with open(marker, "wb") as handle:
                handle.write(message.payload)
                handle.flush()
                os.fsync(handle.fileno())
        except BaseException:
            marker.unlink(missing_ok=True)  # never leave a partial file behind
            raise
        self._publish(marker, msgid)

    def _publish(self, marker: Path, msgid: str) -> None:
        """Gives the synced marker its visible name, never replacing another file."""
        number = 0
        while True:
            name = self.folder / (f"{msgid}.msg" if number == 0 else f"{msgid}.{number}.msg")
            number += 1
            if name.exists():
                continue
            if self._links:
                try:
                    os.link(marker, name)
                    return
                except FileExistsError:
                    continue  # another getter took the name a moment ago
                except OSError:
                    self._links = False
            os.replace(marker, name)
            return

    def _linked_name(self, marker: Path, msgid: str) -> str | None:
        """The visible name that is the same file as `marker`, if any (only looked for
        after a kill left a marker)."""
        try:
            found = marker.stat()
        except OSError:
            return None
        with os.scandir(self.folder) as entries:
            for entry in entries:
                if entry.name.startswith(msgid) and entry.name.endswith(".msg"):
                    try:
                        if os.path.samestat(found, entry.stat(follow_symlinks=False)):
                            return entry.name
                    except OSError:
                        continue
        return None

    def flush(self) -> None:
        sync_folder(self.folder)

    def committed(self, messages: list[Message]) -> None:
        """The messages' gets committed: their markers are no longer needed."""
        for message in messages:
            self.marker(message).unlink(missing_ok=True)


class BinaryOnTerminal(Undelivered):
    """A binary message that a get will not write to a terminal: it stays on the queue."""

    def __init__(self, message: Message) -> None:
        super().__init__(f"message {format_id(message.msgid)} is binary")
        self.message = message


class StreamSink:
    """Writes payloads to a byte stream, each followed by a newline (see the module
    docstring). `notice` hears of a binary message browsed but not written."""

    def __init__(
        self,
        stream: BinaryIO,
        terminal: bool = False,
        raw: bool = False,
        notice: Callable[[Message], None] | None = None,
    ) -> None:
        self.stream = stream
        self.guard = terminal and not raw
        self.notice = notice

    def deliver(self, message: Message) -> None:
        if self.guard and not is_text(message.payload):
            if self.notice is None:
                raise BinaryOnTerminal(message)
            self.stream.flush()  # the notice follows what came before it
            self.notice(message)
            return
        self.stream.write(message.payload)
        self.stream.write(b"\n")

    def flush(self) -> None:
        self.stream.flush()
