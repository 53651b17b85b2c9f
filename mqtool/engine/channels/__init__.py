"""Channels between the queue managers of a complex: negotiation of the compression
technique at start, batches, the wire (wire.py), channel status and statistics."""
