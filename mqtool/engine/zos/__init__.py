"""The IBM MQ for z/OS storage model: page sets and streaming queues (model.py, with
the arithmetic in pages.py), the expiry task (expiry.py), the log (log.py, with the
record sizes in logrecords.py) and statistics (stats.py). Importing the package
registers the model with the message core and the timers with tick."""

from mqtool.engine.core.model import register
from mqtool.engine.zos import expiry as expiry  # registers the expiry task
from mqtool.engine.zos import log as log  # registers the offload task
from mqtool.engine.zos import stats as stats  # registers the statistics interval
from mqtool.engine.zos.model import ZOS

register(ZOS)
