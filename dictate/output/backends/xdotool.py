"""X11 through ``xdotool``."""

from __future__ import annotations

from collections.abc import Callable

from dictate.errors import TypingError
from dictate.output.backends.keys import key_for
from dictate.output.backends.process import run_command

_KEYS = {"enter": "Return", "tab": "Tab", "escape": "Escape"}
"""The X keysym names ``xdotool key`` takes."""


class XdotoolBackend:
    """X11 through ``xdotool`` (XTest)."""

    name = "xdotool"
    takes_back = True

    def __init__(self, delay_ms: int = 8, remapped_delay_ms: int = 60) -> None:
        self.delay_ms = delay_ms
        self.remapped_delay_ms = remapped_delay_ms

    def type_text(self, text: str) -> None:
        # A character the keyboard map lacks (é, —, emoji) is typed by remapping a spare
        # keycode to it; a busy receiver can read the key after the map has already changed for
        # the next such character and drop it (seen under load: "שלום" arrived as "לום"). So
        # those characters go slowly, in runs of their own; plain ASCII goes fast.
        for run, remapped in _runs(text):
            if not remapped:
                self._type(run, self.delay_ms)
                continue
            for piece, capital in _group(run, lambda char: char.lower() != char):
                if capital:
                    # `xdotool type` remaps a keycode to the keysym alone, and X reads a lone
                    # Latin-1 letter keysym as a lower/upper pair: "É" came out as "é". With
                    # Shift held, the same key gives the capital.
                    keys = [f"shift+U{ord(char):04X}" for char in piece]
                    command = ["xdotool", "key", "--clearmodifiers"]
                    run_command(
                        [*command, "--delay", str(self.remapped_delay_ms), *keys], self.name
                    )
                else:
                    self._type(piece, self.remapped_delay_ms)

    def _type(self, text: str, delay: int) -> None:
        args = ["xdotool", "type", "--clearmodifiers", "--delay", str(delay)]
        run_command([*args, "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        self._key(_KEYS["enter"], count)

    def press_key(self, name: str) -> None:
        self._key(key_for(name, _KEYS, self.name), 1)

    def backspace(self, count: int) -> None:
        self._key("BackSpace", count)

    def _key(self, key: str, count: int) -> None:
        if count > 0:
            command = ["xdotool", "key", "--clearmodifiers", "--delay", str(self.delay_ms)]
            run_command([*command, "--repeat", str(count), key], self.name)

    def focused_window(self) -> str | None:
        try:
            return run_command(["xdotool", "getwindowfocus"], self.name).strip() or None
        except TypingError:
            return None


def _runs(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into runs of printable ASCII and of other characters (True)."""
    return _group(text, lambda char: not (" " <= char <= "~"))


def _group(text: str, kind: Callable[[str], bool]) -> list[tuple[str, bool]]:
    """``text`` cut into runs of characters of one ``kind``."""
    runs: list[tuple[str, bool]] = []
    for char in text:
        this = kind(char)
        if runs and runs[-1][1] == this:
            runs[-1] = (runs[-1][0] + char, this)
        else:
            runs.append((char, this))
    return runs
