"""``dictate normalize``: punctuated text on stdin, its written forms on stdout, line by line."""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from dictate.cli.common import Streams, stdin_binary, stdin_lines


def cmd_normalize(stdin: Any, stdout: TextIO) -> int:
    from dictate.writing.forms import written

    for _, line in stdin_lines(stdin, "split the text into lines"):
        stdout.write(written(line[:-1] if line.endswith("\n") else line) + "\n")
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
    return cmd_normalize(stdin_binary(io, "normalize"), io.stdout)
