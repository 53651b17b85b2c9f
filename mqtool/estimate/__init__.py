"""mqtool estimate: what queue, channel, log and HTTP compression would save on a
planner's own payloads, per size class, computed by running every message through the
engine's codecs and storage models. Nothing here touches the store.

- settings.py: the planner's question (sizes with units, classes, the system's and the
  objects' settings) as one picklable record;
- sources.py: files, folders, globs, split modes and generated corpora as work units;
- measure.py: one message through the engine, added into per-class tallies;
- run.py: the units over a process pool (or in process), merged;
- report.py: the figures of each report from the tallies (ratios, SWBs, sweeper,
  channel, HTTP, z/OS, CPU, the COMPSIZE recommendation);
- render.py and plot.py: the table, JSON, CSV, Markdown and the chart.
"""
