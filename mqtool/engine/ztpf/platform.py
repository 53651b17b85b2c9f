"""Registers the z/TPF MQ platform: its storage model with the message core and its
timers (the MQ monitor and the checkpoint) with tick. engine/platforms.py imports this
module when the engine first needs a platform; the displays that only read the figures
(figures.py) import no more than those."""

from mqtool.engine.core.model import register
from mqtool.engine.ztpf import monitor as monitor  # registers the monitor and checkpoint timers
from mqtool.engine.ztpf.model import MODEL

register(MODEL)
