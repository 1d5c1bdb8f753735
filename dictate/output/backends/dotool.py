"""``dotool`` (uinput; Wayland and X11)."""

from __future__ import annotations

from dictate.output.backends.keys import key_for
from dictate.output.backends.process import run_command

_KEYS = {"enter": "enter", "tab": "tab", "escape": "esc"}
"""dotool's names of the keys: Linux's (``KEY_ENTER``, ``KEY_TAB``, ``KEY_ESC``) in lower case."""


class DotoolBackend:
    """``dotool`` (uinput; Wayland and X11): commands on its standard input."""

    name = "dotool"
    takes_back = True

    def type_text(self, text: str) -> None:
        if text:
            run_command(["dotool"], self.name, stdin=f"type {text}\n")

    def press_return(self, count: int = 1) -> None:
        self._key(_KEYS["enter"], count)

    def press_key(self, name: str) -> None:
        self._key(key_for(name, _KEYS, self.name), 1)

    def backspace(self, count: int) -> None:
        self._key("backspace", count)

    def _key(self, key: str, count: int) -> None:
        if count > 0:
            run_command(["dotool"], self.name, stdin=f"key {key}\n" * count)

    def focused_window(self) -> str | None:
        return None
