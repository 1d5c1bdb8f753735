"""The fallback: each sentence is put on the clipboard for the user to paste."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable

from dictate.errors import TypingError
from dictate.output.backends.keys import key_for

_KEYS = {"enter": "\n", "tab": "\t", "escape": ""}
"""What a key press puts before the next text: Escape has no text, and nothing to act on."""


class ClipboardBackend:
    """The fallback: each sentence goes on the clipboard for the user to paste (Ctrl+V).

    Nothing is typed, so line breaks (and "press tab") become part of the next text put on the
    clipboard, nothing can be taken back, and "press escape" does nothing.

    Args:
        set_text: Puts text on the clipboard (the window passes Qt's clipboard); by default
            ``wl-copy`` on Wayland, ``xclip`` or ``xsel`` on X11.
    """

    name = "clipboard"
    takes_back = False

    def __init__(self, set_text: Callable[[str], None] | None = None) -> None:
        self._set_text = set_text or _command_clipboard()
        self._queued = ""  # the breaks and tabs pressed since the last text

    def type_text(self, text: str) -> None:
        self._set_text(self._queued + text)
        self._queued = ""

    def press_return(self, count: int = 1) -> None:
        self._queued += "\n" * count

    def press_key(self, name: str) -> None:
        # Enter and Tab go with the next text, as line breaks do. Escape is no text: it is left
        # out rather than refused, since a typing error sends all dictated after it to the window.
        self._queued += key_for(name, _KEYS, self.name)

    def backspace(self, count: int) -> None:
        raise TypingError(
            "text put on the clipboard cannot be taken back; undo it where you pasted"
        )

    def focused_window(self) -> str | None:
        return None


def _command_clipboard() -> Callable[[str], None]:
    env = os.environ
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-copy"):
        command = ["wl-copy"]
    elif env.get("DISPLAY") and shutil.which("xclip"):
        command = ["xclip", "-selection", "clipboard"]
    elif env.get("DISPLAY") and shutil.which("xsel"):
        command = ["xsel", "--clipboard", "--input"]
    else:
        raise TypingError(
            "no clipboard tool: install wl-clipboard (Wayland) or xclip (X11), or use the window"
        )

    def set_text(text: str) -> None:
        # xclip and wl-copy stay in the background to serve the selection: do not wait for them.
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            assert process.stdin is not None
            process.stdin.write(text.encode("utf-8"))
            process.stdin.close()
        except OSError as exc:
            raise TypingError(f"{command[0]} failed: {exc}") from None

    return set_text
