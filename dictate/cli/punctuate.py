"""``dictate punctuate``: segments on stdin, punctuated text on stdout."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any, TextIO

from dictate.cli.common import (
    Streams,
    add_decoder_args,
    add_model_args,
    add_writing_args,
    decoder_options,
    load_model,
    stdin_binary,
    stdin_lines,
)
from dictate.errors import InputError


def _stdin_segments(stream: Any) -> Iterator[list[str]]:
    """Segments from a binary stream, one per non-empty line, validated."""
    from dictate.punctuation.text import MAX_SEGMENT_WORDS, segment_words

    hint = (
        f"one line is one recogniser segment of at most {MAX_SEGMENT_WORDS:,} words, so split "
        "the text into lines"
    )
    for number, line in stdin_lines(stream, hint, "pipe text with one segment per line"):
        words = segment_words(line)
        if len(words) > MAX_SEGMENT_WORDS:
            raise InputError(f"stdin line {number} has {len(words):,} words; {hint}")
        if words:
            yield words


def cmd_punctuate(args: argparse.Namespace, stdin: Any, stdout: TextIO) -> int:
    from dictate.cli.text_output import TextOutput
    from dictate.punctuation.baseline import make_punctuator
    from dictate.text.stage import TextStage
    from dictate.writing.writer import make_writer

    options = decoder_options(args)
    punctuator = make_punctuator(load_model(args), args.mode, options)
    output = TextOutput(stdout, whole=args.commands)
    # Written forms only: the settings' replacements are the window's and `transcribe`'s, and
    # would make this command's output depend on the machine.
    writer = make_writer(True) if args.written else None
    stage = TextStage(
        punctuator, output.apply, commands=args.commands, writer=writer, addresses=args.written
    )
    number = 0
    try:
        for number, words in enumerate(_stdin_segments(stdin), start=1):
            stage.segment(number, words)
    finally:
        # Bad input further down must not swallow what was already read.
        stage.finish(number)
        output.close()
    return 0


def register(commands: Any) -> None:
    punctuate = commands.add_parser(
        "punctuate",
        help="punctuate ASR segments from stdin (one per line)",
        description="Read one recogniser segment per line on stdin, write the punctuated, "
        "capitalised text to stdout. Punctuation in the input is stripped; empty lines are "
        "ignored. --written writes numbers, dates and money as people write them; --commands "
        'carries out a voice command or spoken punctuation that is a line of its own ("new '
        'paragraph", "comma", "scratch that"), writing a line break as a line break and '
        "a paragraph break as an empty line.",
    )
    punctuate.add_argument("--mode", choices=("streaming", "baseline"), default="streaming")
    add_model_args(punctuate)
    add_decoder_args(punctuate)
    add_writing_args(punctuate, default_on=False)
    punctuate.set_defaults(func=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    return cmd_punctuate(args, stdin_binary(io, "punctuate"), io.stdout)
