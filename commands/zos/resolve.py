"""RESOLVE CHANNEL(name) ACTION(COMMIT|BACKOUT): a stopped sender's batch in doubt
(channels.py)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only
from .channels import resolve


@active_only
def handle(ctx: Any, req: Any) -> Response:
    return resolve(ctx, req)
