"""``ydotool`` (uinput through ``ydotoold``)."""

from __future__ import annotations

from dictate.errors import TypingError
from dictate.output.backends.keys import key_for
from dictate.output.backends.process import run_command

_KEYS = {"enter": 28, "tab": 15, "escape": 1}
"""Linux input event codes (``KEY_ENTER``, ``KEY_TAB``, ``KEY_ESC``), which ``ydotool key``
takes as ``CODE:1`` (down) and ``CODE:0`` (up)."""


class YdotoolBackend:
    """``ydotool`` (uinput through the ``ydotoold`` daemon). It types by key codes of a US
    layout, so text outside ASCII would not arrive (ydotool leaves it out and reports
    success): such text is refused with a TypingError before any of it is typed. Prefer
    wtype or dotool."""

    name = "ydotool"
    takes_back = True
    _BACKSPACE = 14  # KEY_BACKSPACE

    def type_text(self, text: str) -> None:
        if not text:
            return
        other = sorted({char for char in text if not (" " <= char <= "~" or char == "\t")})
        if other:
            raise TypingError(
                f"ydotool types ASCII only and cannot type {''.join(other)!r}: choose wtype "
                "or dotool, or the clipboard fallback, in Settings"
            )
        run_command(["ydotool", "type", "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        self._key(_KEYS["enter"], count)

    def press_key(self, name: str) -> None:
        self._key(key_for(name, _KEYS, self.name), 1)

    def backspace(self, count: int) -> None:
        self._key(self._BACKSPACE, count)

    def _key(self, code: int, count: int) -> None:
        if count > 0:
            run_command(["ydotool", "key", *([f"{code}:1", f"{code}:0"] * count)], self.name)

    def focused_window(self) -> str | None:
        return None
