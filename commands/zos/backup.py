"""BACKUP CFSTRUCT and RECOVER CFSTRUCT: coupling facility structures belong to
queue-sharing groups, and this queue manager is in none (everyday.py). RECOVER BSDS is
recognised and not available (the keyword table's unavailable section)."""

from __future__ import annotations

from typing import Any

from mqtool.response import Response

from . import active_only
from .everyday import not_in_group


@active_only
def handle(ctx: Any, req: Any) -> Response:
    return not_in_group(ctx, req)
