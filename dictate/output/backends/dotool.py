"""``dotool`` (uinput; Wayland and X11)."""

from __future__ import annotations

from dictate.output.backends.process import run_command


class DotoolBackend:
    """``dotool`` (uinput; Wayland and X11): commands on its standard input."""

    name = "dotool"
    takes_back = True

    def type_text(self, text: str) -> None:
        if text:
            run_command(["dotool"], self.name, stdin=f"type {text}\n")

    def press_return(self, count: int = 1) -> None:
        if count > 0:
            run_command(["dotool"], self.name, stdin="key enter\n" * count)

    def backspace(self, count: int) -> None:
        if count > 0:
            run_command(["dotool"], self.name, stdin="key backspace\n" * count)

    def focused_window(self) -> str | None:
        return None
