"""The base of the enums whose members are their strings (events, settings and queues carry the
strings; code compares and names the members)."""

from __future__ import annotations

from enum import Enum


class TextEnum(str, Enum):
    """A member equals its string value, and ``str()``, f-strings and ``format()`` give the value
    on every Python this runs on (3.11 changed ``format()`` of mixed-in enums)."""

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
