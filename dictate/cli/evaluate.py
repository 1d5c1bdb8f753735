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


def _streaming_runs(
    model: Any, reference: Any, args: argparse.Namespace, options: Any
) -> list[dict[str, Any]]:
    """For each seed: simulated segments, baseline and streaming scores (``eval streaming``)."""
    from dictate.evaluation.simulate import PauseModel, simulate_pauses, simulate_segments
    from dictate.evaluation.streaming import run_decoder, score
    from dictate.punctuation.baseline import SegmentPunctuator
    from dictate.punctuation.decoder import StreamingPunctuator

    runs: list[dict[str, Any]] = []
    for seed in args.seed or [0]:
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
        pauses = None
        commit_times = getattr(args, "commit_after", None) or []
        if commit_times:
            try:
                pause_model = PauseModel(end_median=args.pause_end, mid_median=args.pause_mid)
            except ValueError as exc:
                raise InputError(f"bad simulation option: {exc}") from exc
            pauses = simulate_pauses(segments, reference.tags, seed=seed, model=pause_model)
        systems: list[tuple[str, Any, float | None]] = [
            ("baseline", SegmentPunctuator(model), None),
            ("streaming", StreamingPunctuator(model, options), None),
        ]
        systems += [
            (_commit_name(ms), StreamingPunctuator(model, options), ms / 1000)
            for ms in commit_times
            if ms is not None
        ]
        for name, punctuator, commit_after in systems:
            run = run_decoder(punctuator, segments, pauses, commit_after)
            entry[name] = score(reference, run.tags, run.cased)
            entry[name]["mean_delay_segments"] = statistics.fmean(run.delays) if run.delays else 0.0
            entry[name]["commits"] = run.commits
        runs.append(entry)
    return runs


def _commit_name(ms: int) -> str:
    return f"commit {ms / 1000:g} s"


def _commit_ms(text: str) -> int | None:
    """``--commit-after``: milliseconds, or "never" (the streaming column)."""
    if text.strip().lower() == "never":
        return None
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not milliseconds or 'never'") from None
    if not 1 <= value <= 600_000:
        raise argparse.ArgumentTypeError(f"{value} ms is out of range (1 to 600000)")
    return value


def cmd_eval_streaming(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.evaluation.readers import read_reference

    options = decoder_options(args)
    reference = read_reference(args.file)
    model = load_model(args)
    runs = _streaming_runs(model, reference, args, options)
    result = {
        "file": args.file,
        "words": len(reference.words),
        "provider": model.provider,
        "simulation": {
            "p_end": args.p_end,
            "p_mid": args.p_mid,
            "max_words": args.max_words,
            "pause_end": args.pause_end,
            "pause_mid": args.pause_mid,
        },
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
    names = ["baseline", "streaming"] + [
        _commit_name(ms) for ms in args.commit_after or [] if ms is not None
    ]
    for entry in runs:
        stdout.write(f"\nseed {entry['seed']}: {entry['segments']:,} segments\n")
        stdout.write(_format_scores({n: entry[n] for n in names}) + "\n")
        stdout.write(
            f"{'mean delay (segments)':<24}"
            + "".join(f"{entry[n]['mean_delay_segments']:>12.2f}" for n in names)
            + "\n"
        )
        if len(names) > 2:
            stdout.write(f"{'commits':<24}" + "".join(f"{entry[n]['commits']:>12}" for n in names))
            stdout.write("\n")
    if len(runs) > 1:
        stdout.write(f"\nmedian over {len(runs)} seeds:\n{'':<24}")
        stdout.write("".join(f"{n:>12}" for n in names) + "\n")
        for label, keys in (
            ("punctuation F1", ("punctuation", "OVERALL", "f1")),
            ("segmentation F0.5", ("segmentation", "f0.5")),
        ):
            cells = []
            for n in names:
                values = []
                for run in runs:
                    value: Any = run[n]
                    for key in keys:
                        value = value[key]
                    values.append(value)
                cells.append(_percent(statistics.median(values)))
            stdout.write(f"{label:<24}" + "".join(f"{c:>12}" for c in cells) + "\n")
    return 0


def cmd_eval_registers(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.evaluation.registers import heldout_files, read_documents

    options = decoder_options(args)
    files = heldout_files(args.folder)
    model = load_model(args)
    results: dict[str, Any] = {"folder": args.folder, "provider": model.provider, "registers": {}}
    if not args.json:
        stdout.write(
            f"{'register':<14}{'words':>9}{'stream F1':>11}{'stream cap':>11}"
            f"{'base F1':>9}{'stream F0.5':>12}{'base F0.5':>10}\n"
        )
    for register, path in files:
        reference = read_documents(path)
        runs = _streaming_runs(model, reference, args, options)

        def median(system: str, *keys: str, runs: list[dict[str, Any]] = runs) -> float | None:
            values = []
            for run in runs:
                value: Any = run[system]
                for key in keys:
                    value = value[key] if value is not None else None
                if value is not None:
                    values.append(value)
            return statistics.median(values) if values else None

        row = {
            "file": str(path),
            "words": len(reference.words),
            "streaming_f1": median("streaming", "punctuation", "OVERALL", "f1"),
            "streaming_capitalization_f1": median("streaming", "capitalization", "f1"),
            "baseline_f1": median("baseline", "punctuation", "OVERALL", "f1"),
            "streaming_segmentation_f05": median("streaming", "segmentation", "f0.5"),
            "baseline_segmentation_f05": median("baseline", "segmentation", "f0.5"),
            "runs": runs,
        }
        results["registers"][register] = row
        if not args.json:
            columns = (
                "streaming_f1",
                "streaming_capitalization_f1",
                "baseline_f1",
                "streaming_segmentation_f05",
                "baseline_segmentation_f05",
            )
            cells: list[Any] = [row[k] for k in columns]
            text = [_percent(c) if c is not None else "  -" for c in cells]
            stdout.write(
                f"{register:<14}{row['words']:>9,}{text[0]:>11}{text[1]:>11}{text[2]:>9}"
                f"{text[3]:>12}{text[4]:>10}\n"
            )
            stdout.flush()
    if args.json:
        json.dump(results, stdout, indent=2)
        stdout.write("\n")
    return 0


def _add_simulation_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--seed",
        type=int,
        action="append",
        metavar="N",
        help="simulation seed; repeat for several (default 0)",
    )
    parser.add_argument(
        "--p-end",
        type=float,
        default=0.8,
        metavar="P",
        help="probability of a pause at a sentence end (default 0.8)",
    )
    parser.add_argument(
        "--p-mid",
        type=float,
        default=0.1,
        metavar="P",
        help="probability of a pause after any other word (default 0.1)",
    )
    parser.add_argument(
        "--max-words",
        type=int,
        default=100,
        metavar="N",
        help="longest segment in words, the 40 s rule (default 100)",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_model_args(parser)
    add_decoder_args(parser)


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
    _add_simulation_args(eval_stream)
    eval_stream.add_argument(
        "--commit-after",
        type=_commit_ms,
        action="append",
        metavar="MS",
        help="also score the streaming decoder committing at every pause of at least MS ms "
        "(pauses drawn as --pause-end/--pause-mid say); repeat for several",
    )
    eval_stream.add_argument(
        "--pause-end",
        type=float,
        default=0.8,
        metavar="S",
        help="median of the simulated pause after a sentence end, beyond the segmenter's 0.5 s "
        "(default 0.8)",
    )
    eval_stream.add_argument(
        "--pause-mid",
        type=float,
        default=0.4,
        metavar="S",
        help="median of the simulated pause inside a sentence, beyond 0.5 s (default 0.4)",
    )
    eval_stream.set_defaults(func=lambda args, io: cmd_eval_streaming(args, io.stdout))
    eval_registers = eval_kinds.add_parser(
        "registers",
        help="streaming simulation on each held-out slice of the corpora, one row per register",
        description="FOLDER holds *.heldout.jsonl.gz files (the corpora's heldout/ folder); "
        "each is read as plain punctuated text and scored as by `eval streaming` (medians over "
        "the seeds).",
    )
    eval_registers.add_argument("folder", metavar="FOLDER")
    _add_simulation_args(eval_registers)
    eval_registers.set_defaults(func=lambda args, io: cmd_eval_registers(args, io.stdout))
