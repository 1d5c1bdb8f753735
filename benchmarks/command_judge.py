"""The command judge's development data: Whisper's scores of every command phrase on phrases said
apart, for choosing the judge's shortlist and margins (:mod:`dictate.commands.judge`).

    python benchmarks/command_judge.py collect --set dev|test [--work /tmp/commands-audio]
        [--out FILE.jsonl] [--jobs 2] [--voice piper] [--sized]
    python benchmarks/command_judge.py tune FILE.jsonl [--free F,...] [--next N,...]

``collect`` synthesises each phrase alone (the README's commands and every other fixed command
phrase; ordinary short phrases), with 0.15 s of silence either side, decodes it with the second
pass (Whisper tiny.en, as the app does) and scores every command phrase and the free decode
against its audio (``WhisperEngine.text_scores``). The dev set is the Piper voice at two
settings (``PIPER_DEV_VOICES``) and two synthetic voices, with the ordinary phrases of
``ORDINARY`` (less those in the test list); the test set is the measured one
(``PIPER_VOICES``, ``ORDINARY_TEST``), collected to report, never to tune.

Each record also holds PocketSphinx's grammar decode of the clip (``grammar``: the phrase,
whether it was accepted, its margin) and every text's score as Whisper writes it
(``written``, ``free_written``: "Comma."), two levers tried and not kept
(docs/voice-commands.md). ``scores`` are the app's (since 2026-12-06 on the encoding of the
window sized to the audio). With ``--sized`` a record holds instead the scores in Whisper's 30
s window (``scores``, ``free``) and in the sized window (``sized_scores``, ``sized_free``;
``tune --sized`` replays them), the comparison by which the sized window was taken.

``tune`` replays :func:`dictate.commands.judge.decide` over the records with each pair of
margins and prints the commands carried out (exactly the phrase said) and the ordinary phrases
taken for a command.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dictate.evaluation.command_phrases import ORDINARY, ORDINARY_TEST
from dictate.evaluation.commands_audio import (
    PIPER_DEV_VOICES,
    PIPER_VOICES,
    VOICES,
    Voice,
    synthesize,
)

_ENGINE: Any = None
_GRAMMAR: Any = None
RECORDED = 12
"""Phrases scored per clip: the nearest by letters (the judge's shortlist is at most this)."""


_MARKS = {"PERIOD": ".", "QUESTION": "?", "COMMA": ","}


def written(words: Sequence[str], marks: Sequence[str] = ()) -> str:
    """Words as Whisper writes a phrase said on its own (recorded beside the bare words: the
    judge scores bare words, docs/voice-commands.md says why): the first
    capitalised, each followed by its mark (the punctuation tags of
    :attr:`dictate.asr.engine.Word.mark`), and a full stop at the end where none is
    ("comma" -> "Comma."; "colons" heard "Colons." -> "Colons.")."""
    padded = [*marks, *[""] * (len(words) - len(marks))]
    text = " ".join(w + _MARKS.get(m, "") for w, m in zip(words, padded, strict=True))
    text = text[:1].upper() + text[1:]
    return text if not text or text[-1] in ".?!" else text + "."


def cases(which: str) -> list[tuple[str, str, Voice]]:
    from dictate.commands.table import grammar_phrases

    commands = grammar_phrases()
    if which == "dev":
        voices = (*PIPER_DEV_VOICES, VOICES[0], VOICES[10])
        ordinary = [p for p in ORDINARY if p not in ORDINARY_TEST]
    else:
        voices = (*PIPER_VOICES, *VOICES)
        ordinary = list(ORDINARY_TEST)
    out = [("command", p, v) for p in commands for v in voices]
    out += [("ordinary", p, v) for p in ordinary for v in voices]
    return out


def _collect(job: tuple[str, str, Voice, str, bool]) -> dict[str, Any]:
    global _ENGINE, _GRAMMAR
    kind, phrase, voice, work, sized = job
    from dictate.commands.table import grammar_phrases

    if _ENGINE is None:
        from dictate.asr.command_decode import SphinxCommandDecoder
        from dictate.asr.loader import load_engine, load_second_pass

        _ENGINE = load_second_pass("tiny.en", load_engine("sphinx"), "cpu")
        _GRAMMAR = SphinxCommandDecoder(grammar_phrases())
    edge = np.zeros(int(0.15 * 16000), np.int16)
    audio = np.concatenate([edge, synthesize(phrase, voice, Path(work)), edge])
    result = _ENGINE.decode_audio(audio, 0.0)
    words = [(w.text, round(w.confidence, 4)) for w in result.words]
    from dictate.commands.judge import shortlist

    grammar = _GRAMMAR.decode(audio, [w for w, _ in words])
    phrases = shortlist([w for w, _ in words], grammar_phrases(), RECORDED)
    if grammar.phrase and grammar.phrase not in phrases:
        phrases.append(grammar.phrase)
    free = " ".join(w for w, _ in words)
    scores = _ENGINE.text_scores(audio, [*phrases, free] if free else phrases)
    if sized:  # the same texts scored on the encodings of both windows
        texts = [*phrases, free] if free else phrases
        full = _window_scores(audio, texts, len(phrases), sized=False)
        return {
            "kind": kind, "phrase": phrase, "voice": voice.name, "verdict": result.verdict,
            "words": words, "scores": full["scores"], "free": full["free"],
            **{"sized_" + k: v for k, v in _window_scores(audio, texts, len(phrases)).items()},
        }  # fmt: skip
    marks = [w.mark for w in result.words]
    free_written = written([w for w, _ in words], marks) if free else ""
    texts = [written(p.split()) for p in phrases]
    scores_written = _ENGINE.text_scores(audio, [*texts, free_written] if free else texts)
    return {
        "kind": kind, "phrase": phrase, "voice": voice.name, "verdict": result.verdict,
        "words": words, "scores": dict(zip(phrases, scores[: len(phrases)], strict=True)),
        "free": scores[-1] if free else None,
        "grammar": [grammar.phrase, grammar.accepted, round(grammar.margin, 4)],
        "written": dict(zip(phrases, scores_written[: len(phrases)], strict=True)),
        "free_written": scores_written[-1] if free else None,
    }  # fmt: skip


def _window_scores(
    audio: np.ndarray, texts: list[str], phrases: int, sized: bool = True
) -> dict[str, Any]:
    """``texts`` scored on the encoder's output of the window sized to ``audio`` (the one the
    second pass's first decode encodes: the app's since 2026-12-06) or of Whisper's 30 s
    (``scores`` and ``free``; ``collect --sized`` keeps both, ``tune --sized`` replays the
    sized ones; docs/voice-commands.md)."""
    from dictate.asr.whisper_score import Encoded, states_array, text_scores, window_features

    model = _ENGINE.model
    window, _frames = window_features(model, audio, sized=sized)
    scores = text_scores(model, "en", Encoded(states_array(model, window)), texts)
    return {"scores": dict(zip(texts[:phrases], scores[:phrases], strict=True)),
            "free": scores[-1] if len(texts) > phrases else None}  # fmt: skip


def collect(args: argparse.Namespace) -> None:
    jobs = [(k, p, v, args.work, args.sized) for k, p, v in cases(args.set)
            if v.name.startswith(args.voice)]  # fmt: skip
    out = Path(args.out or f"{args.work}/judge-{args.set}.jsonl")
    with multiprocessing.Pool(args.jobs) as pool, out.open("w") as f:
        for n, record in enumerate(pool.imap(_collect, jobs, chunksize=4), 1):
            f.write(json.dumps(record) + "\n")
            if n % 50 == 0:
                print(f"{n}/{len(jobs)}", file=sys.stderr, flush=True)
    print(out)


def tune(args: argparse.Namespace) -> None:
    from dictate.commands.judge import Margins, decide, shortlist
    from dictate.commands.table import PHRASES, grammar_phrases

    phrases = grammar_phrases()

    records = [json.loads(line) for line in Path(args.file).read_text().splitlines()]
    records = [r for r in records if r["voice"].startswith(args.voice)]
    grid = [
        (free, gap, sure, floor)
        for free in [float(x) for x in args.free.split(",")]
        for gap in [float(x) for x in args.next.split(",")]
        for sure in [float(x) for x in args.sure.split(",")]
        for floor in [float(x) for x in args.floor.split(",")]
    ]
    for free, gap, sure, floor in grid:
        if True:
            margins = Margins(free=free, next=gap, sure=sure, floor=floor)
            carried = total = false = ordinary = 0
            missed: list[str] = []
            by_voice: dict[str, list[int]] = {}
            for r in records:
                heard = [w for w, _ in r["words"]]
                names = shortlist(heard, phrases, args.size)
                key = "sized_" if args.sized else ""
                scores = {p: r[key + "scores"][p] for p in names}
                sure_of = [p for _, p in r["words"]]
                chosen = decide(heard, scores, r[key + "free"], margins, args.size, sure_of)
                taken = chosen or " ".join(heard)  # words heard as a command are one
                meant = PHRASES.get(taken)
                tally = by_voice.setdefault(r["voice"], [0, 0, 0, 0])
                if r["kind"] == "command":
                    total += 1
                    hit = meant == PHRASES[r["phrase"]]
                    carried += hit
                    tally[0] += hit
                    tally[1] += 1
                    if not hit:
                        missed.append(f"{r['phrase']}->{' '.join(heard)}({chosen})")
                else:
                    ordinary += 1
                    false += meant is not None
                    tally[2] += meant is not None
                    tally[3] += 1
                    if meant is not None:
                        missed.append(f"ORDINARY {r['phrase']}->{' '.join(heard)}({chosen})")
            share = 100 * carried / max(total, 1)
            print(f"free {free:5.1f} next {gap:4.1f} sure {sure:4.2f} floor {floor:5.1f}: "
                  f"carried {carried}/{total} "
                  f"({share:.1f}%), ordinary taken {false}/{ordinary}")  # fmt: skip
            if args.verbose:
                for voice, (hit, n, taken, m) in sorted(by_voice.items()):
                    print(f"   {voice:28} commands {hit}/{n}, ordinary taken {taken}/{m}")
                print("   missed:", "; ".join(missed[:80]))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    c = sub.add_parser("collect")
    c.add_argument("--set", choices=("dev", "test"), default="dev")
    c.add_argument("--work", default="/tmp/commands-audio")
    c.add_argument("--out", default="")
    c.add_argument("--jobs", type=int, default=2)
    c.add_argument("--sized", action="store_true",
                   help="also score in the window sized to the audio")  # fmt: skip
    c.add_argument("--voice", default="", help="only voices whose names start so")
    t = sub.add_parser("tune")
    t.add_argument("file")
    t.add_argument("--free", default="-10,-8,-6,-4,-2,0")
    t.add_argument("--next", default="0,2,4,6")
    t.add_argument("--sure", default="1.01")
    t.add_argument("--floor", default="-1e9")
    t.add_argument("--voice", default="", help="only voices whose names start so")
    t.add_argument("--size", type=int, default=4, help="the shortlist (at most 12)")
    t.add_argument("--sized", action="store_true", help="the scores of the sized window")
    t.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    collect(args) if args.action == "collect" else tune(args)


if __name__ == "__main__":
    main()
