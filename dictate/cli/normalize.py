"""``dictate normalize``: punctuated text on stdin, its written forms on stdout, line by line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from dictate.cli.common import Streams
from dictate.cli.punctuate import MAX_LINE_BYTES
from dictate.errors import InputError


def _stdin_lines(stream: Any) -> Iterator[str]:
    """Lines of a binary stream as text, without their ``\\n``; validated one at a time."""
    number = 0
    while True:
        # readline with a limit, as punctuate does: a line of a gigabyte is refused after
        # MAX_LINE_BYTES, never read whole into memory.
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(
                f"stdin line {number} is longer than {MAX_LINE_BYTES:,} bytes; split the text "
                "into lines"
            )
        if b"\0" in raw:
            raise InputError(
                f"stdin line {number} contains NUL bytes: the input is binary, not text"
            )
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"stdin line {number} is not UTF-8 text ({exc.reason} at byte "
                f"{exc.start}); convert the input to UTF-8"
            ) from exc
        yield line[:-1] if line.endswith("\n") else line


def cmd_normalize(stdin: Any, stdout: TextIO) -> int:
    from dictate.writing.forms import written

    for line in _stdin_lines(stdin):
        stdout.write(written(line) + "\n")
        stdout.flush()  # a live pipe sees each line as soon as it is written
    return 0


def register(commands: Any) -> None:
    normalize = commands.add_parser(
        "normalize",
        help="write spoken numbers in punctuated text from stdin as digits",
        description="Read punctuated text on stdin and write it to stdout with numbers, money, "
        "times, dates, percentages, measures and phone numbers in their written forms "
        '("At nine thirty a m, we paid twenty five dollars." -> "At 9:30 a.m., we paid '
        '$25."). One output line per input line; no punctuation model is used.',
    )
    normalize.set_defaults(func=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    stdin = io.stdin
    if stdin is None:
        if sys.stdin is None:
            raise InputError("standard input is closed; pipe text into dictate normalize")
        stdin = sys.stdin.buffer
    return cmd_normalize(stdin, io.stdout)
