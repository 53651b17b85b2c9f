"""BACKUP CFSTRUCT and RECOVER CFSTRUCT: coupling facility structures belong to
queue-sharing groups, and this queue manager is in none (everyday.py). RECOVER BSDS is
answered in recovery.py."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only, everyday, not_in_group


@active_only
def handle(ctx: Any, req: Any) -> Response:
    routed = everyday.route(ctx, req)  # RECOVER BSDS
    if routed is not None:
        return routed
    return not_in_group(ctx, req)
