"""The z/TPF HTTP server engine: configuration files, coding negotiation, STATS
counters and the asyncio/h11 server that the ZHTPS command handlers drive."""

# The server itself is imported from mqtool.engine.http.server where it is needed,
# so commands that only read a configuration do not load asyncio and h11.
from .config import ConfigError, ServerOptions, load_options, template
from .negotiate import choose_coding, decide, parse_accept_encoding
from .stats import HttpStats

__all__ = [
    "ConfigError",
    "HttpStats",
    "ServerOptions",
    "choose_coding",
    "decide",
    "load_options",
    "parse_accept_encoding",
    "template",
]
