"""The z/TPF MQ storage model (model.py: SWBs, queue compression, the STAT counters),
its sweeper, the MQ monitor and the checkpoint (monitor.py), and the figures the
displays read (figures.py, stats.py). Importing the package registers the model with
the message core and the timers with tick."""

from mqtool.engine.core.model import register
from mqtool.engine.ztpf import monitor as monitor  # registers the monitor and checkpoint timers
from mqtool.engine.ztpf.model import MODEL

register(MODEL)
