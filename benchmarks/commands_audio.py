"""Voice commands heard on audio: synthesised voices through the real pipeline.

    python benchmarks/commands_audio.py [--work /tmp/commands-audio] [--decode off|on|both]
        [--engine sphinx|vosk] [--second-pass off|tiny.en|...]
        [--sets command|readme,ordinary,dictation] [--jobs 2]
        [--voices NAME,...] [--dev2012 ../shared/data/iwslt/dev2012.tsv] [--label NAME]
    python benchmarks/commands_audio.py --report BEFORE.jsonl AFTER.jsonl

Synthesises (flite and espeak-ng voices, two speeds each; sox to 16 kHz mono; cached under
--work) a sentence, ~1 s of silence, a phrase, ~1 s of silence, another sentence, for every
fixed command phrase of ``dictate.commands.table.grammar_phrases()`` and for ordinary short
phrases, plus ~50 sentences of dictation read with natural pauses; runs each through the
pipeline (segmenter, recogniser, commands, punctuator) with the second command decode off and/or
on, and prints, per command and overall, how often the command was carried out exactly, false
triggers per 100 ordinary phrases and false triggers in the dictation set. Every case's result
goes to ``WORK/results-LABEL-DECODE.jsonl``. See dictate/evaluation/commands_audio.py.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dictate.evaluation.commands_audio import (
    ORDINARY,
    VOICES,
    Case,
    build_case,
    command_cases,
    dictation_cases,
    dictation_sentences,
    ordinary_cases,
    pipeline_factory,
    run_case,
    score,
    synthesizers_missing,
)

ROOT = Path(__file__).resolve().parents[1]
README_COMMANDS = (
    "new line", "new paragraph", "next paragraph", "scratch that", "delete that", "undo that",
    "stop dictating", "stop listening", "stop dictation", "period", "full stop", "comma",
    "question mark", "exclamation mark", "exclamation point", "colon", "semicolon",
    "open quote", "begin quote", "close quote", "end quote", "unquote", "open paren",
    "open parenthesis", "open bracket", "close paren", "close parenthesis",
)  # fmt: skip
"""The phrases README.md and docs/voice-commands.md name ("close paren, ..." taken as the
three close forms the table's "..." stands for; "close bracket" is listed apart)."""

_PIPELINE: Any = None
_HEARD_P: list[float] = []
"""The probabilities of the words the next command decode is asked about."""
_WORK = Path()


def _init(
    work: str, engine: str, decode: bool, options: dict[str, Any], tune: bool, second: str
) -> None:
    global _PIPELINE, _WORK
    _WORK = Path(work)
    _PIPELINE = pipeline_factory(engine, second, command_decode=decode, **options)()
    import dictate.seam.command_refiner as segments  # where the command check calls it

    judge = segments.heard_command

    def heard_command(decoder: Any, words: Any, *args: Any) -> Any:
        _HEARD_P[:] = [w.confidence for w in words]  # recorded with the decode it leads to
        return judge(decoder, words, *args)

    segments.heard_command = heard_command  # type: ignore[assignment]
    if tune and _PIPELINE.command_decoder is not None:
        # Accept every phrase the grammar finds, up to generous limits: the record of every
        # decode's margin lets thresholds be chosen afterwards (--tune).
        _PIPELINE.command_decoder.margin = -1e9
        _PIPELINE.command_limits = (4.0, 6)


def _one(case: Case) -> dict[str, Any]:
    built = build_case(case, _WORK)
    decodes: list[dict[str, Any]] = []
    decoder = getattr(_PIPELINE, "command_decoder", None)
    if decoder is not None and not hasattr(decoder, "_wrapped"):
        original = decoder.decode

        def decode(samples: Any, heard: Any = ()) -> Any:
            began = time.perf_counter()
            result = original(samples, heard)
            record = asdict(result) if result is not None else {}
            record["seconds"] = time.perf_counter() - began
            record["audio_s"] = len(samples) / 16000
            record["heard"] = list(heard)  # the words the decode was asked about
            record["heard_p"] = list(_HEARD_P)  # their probabilities (Whisper's, where it ran)
            decoder.log.append(record)
            return result

        decoder.decode, decoder._wrapped, decoder.log = decode, True, []
    if decoder is not None:
        decoder.log = decodes
    run = run_case(_PIPELINE, built.path)
    result = score(case, built, run)
    return {
        "id": case.id,
        "kind": case.kind,
        "voice": case.voice.name,
        "phrase": case.phrase,
        "spans": built.spans,
        "carried": result.carried,
        "triggers": result.triggers,
        "junk": result.junk,
        "found": result.found,
        "heard": run.heard,
        "fed": [[(w.text, w.start, w.end) for w in words] for words, _ in run.fed],
        "commands": run.commands,
        "text": run.text,
        "decodes": decodes,
    }


def cases_for(args: argparse.Namespace) -> list[Case]:
    from dictate.commands.table import grammar_phrases

    voices = [v for v in VOICES if not args.voices or v.name in args.voices.split(",")]
    cases: list[Case] = []
    sets = args.sets.split(",")
    if "command" in sets:
        cases += command_cases(grammar_phrases(), voices)
    elif "readme" in sets:  # the README's commands only
        cases += command_cases([p for p in grammar_phrases() if p in README_COMMANDS], voices)
    if "ordinary" in sets:
        cases += ordinary_cases(ORDINARY, voices)
    if "dictation" in sets:
        cases += dictation_cases(dictation_sentences(Path(args.dev2012)), voices)
    return cases


def measure(args: argparse.Namespace, decode: bool) -> list[dict[str, Any]]:
    cases = cases_for(args)
    options = json.loads(args.options) if args.options else {}
    began = time.monotonic()
    context = multiprocessing.get_context("spawn")
    with context.Pool(
        args.jobs,
        _init,
        (args.work, args.engine, decode, options, args.tune, args.second_pass),
        maxtasksperchild=None,
    ) as pool:
        results = []
        for i, result in enumerate(pool.imap_unordered(_one, cases, chunksize=4)):
            results.append(result)
            if (i + 1) % 50 == 0:
                print(f"  {i + 1}/{len(cases)} ({time.monotonic() - began:.0f} s)", file=sys.stderr)
    results.sort(key=lambda r: r["id"])
    mode = "tune" if args.tune else "on" if decode else "off"
    out = Path(args.work) / f"results-{args.label}-{mode}.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in results))
    print(f"wrote {out} ({time.monotonic() - began:.0f} s)", file=sys.stderr)
    return results


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    per: dict[str, list[bool]] = defaultdict(list)
    for r in results:
        if r["kind"] == "command":
            per[r["phrase"]].append(r["carried"])
    ordinary = [r for r in results if r["kind"] == "ordinary"]
    dictation = [r for r in results if r["kind"] == "dictation"]
    readme = [c for p in README_COMMANDS for c in per.get(p, [])]
    every = [c for cs in per.values() for c in cs]
    times = [d["seconds"] for r in results for d in r["decodes"] if "seconds" in d]
    return {
        "per_command": {p: (sum(cs), len(cs)) for p, cs in sorted(per.items())},
        "readme": (sum(readme), len(readme)),
        "all": (sum(every), len(every)),
        "ordinary_triggers": (sum(r["triggers"] for r in ordinary), len(ordinary)),
        "ordinary_phrases": len({r["phrase"] for r in ordinary}),
        "dictation_triggers": (sum(r["triggers"] for r in dictation), len(dictation)),
        "decode_median_ms": round(1000 * statistics.median(times), 1) if times else None,
        "decodes": len(times),
    }


def _pct(pair: tuple[int, int]) -> str:
    return f"{100 * pair[0] / pair[1]:.1f}% ({pair[0]}/{pair[1]})" if pair[1] else "-"


def print_table(named: dict[str, dict[str, Any]]) -> None:
    labels = list(named)
    print("| command | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    phrases = sorted({p for s in named.values() for p in s["per_command"]})
    for phrase in phrases:
        cells = [_pct(tuple(s["per_command"].get(phrase, (0, 0)))) for s in named.values()]
        star = "" if phrase in README_COMMANDS else " (not in README)"
        print(f"| {phrase}{star} | " + " | ".join(cells) + " |")
    rows = {
        "**README commands**": lambda s: _pct(tuple(s["readme"])),
        "**all command phrases**": lambda s: _pct(tuple(s["all"])),
        "false triggers per 100 ordinary phrases": lambda s: (
            f"{100 * s['ordinary_triggers'][0] / max(1, s['ordinary_triggers'][1]):.2f} "
            f"({s['ordinary_triggers'][0]} in {s['ordinary_triggers'][1]})"
        ),
        "false triggers in dictation": lambda s: (
            f"{s['dictation_triggers'][0]} in {s['dictation_triggers'][1]} passages"
        ),
        "second decode, median ms": lambda s: str(s["decode_median_ms"]),
    }
    for name, cell in rows.items():
        print(f"| {name} | " + " | ".join(cell(s) for s in named.values()) + " |")


def load(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", default="/tmp/commands-audio")
    parser.add_argument("--decode", choices=("off", "on", "both"), default="both")
    parser.add_argument("--engine", default="sphinx")
    parser.add_argument(
        "--second-pass",
        default="off",
        help="Whisper model that settles each segment first (default off: the figures before it)",
    )
    parser.add_argument(
        "--sets", default="command,ordinary,dictation", help="readme: the README's commands only"
    )
    parser.add_argument("--voices", default="", help="comma-separated voice names (default all)")
    parser.add_argument("--dev2012", default=ROOT.parent / "shared/data/iwslt/dev2012.tsv")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--label", default="sphinx")
    parser.add_argument("--options", default="", help="JSON: more Pipeline keywords")
    parser.add_argument("--tune", action="store_true", help="record every decode's margin")
    parser.add_argument("--report", nargs="+", metavar="JSONL", help="tables from saved results")
    args = parser.parse_args()
    if args.report:
        print_table({Path(p).stem: summary(load(p)) for p in args.report})
        return 0
    missing = synthesizers_missing()
    if missing:
        print(f"missing: {', '.join(missing)} (install flite, espeak-ng and sox)", file=sys.stderr)
        return 1
    if args.engine == "vosk":
        from dictate.store.resolve import resolve_vosk_model

        if resolve_vosk_model(None) is None:
            print("no Vosk model installed: skipped", file=sys.stderr)
            return 0
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.decode]
    named = {}
    for decode in modes:
        named["after" if decode else "before"] = summary(measure(args, decode))
    print_table(named)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
