"""Wayland compositors with the virtual-keyboard protocol (wlroots: sway, Hyprland, river,
labwc, Wayfire), through ``wtype``. Tested under a headless sway with a Qt window receiving
(tests/output/test_typing_wayland.py)."""

from __future__ import annotations

import os

from dictate.errors import TypingError
from dictate.output.backends.keys import key_for
from dictate.output.backends.process import run_command

_KEYS = {"enter": "Return", "tab": "Tab", "escape": "Escape"}
"""The XKB keysym names ``wtype -k`` takes."""

_ADVICE = {
    "virtual keyboard protocol": "this compositor has no virtual-keyboard protocol (GNOME and "
    "KDE do not offer it): choose dotool or ydotool, or the clipboard fallback, in Settings",
    "Wayland connection failed": "it could not connect to the Wayland display ({display}): "
    "start dictate inside the Wayland session, or choose another typing backend in Settings",
}
"""What to do about wtype's own failures, by a part of what it prints."""


class WtypeBackend:
    """Wayland compositors with the virtual-keyboard protocol (wlroots: sway, Hyprland, river).
    A failure of wtype (no such protocol, no Wayland connection) is a TypingError that says
    what to do: wtype exits non-zero then, and nothing was typed."""

    name = "wtype"
    takes_back = True
    SETTLE = ("-s", "100")
    """wtype waits 100 ms before its first key: the compositor has not applied the virtual
    keyboard's keymap before that, and the first key of every call was lost (on a headless
    sway 1.7 with a Qt window: "abc" then " def" arrived as "abcdef", then "bcdef"; 6 of 20
    first keys arrived without a wait). Each piece commit on pause types lost its joining
    space or its mark. The loss is a matter of time, not of order (a harmless key pressed first
    does not prevent it), so the wait is what helps: measured with 20 to 40 two-letter calls
    on 2 cores, 5 ms let 17 of 20 first keys through with 8 busy processes, 50 ms all 20 with
    8 busy processes but 37 of 40 with 16, 100 ms all 40 with 16."""

    def type_text(self, text: str) -> None:
        if text:
            self._run([*self.SETTLE, "--", text])

    def press_return(self, count: int = 1) -> None:
        self._key(_KEYS["enter"], count)

    def press_key(self, name: str) -> None:
        self._key(key_for(name, _KEYS, self.name), 1)

    def backspace(self, count: int) -> None:
        self._key("BackSpace", count)

    def _key(self, key: str, count: int) -> None:
        if count > 0:
            self._run([*self.SETTLE, *(["-k", key] * count)])

    def _run(self, args: list[str]) -> None:
        try:
            run_command(["wtype", *args], self.name)
        except TypingError as exc:
            for part, advice in _ADVICE.items():
                if part in str(exc):
                    display = os.environ.get("WAYLAND_DISPLAY") or "WAYLAND_DISPLAY is not set"
                    raise TypingError(f"{exc}; {advice.format(display=display)}") from None
            raise

    def focused_window(self) -> str | None:
        return None  # Wayland does not tell other clients which window has the focus
