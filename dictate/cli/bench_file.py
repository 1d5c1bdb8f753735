"""``dictate bench file``: the parallel decode of an audio file with 1, 2, ... workers."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dictate.asr.registry import FIRST_PASS, OFF
from dictate.cli.common import bounded
from dictate.errors import InputError

SECOND_PASS_HELP = (
    "Whisper model that decodes every segment again (a name, a folder, or 'auto'), or 'off' "
    "(default: off in benchmarks, not the setting, so that figures stay comparable with those "
    "measured without a second pass)"
)


def add_second_pass_arg(parser: argparse.ArgumentParser) -> None:
    """``--second-pass MODEL|off`` of the benchmarks that build a pipeline (default off)."""
    parser.add_argument("--second-pass", metavar="MODEL|off", default=OFF, help=SECOND_PASS_HELP)


def worker_counts(text: str) -> list[int]:
    """``--workers 1,2,4``."""
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of numbers like 1,2") from None
    if not counts or not all(1 <= n <= 64 for n in counts):
        raise argparse.ArgumentTypeError("give worker counts from 1 to 64, like 1,2")
    return counts


def cmd_bench_file(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.audio.capture import FileSource
    from dictate.bench.file_decode import bench_file, format_file

    if args.runs < 1:
        raise InputError("--runs must be at least 1")
    FileSource(args.audio)  # a bad file fails here, with one line
    result = bench_file(
        args.audio, args.engine, args.model, args.punctuator, args.workers, args.runs,
        sequential=args.sequential, second_pass=args.second_pass,
    )  # fmt: skip
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_file(result) + "\n")
    return 0


def register_file(bench_kinds: Any) -> None:
    """Add ``file`` to the ``dictate bench`` kinds."""
    file = bench_kinds.add_parser(
        "file",
        help="parallel decode of an audio file: real-time factor per worker count",
        description="Decodes AUDIO with `transcribe --workers N` for each N of --workers "
        "(segmenter here, recognisers in N processes, punctuation here, in order), --runs times "
        "each: the real-time factor (processing time / audio duration, median), the speed-up "
        "over the fewest workers, the peak resident memory of all the processes together (and "
        "of the main one), and whether the words and text are identical to the fewest "
        "workers' run. --sequential also runs the one-process pipeline once and compares.",
    )
    file.add_argument("audio", metavar="AUDIO", help="audio file (WAV, FLAC, ...), minutes long")
    file.add_argument(
        "--workers", type=worker_counts, default=[1, 2], metavar="N,N", help="default 1,2"
    )
    file.add_argument("--engine", choices=FIRST_PASS)
    add_second_pass_arg(file)
    file.add_argument("--model", metavar="PATH", help="Vosk model (see transcribe)")
    file.add_argument("--punctuator", metavar="DIR", help="punctuation model directory")
    file.add_argument(
        "--runs", type=bounded(int, 1, 100), default=3, metavar="N", help="runs (default 3)"
    )
    file.add_argument(
        "--sequential", action="store_true", help="also compare with the sequential pipeline"
    )
    file.add_argument("--json", action="store_true", help="print JSON")
    file.set_defaults(func=lambda args, io: cmd_bench_file(args, io.stdout))
