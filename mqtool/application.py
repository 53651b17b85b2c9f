"""What this process is, as the queue managers it connects to see it (DISPLAY CONN's
APPLTAG): the CLI sets it to its command (`mqtool get`); a program that uses mqtool as
a library keeps "mqtool" or sets its own."""

from __future__ import annotations

NAME = ["mqtool"]  # a list, so importers see a change made after they imported it
