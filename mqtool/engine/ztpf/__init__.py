"""The z/TPF MQ storage model (model.py: SWBs, queue compression, the STAT counters),
its sweeper, the MQ monitor and the checkpoint (monitor.py), and the figures the
displays read (figures.py, stats.py). Importing platform.py registers the model with
the message core and the timers with tick (engine/platforms.py does, on first use); the
package itself imports nothing, so a display that reads the figures starts fast."""
