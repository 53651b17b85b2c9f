"""The IBM MQ for z/OS storage model: page sets (pages.py), the log (logrecords.py),
streaming queues, the expiry task and the statistics records."""
