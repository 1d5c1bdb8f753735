"""The keys a voice command presses in another application ("press enter", "press tab", "press
escape"), and the one error for a key a backend has no name for."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from dictate.errors import TypingError

KEYS = ("enter", "tab", "escape")
"""The names of the keys a backend's ``press_key`` presses."""

_Key = TypeVar("_Key")


def key_for(name: str, table: Mapping[str, _Key], backend: str) -> _Key:
    """What ``backend`` sends for the key ``name`` (one of :data:`KEYS`), from its ``table``; an
    unknown name is a :class:`TypingError` (the typing queue reports it, nothing is pressed)."""
    try:
        return table[name]
    except KeyError:
        raise TypingError(
            f"{backend} cannot press the key {name!r}; it presses {', '.join(KEYS)}"
        ) from None
