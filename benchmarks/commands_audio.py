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
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
from typing import Any

from dictate.evaluation.command_phrases import ORDINARY, ORDINARY_TEST
from dictate.evaluation.commands_audio import (
    PIPER_DEV_VOICES,
    PIPER_VOICES,
    VOICES,
    Case,
    build_case,
    command_cases,
    dictation_cases,
    dictation_sentences,
    inside_cases,
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
_REALTIME = False
VOICE_SETS = {"synthetic": VOICES, "natural": PIPER_VOICES, "dev": PIPER_DEV_VOICES}
ORDINARY_SETS = {"dev": ORDINARY, "test": ORDINARY_TEST}


def _init(
    work: str,
    engine: str,
    decode: bool,
    options: dict[str, Any],
    tune: bool,
    second: str,
    realtime: bool = False,
    judge: bool = True,
) -> None:
    global _PIPELINE, _WORK, _REALTIME
    _WORK, _REALTIME = Path(work), realtime
    _PIPELINE = pipeline_factory(engine, second, command_decode=decode, **options)()
    if not judge:  # the check before the judge: the first pass's n-best and its grammar decode
        from dictate.commands.heard import command_decoder_for
        from dictate.seam.command_refiner import CommandRefiner

        _PIPELINE.refiners = [
            CommandRefiner(command_decoder_for(_PIPELINE.engine))
            if isinstance(r, CommandRefiner)
            else r
            for r in _PIPELINE.refiners
        ]
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
    run = run_case(_PIPELINE, built.path, _REALTIME)
    result = score(case, built, run)
    acted = None  # seconds from the end of the phrase said apart to the command acting
    if case.kind == "command" and _REALTIME:
        end = built.spans[1][1]
        after = [at - end for settled, at, _ in run.acted if settled > end]
        acted = after[0] if after else None
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
        "acted_s": acted,
    }


def cases_for(args: argparse.Namespace) -> list[Case]:
    from dictate.commands.table import grammar_phrases

    chosen = VOICE_SETS[args.voice_set]
    voices = [v for v in chosen if not args.voices or v.name in args.voices.split(",")]
    cases: list[Case] = []
    sets = args.sets.split(",")
    per = min(8, len(voices))
    if "command" in sets:
        cases += command_cases(grammar_phrases(), voices, per)
    elif "readme" in sets:  # the README's commands only
        cases += command_cases([p for p in grammar_phrases() if p in README_COMMANDS], voices, per)
    if "ordinary" in sets:
        cases += ordinary_cases(ORDINARY_SETS[args.ordinary], voices)
    if "inside" in sets:  # command words inside sentences
        cases += inside_cases(voices)
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
        (
            args.work,
            args.engine,
            decode,
            options,
            args.tune,
            args.second_pass,
            args.realtime,
            args.judge == "on",
        ),
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
    acted = sorted(r["acted_s"] for r in results if r.get("acted_s") is not None)
    return {
        "per_command": {p: (sum(cs), len(cs)) for p, cs in sorted(per.items())},
        "readme": (sum(readme), len(readme)),
        "all": (sum(every), len(every)),
        "ordinary_triggers": (sum(r["triggers"] for r in ordinary), len(ordinary)),
        "ordinary_phrases": len({r["phrase"] for r in ordinary}),
        "dictation_triggers": (sum(r["triggers"] for r in dictation), len(dictation)),
        "decode_median_ms": round(1000 * statistics.median(times), 1) if times else None,
        "decodes": len(times),
        "acted": acted,
    }


def _pct(pair: tuple[int, int]) -> str:
    return f"{100 * pair[0] / pair[1]:.1f}% ({pair[0]}/{pair[1]})" if pair[1] else "-"


def _quantile(values: list[float], q: float) -> float:
    """The ``q`` quantile of sorted ``values`` (nearest rank)."""
    return values[min(len(values) - 1, max(0, round(q * len(values) + 0.5) - 1))]


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
        "command acted after the speaker stopped, p50 / p95 s (--realtime)": lambda s: (
            f"{_quantile(s['acted'], 0.5):.2f} / {_quantile(s['acted'], 0.95):.2f} "
            f"({len(s['acted'])})"
            if s.get("acted")
            else "-"
        ),
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
    parser.add_argument(
        "--voice-set", choices=sorted(VOICE_SETS), default="synthetic",
        help="natural: the Piper voice at two speeds and noise settings; synthetic: flite and "
        "espeak-ng (the robustness set); dev: Piper at the settings the judge was tuned on",
    )  # fmt: skip
    parser.add_argument(
        "--ordinary", choices=sorted(ORDINARY_SETS), default="dev",
        help="test: the 100 ordinary phrases no threshold was chosen on",
    )  # fmt: skip
    parser.add_argument(
        "--realtime", action="store_true",
        help="say each case no faster than real time and time the commands acting",
    )  # fmt: skip
    parser.add_argument("--busy", type=int, default=0, help="processes spinning beside it")
    parser.add_argument(
        "--judge", choices=("on", "off"), default="on",
        help="off: with Whisper on, the command check before the judge (n-best, grammar decode)",
    )  # fmt: skip
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
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.busy)
    ]
    try:
        return _measure_all(args)
    finally:
        for spinner in spinners:
            spinner.kill()


def _measure_all(args: argparse.Namespace) -> int:
    modes = {"off": [False], "on": [True], "both": [False, True]}[args.decode]
    named = {}
    for decode in modes:
        named["after" if decode else "before"] = summary(measure(args, decode))
    print_table(named)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
