"""The development set of the vocabulary's judged rewrite: where the thresholds of
:meth:`dictate.seam.vocabulary.VocabularyRefiner._judged` come from
(benchmarks/vocabulary_set.py is the test set: its entries were not used to choose them).

    .venv/bin/python benchmarks/vocabulary_dev.py --json /tmp/vocabulary_dev.json

24 entries of their own (names, places, medicines, jargon, products), each in a sentence and in
the same sentence with a plausible other word (a decoy), read by flite slt and espeak-ng en-us,
decoded by Whisper tiny.en as the second pass decodes a segment. For every run of the heard
words that comes near an entry (``VocabularyMatcher.near`` at a likeness of 0.45, under the
refiner's own floor), Whisper scores the words with the entry in the run's place against the
words as heard, without a prompt and with the entries in question named. The table counts, for
each floor and pair of margins, the entries written (the near-miss rewrite's and the judged
ones), the decoys given their own entry, and the sentences given another entry that was not
said.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import wave
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from vocabulary_set import say, voices  # noqa: E402

DEV: list[tuple[str, str, str]] = [
    ("Tchaikovsky", "We listened to {} after dinner.", "Mozart"),
    ("Nakamura", "The contract for {} is ready.", "Namara"),
    ("Wojciech", "I will meet {} at the airport.", "William"),
    ("Thibault", "Ask {} about the budget.", "Tim"),
    ("Padraig", "The letter from {} came today.", "Patrick"),
    ("Leicester", "Her family moved to {} in June.", "Chester"),
    ("Schenectady", "The factory in {} closed down.", "Seattle"),
    ("Tallahassee", "We drove to {} on Friday.", "Tennessee"),
    ("clopidogrel", "He was started on {} after the stent.", "cholesterol"),
    ("metronidazole", "The infection cleared with {} quickly.", "medicine"),
    ("furosemide", "Give {} for the swelling.", "fluids"),
    ("ondansetron", "She needed {} for the nausea.", "water"),
    ("pneumothorax", "The X ray showed a small {} today.", "shadow"),
    ("stochastic", "The model uses {} gradient descent.", "simple"),
    ("bronchiectasis", "The cough was caused by {} in the end.", "bronchitis"),
    ("Grafana", "The charts are in {} now.", "Grenada"),
    ("Terraform", "We manage the servers with {} now.", "teamwork"),
    ("DynamoDB", "The orders are stored in {} tables.", "dynamic"),
    ("Ansible", "The script was rewritten in {} last week.", "Ancient"),
    ("YouTube", "She watched it on {} yesterday.", "the train"),
    ("Xiaomi", "The phone is made by {} in China.", "Sony"),
    ("Huawei", "The router came from {} last year.", "Hawaii"),
    ("Ngozi", "The parcel for {} arrived early.", "Nancy"),
    ("Eilidh", "Tell {} the dinner is ready.", "Ellie"),
]


def _audio(path: Path) -> np.ndarray:
    import subprocess

    out = path.with_suffix(".16k.wav")
    subprocess.run(["sox", "-R", "-q", str(path), "-r", "16000", "-c", "1", "-b", "16", str(out),
                    "pad", "0.3", "0.3"], check=True)  # fmt: skip
    with wave.open(str(out)) as w:
        return np.frombuffer(w.readframes(w.getnframes()), np.int16)


def collect(voice_spec: str) -> list[dict[str, Any]]:
    from dictate.asr.whisper_engine import WhisperSecondPass
    from dictate.writing.vocabulary import parse_entry
    from dictate.writing.vocabulary_match import VocabularyMatcher

    whisper = WhisperSecondPass()
    matcher = VocabularyMatcher([parse_entry(e) for e, _, _ in DEV])
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="dictate-vocab-dev-") as tmp:
        for voice in voices(voice_spec):
            for entry, sentence, decoy in DEV:
                for kind, filler in (("entry", entry), ("decoy", decoy)):
                    said = sentence.format(filler)
                    raw = Path(tmp) / "said.wav"
                    say(voice, said, raw)
                    audio = _audio(raw)
                    heard = [w.text for w in whisper.decode_audio(audio, 0.0).words]
                    matched = [[m.entry.written, m.start, m.end] for m in matcher.matches(heard)]
                    near = matcher.near(heard, floor=0.45)
                    row: dict[str, Any] = {
                        "voice": ":".join(voice), "kind": kind, "entry": entry, "said": said,
                        "heard": heard, "matched": matched, "near": [],
                    }  # fmt: skip
                    if near:
                        row["near"], _ = judged(whisper, audio, heard, near)
                    rows.append(row)
                    print(kind, entry, "|", " ".join(heard), flush=True)
    return rows


def judged(
    whisper: Any, audio: np.ndarray, heard: list[str], near: list[Any]
) -> tuple[list[dict[str, Any]], float]:
    """Whisper's scores of the words with each of ``near``'s entries in its run's place against
    the words as heard, without a prompt and with the entries in question named (as the refiner
    asks), as records; and its no-speech probability."""
    from dictate.writing.vocabulary_match import MAX_CANDIDATES, naming

    named: list[Any] = []
    for m in near:
        if m.entry not in named and len(named) < MAX_CANDIDATES:
            named.append(m.entry)
    texts = [" ".join(heard)] + [
        " ".join([*heard[: m.start], m.entry.written, *heard[m.end :]]) for m in near
    ]
    scored = whisper.score(audio, texts, ("", naming(named)))
    assert scored is not None
    (h, *plain), (hn, *prompted) = scored.log_probs
    return [
        {"entry": m.entry.written, "start": m.start, "end": m.end, "likeness": m.score,
         "misheard": m.misheard, "sounds": m.sounds, "plain": p - h, "named": q - hn}
        for m, p, q in zip(near, plain, prompted, strict=True)
    ], scored.no_speech_prob  # fmt: skip


def count(rows: list[dict[str, Any]], floor: float, named: float, plain: float) -> tuple[int, ...]:
    written = own_false = other = 0
    for row in rows:
        got = {written for written, _, _ in row["matched"]}
        taken = [(start, end) for _, start, end in row["matched"]]
        for near in sorted(row["near"], key=lambda n: -n["named"]):
            if near["likeness"] < floor or near["named"] < named or near["plain"] < plain:
                continue
            if all(near["end"] <= a or near["start"] >= b for a, b in taken):
                taken.append((near["start"], near["end"]))
                got.add(near["entry"])
        if row["kind"] == "entry":
            written += row["entry"] in got
        else:
            own_false += row["entry"] in got
        other += bool(got - {row["entry"]})
    return written, own_false, other


def timing(repeats: int) -> None:
    """The judge's cost, median of ``repeats``: finding the matches and the runs near entries
    in a 20-word segment with 500 entries (made-up words of 6 to 14 letters: the cost grows
    with the entries and their lengths, not with their meaning), without and with
    :data:`~dictate.writing.vocabulary_harvest.MAX_FORMS` misheard forms each (made-up runs of
    one to three words of 2 to 8 letters), and Whisper's scoring of one sentence's runs."""
    import random
    import statistics
    import time

    from dictate.asr.whisper_engine import WhisperSecondPass
    from dictate.writing.vocabulary import VocabularyEntry, parse_entry
    from dictate.writing.vocabulary_harvest import MAX_FORMS
    from dictate.writing.vocabulary_match import MAX_CANDIDATES, VocabularyMatcher, naming

    rng = random.Random(7)

    def word(low: int, high: int) -> str:
        return "".join(rng.choice("abcdefghiklmnoprstuvy") for _ in range(rng.randint(low, high)))

    entries = [VocabularyEntry(word(6, 14)) for _ in range(500)]
    forms = {e.key: [tuple(word(2, 8) for _ in range(rng.randint(1, 3))) for _ in range(MAX_FORMS)]
             for e in entries}  # fmt: skip
    heard = ("the patient was started on clop in a grill after the stent and the nurse "
             "checked the levels again this morning").split()  # fmt: skip
    for label, many in (("500 entries", VocabularyMatcher(entries)),
                        (f"500 entries, {MAX_FORMS} misheard forms each",
                         VocabularyMatcher(entries, misheard=forms))):  # fmt: skip
        took = []
        for _ in range(repeats):
            began = time.perf_counter()
            many.near(heard, matched=many.matches(heard))
            took.append(time.perf_counter() - began)
        print(f"matches() and near(): {len(heard)} words, {label}: median "
              f"{statistics.median(took):.3f} s")  # fmt: skip
    whisper = WhisperSecondPass()
    matcher = VocabularyMatcher([parse_entry(e) for e, _, _ in DEV])
    with tempfile.TemporaryDirectory(prefix="dictate-vocab-dev-") as tmp:
        raw = Path(tmp) / "said.wav"
        say(("flite", "slt"), "The charts are in Grafana now.", raw)
        audio = _audio(raw)
    words = [w.text for w in whisper.decode_audio(audio, 0.0).words]
    near = matcher.near(words)
    named = list(dict.fromkeys(m.entry for m in near))[:MAX_CANDIDATES]
    texts = [" ".join(words)] + [
        " ".join([*words[: m.start], m.entry.written, *words[m.end :]]) for m in near
    ]
    took = []
    for _ in range(repeats):
        began = time.perf_counter()
        whisper.score(audio, texts, ("", naming(named)))
        took.append(time.perf_counter() - began)
    print(f"score(): {len(audio) / 16000:.1f} s of audio, {len(texts)} texts, 2 prompts: "
          f"median {statistics.median(took):.3f} s")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--voices", default="flite:slt,espeak:en-us")
    parser.add_argument("--json", type=Path, help="keep the scores here")
    parser.add_argument("--from-json", type=Path, help="count from scores kept before")
    parser.add_argument("--time", type=int, default=0, help="time the judge, N runs, and stop")
    args = parser.parse_args(argv)
    if args.time:
        timing(args.time)
        return 0
    if args.from_json:
        rows = json.loads(args.from_json.read_text())
    else:
        rows = collect(args.voices)
        if args.json:
            args.json.write_text(json.dumps(rows, indent=1))
    entries = sum(r["kind"] == "entry" for r in rows)
    print(f"\n{entries} entry sentences, {len(rows) - entries} decoys")
    print("| floor | margin named | margin plain | entries written | decoys given their entry "
          "| sentences given another entry |")  # fmt: skip
    print("|---|---|---|---|---|---|")
    written, own, other = count(rows, 2.0, 0.0, 0.0)
    print(f"| near misses alone | | | {written} | {own} | {other} |")
    for floor in (0.45, 0.55, 0.65, 0.75):
        for named in (0.0, 2.0, 4.0, 8.0):
            for plain in (-20.0, -8.0, -2.0, 0.0):
                written, own, other = count(rows, floor, named, plain)
                print(f"| {floor} | {named} | {plain} | {written} | {own} | {other} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
