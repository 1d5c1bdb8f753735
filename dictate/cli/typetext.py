"""``dictate type TEXT``: type text into the focused window, as dictation into other
applications does."""

from __future__ import annotations

import argparse
import unicodedata
from typing import Any

from dictate.cli.common import Streams
from dictate.errors import InputError

TYPED_CONTROLS = {"\n": "Return", "\t": "Tab"}
"""The control characters ``dictate type`` types (a line break as Return, a tab as Tab, as
every backend does with them); any other one is refused (:func:`check_text`)."""
_KEY_NAMES = {0x00: "NUL", 0x08: "BackSpace", 0x0D: "carriage return", 0x1B: "Escape",
              0x7F: "Delete"}  # fmt: skip


def run(args: argparse.Namespace, io: Streams) -> int:
    text = " ".join(args.text).replace("\r\n", "\n")
    check_text(text)  # before a backend is chosen: nothing is typed when anything is refused
    from dictate.config import load_settings
    from dictate.output.backends import close_backend, type_into
    from dictate.output.chooser import choose_backend

    settings = load_settings()
    backend = choose_backend(
        args.backend or settings.typing_backend, clipboard_fallback=settings.clipboard_fallback
    )
    try:
        type_into(backend, text)
    finally:
        close_backend(backend)
    return 0


def check_text(text: str) -> None:
    """Refuse a control character other than a line break or a tab.

    The backends would press them as keys in whichever application has the focus: Escape
    closes its dialog, Ctrl+C (U+0003) may interrupt a terminal, DEL deletes. Text to type never
    needs them; a script that passes them on by mistake must not act in someone's window.

    Raises:
        InputError: The first such character, as U+XXXX with its position (from 1) in TEXT.
    """
    for position, char in enumerate(text, 1):
        if char not in TYPED_CONTROLS and unicodedata.category(char) == "Cc":
            code = ord(char)
            raise InputError(
                f"TEXT has the control character U+{code:04X}{_key_name(code)} at position "
                f"{position}; dictate type does not press control keys in other applications: "
                "remove it (only a line break, typed as Return, and a tab are typed)"
            )


def _key_name(code: int) -> str:
    """`` (Escape)``, `` (Ctrl+C)``: what the character is on a keyboard, where it has a name."""
    if code in _KEY_NAMES:
        return f" ({_KEY_NAMES[code]})"
    if 0x01 <= code <= 0x1A:
        return f" (Ctrl+{chr(code + 0x40)})"
    return ""


def register(commands: Any) -> None:
    from dictate.output.chooser import BACKENDS

    parser = commands.add_parser(
        "type",
        help="type TEXT into the window that has the keyboard focus",
        description="Type TEXT into whichever window has the keyboard focus, with the backend "
        "dictation into other applications uses (chosen for this session unless --backend or "
        "the settings say otherwise). A line break in TEXT is typed as Return, a tab as Tab; "
        "any other control character (Escape, Ctrl+C = U+0003, DEL, the C1 controls "
        "U+0080-U+009F) is refused before anything is typed, with exit status 2 and one line "
        "naming it, so TEXT never presses control keys in another application. Exit status 2 "
        "with one line too when no backend can type here.",
    )
    parser.add_argument("text", nargs="+", metavar="TEXT", help="the text (several are joined)")
    parser.add_argument("--backend", choices=BACKENDS, help="how to type (default: automatic)")
    parser.set_defaults(func=run)
