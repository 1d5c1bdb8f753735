"""``dictate bench second-pass``: Whisper's decode time per closed segment by length and encoder
window, with its word error rate on the same segments (:mod:`dictate.bench.second_pass`)."""

from __future__ import annotations

import argparse
import json
from typing import Any, TextIO

from dictate.cli.common import bounded
from dictate.errors import InputError

WINDOWS = ("auto", "full", "sized")


def _numbers(text: str) -> list[float]:
    """``--lengths 1,2,4``."""
    try:
        values = [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a list of numbers like 1,2,4") from None
    if not values or not all(0.5 <= v <= 30 for v in values):
        raise argparse.ArgumentTypeError("give segment lengths from 0.5 to 30 seconds, like 1,2,4")
    return values


def _windows(text: str) -> list[str]:
    chosen = [part.strip() for part in text.split(",") if part.strip()]
    if not chosen or any(w not in WINDOWS for w in chosen):
        raise argparse.ArgumentTypeError(f"give windows from {', '.join(WINDOWS)}, like auto,full")
    return chosen


def cmd_bench_second_pass(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.bench.second_pass import bench_segments, format_segments

    try:
        result = bench_segments(
            args.model, args.lengths, args.per_length, args.windows, args.threads, args.runs
        )
    except RuntimeError as exc:  # no speech synthesiser
        raise InputError(str(exc)) from None
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_segments(result) + "\n")
    return 0


def register_second_pass(bench_kinds: Any) -> None:
    parser = bench_kinds.add_parser(
        "second-pass",
        help="Whisper's decode time per segment by length and encoder window, with its WER",
        description="Makes segments of Harvard sentences read by espeak-ng and flite voices, "
        "about each --lengths long, and decodes each as the pipeline's second pass does "
        "(--runs times; the median per segment), once per encoder --windows (auto, the "
        "default: sized to the audio, at least 10 s, and a decode its guards doubt made again "
        "in 30 s; full: always 30 s; sized: the sized decode alone). Prints p50 and p95 of the "
        "decode time per length and window and the word error rate of the same segments.",
    )
    parser.add_argument("--model", default="tiny.en", help="Whisper model name or folder")
    parser.add_argument(
        "--lengths", type=_numbers, default=[1, 2, 4, 8, 15], metavar="S,S", help="1,2,4,8,15"
    )
    parser.add_argument(
        "--per-length",
        type=bounded(int, 1, 100),
        default=8,
        metavar="N",
        help="segments per length (default 8)",
    )
    parser.add_argument(
        "--windows", type=_windows, default=["auto", "full"], metavar="W,W", help="auto,full"
    )
    parser.add_argument(
        "--threads",
        type=bounded(int, 0, 1024),
        default=0,
        metavar="N",
        help="CPU threads for CTranslate2 (default 0: every core)",
    )
    parser.add_argument(
        "--runs", type=bounded(int, 1, 100), default=3, metavar="N", help="runs (default 3)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.set_defaults(func=lambda args, io: cmd_bench_second_pass(args, io.stdout))
