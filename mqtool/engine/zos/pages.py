"""The z/OS page arithmetic: what a message costs on its queue's page set. A message
takes ceil((stored length + 500) / 4096) pages (spec zos-mq.md section 4: 500 bytes of
page-set control information per message); each object definition takes one page of
page set 0 (mqtool's choice, documented in mqtool-zos(7))."""

from __future__ import annotations

PAGE = 4096
MESSAGE_OVERHEAD = 500  # bytes of page-set control information per message
OBJECT_PAGES = 1  # pages of page set 0 one object definition takes


def pages_for(length: int) -> int:
    """Pages one message of `length` stored bytes occupies."""
    return -(-(length + MESSAGE_OVERHEAD) // PAGE)


def messages_held(pages: int, length: int) -> int:
    """How many messages of `length` stored bytes a page set of `pages` pages holds."""
    return pages // pages_for(length)
