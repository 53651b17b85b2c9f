"""Registers the IBM MQ for z/OS platform: its storage model with the message core and
its timers (the expiry task, the log's offload, the statistics interval) with tick.
engine/platforms.py imports this module when the engine first needs a platform; a
display that reads one figure (handles.py, stats.py) imports no more than it needs."""

from mqtool.engine.core.model import register
from mqtool.engine.zos import expiry as expiry  # registers the expiry task
from mqtool.engine.zos import log as log  # registers the offload task
from mqtool.engine.zos import stats as stats  # registers the statistics interval
from mqtool.engine.zos.model import ZOS

register(ZOS)
