"""The IBM MQ for z/OS storage model: page sets and streaming queues (model.py, with
the arithmetic in pages.py), the expiry task (expiry.py), the log (log.py, with the
record sizes in logrecords.py) and statistics (stats.py). Importing platform.py
registers the model with the message core and the timers with tick (engine/platforms.py
does, on first use); the package itself imports nothing, so that a display reading one
figure does not load the whole engine."""
