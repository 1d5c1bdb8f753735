"""``dictate punctuate``: segments on stdin, punctuated text on stdout."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any, TextIO

from dictate.cli.common import (
    Streams,
    add_decoder_args,
    add_model_args,
    decoder_options,
    load_model,
)
from dictate.errors import InputError

MAX_LINE_BYTES = 1 << 20
"""A punctuate input line longer than this cannot hold a valid segment (2,000 words)."""


def _stdin_segments(stream: Any) -> Iterator[list[str]]:
    """Segments from a binary stream, one per non-empty line, validated."""
    from dictate.punctuation.text import MAX_SEGMENT_WORDS, segment_words

    number = 0
    while True:
        # readline with a limit: a line of a gigabyte is refused after MAX_LINE_BYTES, never
        # read whole into memory.
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(
                f"stdin line {number} is longer than {MAX_LINE_BYTES:,} bytes; one line is one "
                f"recogniser segment of at most {MAX_SEGMENT_WORDS:,} words, so split the text "
                "into lines"
            )
        if b"\0" in raw:
            raise InputError(
                f"stdin line {number} contains NUL bytes: the input is binary, "
                "not text; pipe text with one segment per line"
            )
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"stdin line {number} is not UTF-8 text ({exc.reason} at byte "
                f"{exc.start}); convert the input to UTF-8"
            ) from exc
        words = segment_words(line)
        if len(words) > MAX_SEGMENT_WORDS:
            raise InputError(
                f"stdin line {number} has {len(words):,} words; one line is one "
                f"recogniser segment of at most {MAX_SEGMENT_WORDS:,} words, so "
                "split the text into lines"
            )
        if words:
            yield words


def cmd_punctuate(args: argparse.Namespace, stdin: Any, stdout: TextIO) -> int:
    from dictate.punctuation.decoder import make_punctuator

    options = decoder_options(args)
    punctuator = make_punctuator(load_model(args), args.mode, options)
    written = False

    def emit(text: str) -> None:
        nonlocal written
        if text:
            stdout.write((" " if written else "") + text)
            stdout.flush()  # a live pipe sees each sentence as soon as it is final
            written = True

    try:
        for words in _stdin_segments(stdin):
            emit(punctuator.feed(words).finalized_text)
    finally:
        # Bad input further down must not swallow what was already read.
        emit(punctuator.flush().finalized_text)
        if written:
            stdout.write("\n")
            stdout.flush()
    return 0


def register(commands: Any) -> None:
    punctuate = commands.add_parser(
        "punctuate",
        help="punctuate ASR segments from stdin (one per line)",
        description="Read one recogniser segment per line on stdin, write the punctuated, "
        "capitalised text to stdout. Punctuation in the input is stripped; empty lines are "
        "ignored.",
    )
    punctuate.add_argument("--mode", choices=("streaming", "baseline"), default="streaming")
    add_model_args(punctuate)
    add_decoder_args(punctuate)
    punctuate.set_defaults(func=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    stdin = io.stdin
    if stdin is None:
        if sys.stdin is None:
            raise InputError("standard input is closed; pipe text into dictate punctuate")
        stdin = sys.stdin.buffer
    return cmd_punctuate(args, stdin, io.stdout)
