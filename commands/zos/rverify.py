"""RVERIFY SECURITY(userid,...): qmsecurity.py."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only
from .qmsecurity import handle as security


@active_only
def handle(ctx: Any, req: Any) -> Response:
    return security(ctx, req)
