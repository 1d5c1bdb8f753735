"""A typing backend for tests: it appends what it is asked to type to a string, as a text field
would, and can be told to fail (the real backends are tested under Xvfb)."""

from __future__ import annotations

from dictate.errors import TypingError


class Recorder:
    name = "recorder"
    takes_back = True

    def __init__(self, fail: bool = False) -> None:
        self.text = ""
        self.fail = fail

    def type_text(self, text: str) -> None:
        if self.fail:
            raise TypingError("xdotool could not type: no display")
        self.text += text

    def press_return(self, count: int = 1) -> None:
        self.text += "\n" * count

    def backspace(self, count: int) -> None:
        self.text = self.text[:-count]

    def focused_window(self) -> str | None:
        return "w"
