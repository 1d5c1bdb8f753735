"""``dictate eval punctuation`` and ``dictate eval streaming``: quality figures."""

from __future__ import annotations

import argparse
import json
import statistics
from typing import Any, TextIO

from dictate.cli.common import (
    add_decoder_args,
    add_model_args,
    decoder_options,
    load_model,
)
from dictate.errors import InputError


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
    model = load_model(args)
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

    options = decoder_options(args)
    reference = read_reference(args.file)
    model = load_model(args)
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


def register(commands: Any) -> None:
    evaluate = commands.add_parser("eval", help="measure punctuation quality")
    eval_kinds = evaluate.add_subparsers(dest="eval_kind", metavar="KIND", required=True)
    eval_punct = eval_kinds.add_parser(
        "punctuation",
        help="tag a whole reference text and score it",
        description="FILE is an IWSLT word<TAB>TAG file or plain punctuated text.",
    )
    eval_punct.add_argument("file", metavar="FILE")
    eval_punct.add_argument("--json", action="store_true", help="print JSON")
    add_model_args(eval_punct)
    eval_punct.set_defaults(func=lambda args, io: cmd_eval_punctuation(args, io.stdout))
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
    add_model_args(eval_stream)
    add_decoder_args(eval_stream)
    eval_stream.set_defaults(func=lambda args, io: cmd_eval_streaming(args, io.stdout))
