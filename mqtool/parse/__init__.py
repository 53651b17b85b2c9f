"""Lexers for the three command dialects and directives, and the MQSC file rules."""

from mqtool.parse.command import Command, Directive, LexError, Param
from mqtool.parse.lines import SourceCommand, assemble

__all__ = ["Command", "Directive", "LexError", "Param", "SourceCommand", "assemble"]
