"""The IBM MQ for z/OS storage model: page sets and streaming queues (model.py, with
the arithmetic in pages.py), the expiry task (expiry.py), the log (logrecords.py).
Importing the package registers the model with the message core and the timers with
tick."""

from mqtool.engine.core.model import register
from mqtool.engine.zos import expiry as expiry  # registers the expiry task
from mqtool.engine.zos.model import ZOS

register(ZOS)
