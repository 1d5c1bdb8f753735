"""The ``dictate`` command: punctuate, transcribe, eval, bench, devices and models subcommands.

Exit status: 0 on success, 2 on bad input or a missing or broken model (one line on stderr,
no traceback), 1 on an unexpected internal error, 130 when interrupted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import statistics
import sys
from collections.abc import Iterator, Sequence
from typing import Any, NoReturn, TextIO

from dictate import __version__
from dictate.errors import DictateError, InputError
from dictate.punctuation.decoder import StreamingOptions

log = logging.getLogger("dictate")
EXIT_BAD_INPUT = 2
_DEFAULTS = StreamingOptions()


def _add_model_args(parser: argparse.ArgumentParser) -> None:
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


def _add_decoder_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--min-right-words",
        type=int,
        default=_DEFAULTS.min_right_words,
        metavar="N",
        help="words that must follow a sentence end before it is "
        f"finalized (default {_DEFAULTS.min_right_words})",
    )
    parser.add_argument(
        "--left-context",
        type=int,
        default=_DEFAULTS.left_context_words,
        metavar="N",
        help=f"finalized words kept as left context (default {_DEFAULTS.left_context_words})",
    )
    parser.add_argument(
        "--max-pending-words",
        type=int,
        default=_DEFAULTS.max_pending_words,
        metavar="N",
        help=f"pending words before a forced sentence end (default {_DEFAULTS.max_pending_words})",
    )


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line on stderr, exit status 2, like every other bad input."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"dictate: error: {self.prog}: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dictate`` command."""
    parser = _Parser(prog="dictate", description="Offline dictation with streaming punctuation.")
    parser.add_argument("--version", action="version", version=f"dictate {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log progress to stderr")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="run the app offscreen on the bundled sample recording; exit 0 if the text appears",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    punctuate = commands.add_parser(
        "punctuate",
        help="punctuate ASR segments from stdin (one per line)",
        description="Read one recogniser segment per line on stdin, write the punctuated, "
        "capitalised text to stdout. Punctuation in the input is stripped; empty lines are "
        "ignored.",
    )
    punctuate.add_argument("--mode", choices=("streaming", "baseline"), default="streaming")
    _add_model_args(punctuate)
    _add_decoder_args(punctuate)

    evaluate = commands.add_parser("eval", help="measure punctuation quality")
    eval_kinds = evaluate.add_subparsers(dest="eval_kind", metavar="KIND", required=True)
    eval_punct = eval_kinds.add_parser(
        "punctuation",
        help="tag a whole reference text and score it",
        description="FILE is an IWSLT word<TAB>TAG file or plain punctuated text.",
    )
    eval_punct.add_argument("file", metavar="FILE")
    eval_punct.add_argument("--json", action="store_true", help="print JSON")
    _add_model_args(eval_punct)
    eval_stream = eval_kinds.add_parser(
        "streaming",
        help="simulate long-form dictation; compare baseline and streaming",
        description="Cut the reference into recogniser-like segments (at sentence ends with "
        "probability --p-end, inside sentences with --p-mid, and every --max-words words), "
        "then score the baseline and the streaming decoder side by side.",
    )
    eval_stream.add_argument("file", metavar="FILE")
    eval_stream.add_argument(
        "--seed",
        type=int,
        action="append",
        metavar="N",
        help="simulation seed; repeat for several (default 0)",
    )
    eval_stream.add_argument(
        "--p-end",
        type=float,
        default=0.8,
        metavar="P",
        help="probability of a pause at a sentence end (default 0.8)",
    )
    eval_stream.add_argument(
        "--p-mid",
        type=float,
        default=0.1,
        metavar="P",
        help="probability of a pause after any other word (default 0.1)",
    )
    eval_stream.add_argument(
        "--max-words",
        type=int,
        default=100,
        metavar="N",
        help="longest segment in words, the 40 s rule (default 100)",
    )
    eval_stream.add_argument("--json", action="store_true", help="print JSON")
    _add_model_args(eval_stream)
    _add_decoder_args(eval_stream)

    bench = commands.add_parser("bench", help="measure speed")
    bench_kinds = bench.add_subparsers(dest="bench_kind", metavar="KIND", required=True)
    bench_punct = bench_kinds.add_parser(
        "punctuator", help="model latency per window, streaming throughput, peak memory"
    )
    bench_punct.add_argument(
        "--runs",
        type=int,
        default=50,
        metavar="N",
        help="timed model calls per window size (default 50)",
    )
    bench_punct.add_argument(
        "--repeats",
        type=int,
        default=3,
        metavar="N",
        help="streaming throughput runs; the median is reported (default 3)",
    )
    bench_punct.add_argument(
        "--text", metavar="FILE", help="stream this reference text instead of 5,000 synthetic words"
    )
    bench_punct.add_argument(
        "--threads", type=int, metavar="N", help="CPU threads for ONNX Runtime (default: up to 4)"
    )
    bench_punct.add_argument("--json", action="store_true", help="print JSON")
    _add_model_args(bench_punct)

    from dictate import cli_speech

    cli_speech.add_bench_parser(bench_kinds)
    cli_speech.add_parsers(commands, _add_decoder_args)
    return parser


def _load_model(args: argparse.Namespace, threads: int | None = None) -> Any:
    from dictate.punctuation.model import load_punctuation_model

    return load_punctuation_model(args.model, args.provider, threads)


def _options(args: argparse.Namespace) -> StreamingOptions:
    try:
        return StreamingOptions(
            min_right_words=args.min_right_words,
            left_context_words=args.left_context,
            max_pending_words=args.max_pending_words,
        )
    except ValueError as exc:
        raise InputError(f"bad decoder option: {exc}") from exc


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

    options = _options(args)
    punctuator = make_punctuator(_load_model(args), args.mode, options)
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


def _percent(value: float) -> str:
    return f"{100 * value:5.1f}"


def _format_scores(columns: dict[str, dict[str, Any]]) -> str:
    """A table with one column per system, rows per metric."""
    names = list(columns)
    header = f"{'':<24}" + "".join(f"{n:>12}" for n in names)
    rows = [header]

    def row(label: str, values: list[str]) -> None:
        rows.append(f"{label:<24}" + "".join(f"{v:>12}" for v in values))

    for cls in ("COMMA", "PERIOD", "QUESTION", "OVERALL"):
        for metric in ("precision", "recall", "f1"):
            row(
                f"{cls} {metric}", [_percent(columns[n]["punctuation"][cls][metric]) for n in names]
            )
    for metric in ("precision", "recall", "f1", "f0.5"):
        row(f"segmentation {metric}", [_percent(columns[n]["segmentation"][metric]) for n in names])
    if all(columns[n]["capitalization"] for n in names):
        for metric in ("precision", "recall", "f1"):
            row(
                f"capitalisation {metric}",
                [_percent(columns[n]["capitalization"][metric]) for n in names],
            )
    return "\n".join(rows)


def cmd_eval_punctuation(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.evaluation.readers import read_reference
    from dictate.evaluation.streaming import score
    from dictate.punctuation.render import case_words

    reference = read_reference(args.file)
    model = _load_model(args)
    tagging = model.tag(reference.words)
    tags = tagging.punct_tags()
    cased = case_words(reference.words, tags, tagging.case_tags(), sentence_start=True)
    result = {
        "file": args.file,
        "words": len(reference.words),
        "provider": model.provider,
        "model": score(reference, tags, cased),
    }
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(
            f"{args.file}: {len(reference.words):,} words, model {model.model_dir} "
            f"on {model.provider}\n"
        )
        stdout.write(_format_scores({"model": result["model"]}) + "\n")
    return 0


def cmd_eval_streaming(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.evaluation.readers import read_reference
    from dictate.evaluation.simulate import simulate_segments
    from dictate.evaluation.streaming import run_decoder, score
    from dictate.punctuation.decoder import SegmentPunctuator, StreamingPunctuator

    options = _options(args)
    reference = read_reference(args.file)
    model = _load_model(args)
    seeds = args.seed or [0]
    runs: list[dict[str, Any]] = []
    for seed in seeds:
        try:
            segments = simulate_segments(
                reference.words,
                reference.tags,
                seed=seed,
                p_end=args.p_end,
                p_mid=args.p_mid,
                max_words=args.max_words,
            )
        except ValueError as exc:
            raise InputError(f"bad simulation option: {exc}") from exc
        entry: dict[str, Any] = {"seed": seed, "segments": len(segments)}
        for name, punctuator in (
            ("baseline", SegmentPunctuator(model)),
            ("streaming", StreamingPunctuator(model, options)),
        ):
            run = run_decoder(punctuator, segments)
            entry[name] = score(reference, run.tags, run.cased)
            entry[name]["mean_delay_segments"] = statistics.fmean(run.delays) if run.delays else 0.0
        runs.append(entry)
    result = {
        "file": args.file,
        "words": len(reference.words),
        "provider": model.provider,
        "simulation": {"p_end": args.p_end, "p_mid": args.p_mid, "max_words": args.max_words},
        "decoder": {
            "min_right_words": options.min_right_words,
            "left_context_words": options.left_context_words,
            "max_pending_words": options.max_pending_words,
        },
        "runs": runs,
    }
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        return 0
    stdout.write(
        f"{args.file}: {len(reference.words):,} words, model {model.model_dir} on "
        f"{model.provider}; segments cut with p_end={args.p_end}, p_mid={args.p_mid}, "
        f"max_words={args.max_words}\n"
    )
    for entry in runs:
        stdout.write(f"\nseed {entry['seed']}: {entry['segments']:,} segments\n")
        stdout.write(
            _format_scores({"baseline": entry["baseline"], "streaming": entry["streaming"]}) + "\n"
        )
        stdout.write(
            f"{'mean delay (segments)':<24}"
            f"{entry['baseline']['mean_delay_segments']:>12.2f}"
            f"{entry['streaming']['mean_delay_segments']:>12.2f}\n"
        )
    if len(runs) > 1:
        f05 = {n: [r[n]["segmentation"]["f0.5"] for r in runs] for n in ("baseline", "streaming")}
        stdout.write(
            f"\nsegmentation F0.5 over {len(runs)} seeds, median: baseline "
            f"{_percent(statistics.median(f05['baseline'])).strip()}, streaming "
            f"{_percent(statistics.median(f05['streaming'])).strip()}\n"
        )
    return 0


def cmd_bench_punctuator(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.bench.punctuator import bench_punctuator, format_punctuator

    if args.runs < 1 or args.repeats < 1 or (args.threads is not None and args.threads < 1):
        raise InputError("--runs, --repeats and --threads must be at least 1")
    words = tags = None
    if args.text:
        from dictate.evaluation.readers import read_reference

        reference = read_reference(args.text)
        words, tags = reference.words, reference.tags
    model = _load_model(args, threads=args.threads)
    result = bench_punctuator(
        model, runs=args.runs, stream_words=words, stream_tags=tags, repeats=args.repeats
    )
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_punctuator(result) + "\n")
    return 0


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
    out = stdout or sys.stdout
    if out is None:
        raise InputError("standard output is closed; run dictate with its output open")
    if args.command == "punctuate":
        if stdin is None and sys.stdin is None:
            raise InputError("standard input is closed; pipe text into dictate punctuate")
        return cmd_punctuate(args, stdin or sys.stdin.buffer, out)
    if args.command == "eval":
        if args.eval_kind == "punctuation":
            return cmd_eval_punctuation(args, out)
        return cmd_eval_streaming(args, out)
    if args.command in ("transcribe", "devices", "models") or (
        args.command == "bench" and args.bench_kind in ("pipeline", "gui", "editor")
    ):
        from dictate import cli_speech

        if args.command == "transcribe":
            return cli_speech.cmd_transcribe(args, _options(args), out, stderr)
        if args.command == "devices":
            return cli_speech.cmd_devices(args, out)
        if args.command == "models":
            return cli_speech.cmd_models(args, out, stderr)
        if args.bench_kind == "gui":
            return cli_speech.cmd_bench_gui(args, out)
        if args.bench_kind == "editor":
            return cli_speech.cmd_bench_editor(args, out)
        return cli_speech.cmd_bench_pipeline(args, out)
    if args.command == "bench":
        return cmd_bench_punctuator(args, out)
    if args.self_test:
        from dictate.ui.app import self_test

        return self_test()
    from dictate.ui.app import run_app

    return run_app()


def _silence_stdout() -> None:
    if sys.stdout is not None:
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dictate`` console script."""
    try:
        return run(argv)
    except DictateError as exc:
        print(f"dictate: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): point stdout at devnull so the interpreter's
        # final flush does not raise again (the recipe in Python's signal documentation).
        _silence_stdout()
        return 0
    except OSError as exc:  # writing the output failed: a full disk, an I/O error
        _silence_stdout()
        print(f"dictate: error: cannot write the output: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
