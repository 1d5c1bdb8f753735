"""What the subcommands share: the argument parser class, common options, and the loaders of
the punctuation model, the decoder options, the recogniser and the segmenter options."""

from __future__ import annotations

import argparse
import logging
import math
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn, TextIO

from dictate.errors import InputError
from dictate.punctuation.options import StreamingOptions
from dictate.text_safety import shown

log = logging.getLogger("dictate")
EXIT_BAD_INPUT = 2
_DEFAULTS = StreamingOptions()


@dataclass
class Streams:
    """Where a command reads and writes (tests pass their own)."""

    stdout: TextIO
    stderr: TextIO | None = None
    stdin: Any = None
    """A binary stream, or None for this process's standard input."""

    @property
    def err(self) -> TextIO:
        return self.stderr or sys.stderr


def add_model_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--model",
        metavar="DIR",
        help="punctuation model directory "
        "(default: $DICTATE_PUNCTUATOR_MODEL, then the installed model)",
    )
    parser.add_argument(
        "--provider",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="ONNX Runtime execution provider (default: auto = CUDA if usable)",
    )


def add_decoder_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--min-right-words",
        type=bounded(int, 1, 1000),
        default=_DEFAULTS.min_right_words,
        metavar="N",
        help="words that must follow a sentence end before it is "
        f"finalized (default {_DEFAULTS.min_right_words})",
    )
    parser.add_argument(
        "--left-context",
        type=bounded(int, 0, 100_000),
        default=_DEFAULTS.left_context_words,
        metavar="N",
        help=f"finalized words kept as left context (default {_DEFAULTS.left_context_words})",
    )
    parser.add_argument(
        "--max-pending-words",
        type=bounded(int, 1, 100_000),
        default=_DEFAULTS.max_pending_words,
        metavar="N",
        help=f"pending words before a forced sentence end (default {_DEFAULTS.max_pending_words})",
    )


def add_writing_args(parser: argparse.ArgumentParser, *, default_on: bool) -> None:
    """Written forms and voice commands: on by default (``--no-written``, ``--no-commands``)
    where the app dictates, off by default (``--written``, ``--commands``) for ``punctuate``."""
    if default_on:
        parser.add_argument(
            "--no-written",
            dest="written",
            action="store_false",
            help="keep numbers, dates and money as spoken words",
        )
        parser.add_argument(
            "--no-commands",
            dest="commands",
            action="store_false",
            help="take voice commands and spoken punctuation as ordinary words",
        )
    else:
        parser.add_argument(
            "--written",
            action="store_true",
            help="write numbers, dates, money, times as people write them ($25, 9:30 a.m.)",
        )
        parser.add_argument(
            "--commands",
            action="store_true",
            help="carry out voice commands and spoken punctuation that are a line of their own",
        )


MAX_LINE_BYTES = 1 << 20
"""The longest stdin line ``punctuate`` and ``normalize`` read (a segment is ~2,000 words)."""


def stdin_binary(io: Streams, command: str) -> Any:
    """The binary standard input of ``command`` (a test's stream, or the process's).

    Raises:
        InputError: Standard input is closed.
    """
    if io.stdin is not None:
        return io.stdin
    if sys.stdin is None:
        raise InputError(f"standard input is closed; pipe text into dictate {command}")
    return sys.stdin.buffer


def stdin_lines(stream: Any, hint: str, binary_hint: str = "") -> Iterator[tuple[int, str]]:
    """(line number, text) of each line of a binary stream, validated one at a time.

    A line is read with a limit, so a line of a gigabyte is refused after
    :data:`MAX_LINE_BYTES`, never read whole into memory.

    Args:
        stream: A binary stream.
        hint: What to do about a line that is too long (ends its message).
        binary_hint: Added to the message about NUL bytes.

    Raises:
        InputError: A line is too long, binary or not UTF-8 (one line naming it).
    """
    number = 0
    while True:
        raw = stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return
        number += 1
        if len(raw) > MAX_LINE_BYTES:
            raise InputError(f"stdin line {number} is longer than {MAX_LINE_BYTES:,} bytes; {hint}")
        if b"\0" in raw:
            raise InputError(
                f"stdin line {number} contains NUL bytes: the input is binary, not text"
                + (f"; {binary_hint}" if binary_hint else "")
            )
        try:
            yield number, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(
                f"stdin line {number} is not UTF-8 text ({exc.reason} at byte "
                f"{exc.start}); convert the input to UTF-8"
            ) from exc


class Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit status 2, like every other bad input."""

    def _get_values(self, action: argparse.Action, arg_strings: list[str]) -> Any:
        # "--max-pending-words=--": argparse takes the "--" for the end of the options, drops
        # it, and hands the option [] without running its type (a traceback later on).
        if action.option_strings and arg_strings == ["--"] and action.nargs != 0:
            self.error(f"argument {'/'.join(action.option_strings)}: expected a value, not '--'")
        return super()._get_values(action, arg_strings)

    def error(self, message: str) -> NoReturn:
        # The subcommand is named once, in the hint ("dictate: error: dictate transcribe: ...").
        self.exit(2, f"dictate: error: {shown(message)} (see {self.prog} --help)\n")


def load_model(args: argparse.Namespace, threads: int | None = None) -> Any:
    from dictate.punctuation.model import load_punctuation_model

    return load_punctuation_model(args.model, args.provider, threads)


def decoder_options(args: argparse.Namespace) -> StreamingOptions:
    try:
        return StreamingOptions(
            min_right_words=args.min_right_words,
            left_context_words=args.left_context,
            max_pending_words=args.max_pending_words,
        )
    except ValueError as exc:
        raise InputError(f"bad decoder option: {exc}") from exc


def add_speech_args(parser: argparse.ArgumentParser) -> None:
    from dictate.asr.registry import FIRST_PASS

    parser.add_argument(
        "--engine",
        choices=FIRST_PASS,
        help="streaming recogniser, the first pass (default: Vosk if a model is installed, "
        "else the bundled PocketSphinx)",
    )
    parser.add_argument(
        "--second-pass",
        metavar="MODEL",
        help="Whisper model that decodes every segment again, its words replacing the first "
        "pass's: a name (tiny.en, base.en, small.en, ...: `dictate models list`), a folder, "
        "'auto' (tiny.en after English) or 'off' (default: the setting, auto unless changed)",
    )
    parser.add_argument(
        "--model",
        metavar="PATH",
        help="Vosk model directory or installed model name (default: $DICTATE_VOSK_MODEL, "
        "then the best installed model)",
    )
    parser.add_argument(
        "--punctuator", metavar="DIR", help="punctuation model directory (default: the shipped one)"
    )
    parser.add_argument(
        "--provider",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="where punctuation (ONNX Runtime) and the second pass (CTranslate2) run: auto = "
        "CUDA where it works, else the CPU (default: auto)",
    )
    parser.add_argument(
        "--mode",
        choices=("streaming", "baseline"),
        default="streaming",
        help="streaming: sentences finalized once the next has begun; baseline: every segment "
        "closed as a sentence (default streaming)",
    )
    parser.add_argument(
        "--silence-ms",
        type=bounded(int, 0, 600_000),  # the segmenter checks its lower bound
        default=500,
        metavar="MS",
        help="silence that ends a segment (default 500)",
    )
    parser.add_argument(
        "--max-segment",
        type=bounded(float, 1.0, 600.0),
        default=40.0,
        metavar="S",
        help="longest segment in seconds (default 40)",
    )


def bounded(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """An argparse type: a finite number of ``kind`` from ``low`` to ``high`` (nan and inf are
    refused, like any other number out of range)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g}")
        return value

    return parse


def segmenter_options(args: argparse.Namespace) -> Any:
    from dictate.asr.segmenter import SegmenterOptions

    try:
        return SegmenterOptions(silence_ms=args.silence_ms, max_segment_s=args.max_segment)
    except ValueError as exc:
        raise InputError(f"bad segmenter option: {exc}") from None


def engine_for(
    args: argparse.Namespace,
    name: str | None,
    err: TextIO,
    *,
    second: bool = False,
    second_threads: int = 0,
    use: str = "live",
) -> Any:
    """The streaming engine the arguments ask for (``second``: and the second pass, as a pair,
    on ``second_threads`` CPU threads, 0: every core; "auto" chooses for ``use``, "live" or
    "files": :mod:`dictate.asr.tiers`). With neither a Vosk model nor a second
    pass, a note says the words will be poor."""
    from dictate.asr.loader import load_engine
    from dictate.asr.registry import spec_of

    engine = load_engine(name, args.model)
    log.info("engine: %s", engine.label)
    refine = second_pass_for(args, engine, second_threads, use) if second else None
    spec = spec_of(engine)
    if name is None and refine is None and spec is not None and spec.model_kind == "bundled":
        from dictate.store.catalog import RECOMMENDED

        err.write(
            f"dictate: note: no Vosk model installed and no second pass; using {engine.label}, "
            f"which is much less accurate. For accurate results: --second-pass tiny.en, or "
            f"dictate models download {RECOMMENDED}\n"
        )
    return (engine, refine) if second else engine


def second_pass_choice(args: argparse.Namespace) -> str:
    """``--second-pass``, else the setting: "auto", "off" or a model."""
    from dictate.config import load_settings

    return str(getattr(args, "second_pass", None) or load_settings().second_pass)


def second_pass_for(
    args: argparse.Namespace, engine: Any, threads: int = 0, use: str = "live"
) -> Any:
    """The loaded second pass ``--second-pass`` (else the setting) asks for after ``engine``,
    on ``threads`` CPU threads (0: every core); None for none. A model named explicitly that
    cannot load is an error; "auto" falls back to none (logged)."""
    from dictate.asr.loader import load_second_pass

    choice = second_pass_choice(args)
    device = getattr(args, "provider", "auto")
    second = load_second_pass(choice, engine, device, threads=threads, use=use)
    if second is not None:
        log.info("second pass: %s", second.label)
    return second
