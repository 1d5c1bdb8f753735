"""``dictate type TEXT``: type text into the focused window, as dictation into other
applications does."""

from __future__ import annotations

import argparse
from typing import Any

from dictate.cli.common import Streams


def run(args: argparse.Namespace, io: Streams) -> int:
    from dictate.config import load_settings
    from dictate.output.typing import choose_backend, close_backend, type_into

    settings = load_settings()
    backend = choose_backend(
        args.backend or settings.typing_backend, clipboard_fallback=settings.clipboard_fallback
    )
    try:
        type_into(backend, " ".join(args.text).replace("\r\n", "\n"))
    finally:
        close_backend(backend)
    return 0


def register(commands: Any) -> None:
    from dictate.output.typing import BACKENDS

    parser = commands.add_parser(
        "type",
        help="type TEXT into the window that has the keyboard focus",
        description="Type TEXT into whichever window has the keyboard focus, with the backend "
        "dictation into other applications uses (chosen for this session unless --backend or "
        "the settings say otherwise). A line break in TEXT is typed as Return. Exit status 2 "
        "with one line when no backend can type here.",
    )
    parser.add_argument("text", nargs="+", metavar="TEXT", help="the text (several are joined)")
    parser.add_argument("--backend", choices=BACKENDS, help="how to type (default: automatic)")
    parser.set_defaults(func=run)
