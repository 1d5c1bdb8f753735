"""``ydotool`` (uinput through ``ydotoold``)."""

from __future__ import annotations

from dictate.output.backends.process import run_command


class YdotoolBackend:
    """``ydotool`` (uinput through the ``ydotoold`` daemon). It types by key codes of a US
    layout, so text outside ASCII does not arrive: prefer wtype or dotool."""

    name = "ydotool"
    takes_back = True
    _ENTER, _BACKSPACE = 28, 14  # Linux input event codes

    def type_text(self, text: str) -> None:
        if text:
            run_command(["ydotool", "type", "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        self._key(self._ENTER, count)

    def backspace(self, count: int) -> None:
        self._key(self._BACKSPACE, count)

    def _key(self, code: int, count: int) -> None:
        if count > 0:
            run_command(["ydotool", "key", *([f"{code}:1", f"{code}:0"] * count)], self.name)

    def focused_window(self) -> str | None:
        return None
