"""The ``dictate`` command: one module per subcommand (punctuate, normalize, eval, bench,
transcribe, devices, models), each registering its parser with ``set_defaults(func=...)``;
shared options and loaders are in :mod:`dictate.cli.common`.

Exit status: 0 on success, 2 on bad input or a missing or broken model (one line on stderr,
no traceback), 1 on an unexpected internal error, 130 when interrupted. :func:`main` is the one
place that maps exceptions to exit statuses.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from dictate import __version__, memory
from dictate.cli import (
    bench,
    devices,
    evaluate,
    history,
    models,
    normalize,
    punctuate,
    remote_control,
    transcribe,
    typetext,
    vocabulary,
)
from dictate.cli.common import EXIT_BAD_INPUT, Parser, Streams
from dictate.errors import DictateError, InputError
from dictate.text_safety import shown

__all__ = ["build_parser", "main", "run"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dictate`` command."""
    parser = Parser(prog="dictate", description="Offline dictation with streaming punctuation.")
    parser.add_argument("--version", action="version", version=f"dictate {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="run the app offscreen on the bundled sample recording; exit 0 if the text appears",
    )
    parser.add_argument(
        "--command",
        dest="app_command",
        choices=remote_control.APP_COMMANDS,
        metavar="CMD",
        help="with the app: carry out CMD (toggle, start, stop, show) once its window is up, or "
        "hand it to the dictate already running",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module in (punctuate, normalize, evaluate, bench, transcribe, devices, models, typetext):
        module.register(commands)
    history.register(commands)
    vocabulary.register(commands)
    remote_control.register(commands)
    return parser


def run(
    argv: Sequence[str] | None = None,
    *,
    stdin: Any = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Parse ``argv`` and run the command; returns the exit status.

    Raises:
        DictateError: Bad input or a missing model (``main`` turns it into exit status 2).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="dictate: %(message)s"
    )
    # A library's Python warnings (numpy's "invalid value encountered...") are not the user's
    # business, and were printed before dictate's own one-line errors: shown with -v only.
    logging.captureWarnings(True)
    logging.getLogger("py.warnings").setLevel(logging.INFO if args.verbose else logging.ERROR)
    out = stdout or sys.stdout
    if out is None:
        raise InputError("standard output is closed; run dictate with its output open")
    command = getattr(args, "func", None)
    if command is not None:
        return int(command(args, Streams(out, stderr, stdin)))
    if args.self_test:
        from dictate.ui.selftest import self_test

        return self_test()
    from dictate.ui.app import run_app

    return run_app(command=args.app_command)


def _silence_stdout() -> None:
    if sys.stdout is not None:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


_WRITING = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EPIPE, errno.EIO, errno.EROFS}
"""What an OSError naming no file means when it is the output that failed to be written."""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dictate`` console script."""
    memory.limit_heaps()  # before any thread: the window and transcribe run a few busy ones
    memory.map_large_blocks()  # a decode's buffers handed back as they are freed
    try:
        return run(argv)
    except DictateError as exc:
        print(f"dictate: error: {shown(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): point stdout at devnull so the interpreter's
        # final flush does not raise again (the recipe in Python's signal documentation).
        _silence_stdout()
        return 0
    except OSError as exc:
        _silence_stdout()
        if exc.filename is not None:  # a named file: read or written, the message says which
            print(f"dictate: error: {shown(str(exc.strerror or exc))}: {shown(str(exc.filename))}",
                  file=sys.stderr)  # fmt: skip
        elif exc.errno in _WRITING:  # writing the output failed: a full disk, a closed pipe
            print(f"dictate: error: cannot write the output: {shown(str(exc))}", file=sys.stderr)
        else:  # not known to be the output's: said as it is
            print(f"dictate: error: {shown(str(exc.strerror or exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT
