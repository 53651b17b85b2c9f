"""Channels between the queue managers of a complex: negotiation of the compression
technique at start, batches, the wire (wire.py), channel status and statistics.

- wire.py: pure functions: what a channel pair negotiates, how one message goes on the
  wire and comes back (bounded inflation); `mqtool estimate` uses them too.
- partner.py: listener addresses, the other end of a channel, platform naming.
- status.py: a channel's status and statistics as kept in the store.
- mca.py: the message channel agents (start, batches, in-doubt resolution, retries),
  driven by tick; the commands' entry points.
- offload.py: where a batch's wire work runs beside its store work (a helper process,
  a thread, or at once).
- deadletter.py: the dead-letter header of undeliverable messages.
- corpus.py: the seed's channel compression table, measured on the generated corpus.
"""
