"""Wayland compositors with the virtual-keyboard protocol, through ``wtype``."""

from __future__ import annotations

from dictate.output.backends.keys import key_for
from dictate.output.backends.process import run_command

_KEYS = {"enter": "Return", "tab": "Tab", "escape": "Escape"}
"""The XKB keysym names ``wtype -k`` takes."""


class WtypeBackend:
    """Wayland compositors with the virtual-keyboard protocol (sway, Hyprland, KDE)."""

    name = "wtype"
    takes_back = True
    SETTLE = ("-s", "50")
    """wtype waits 50 ms before its first key: the compositor has not applied the virtual
    keyboard's keymap before that, and the first key of every call was lost (tried on a
    headless sway: "abc" arrived as "bc" each time; with 10 or 50 ms, 20 of 20 arrived under
    load). Each piece commit on pause types lost its joining space or its mark."""

    def type_text(self, text: str) -> None:
        if text:
            run_command(["wtype", *self.SETTLE, "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        self._key(_KEYS["enter"], count)

    def press_key(self, name: str) -> None:
        self._key(key_for(name, _KEYS, self.name), 1)

    def backspace(self, count: int) -> None:
        self._key("BackSpace", count)

    def _key(self, key: str, count: int) -> None:
        if count > 0:
            run_command(["wtype", *self.SETTLE, *(["-k", key] * count)], self.name)

    def focused_window(self) -> str | None:
        return None  # Wayland does not tell other clients which window has the focus
