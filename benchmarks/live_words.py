"""How close the live (greyed) words are to the words each segment settles on.

    .venv/bin/python benchmarks/live_words.py ~/.cache/dictate-bench/real/wav/*.wav --piper

What a person reads while speaking is the live layer: the first pass's words of the open
segment, replaced by the settled (Whisper's) words when the segment closes. Each recording is
fed at real-time speed through ``dictate transcribe REC --realtime --json --second-pass tiny.en
--commit-after never`` (the window's pipeline, without the window), and per segment:

* **last live words**: what was greyed for the segment just before its settled words replaced
  it (the ``segment`` event's ``shown``: the first pass's words, or a preview's and then the
  first pass's newer ones);
* **their distance**: word edits from the last live words to the settled words, lower case and
  without punctuation, pooled over the segments (a word error rate with the settled words as the
  reference: the issue's measure, not accuracy against what was said);
* **changed while shown**: of the words shown live (``partial`` events of the open segment),
  how many were shown and later replaced by another word in the same place before the segment
  closed (flicker), per 100 words of the last live words;
* **words shown masked**: live words in the masked list (dictate/writing/live_mask.py), which
  the window shows masked.

Each recording is run with the second pass's previews of the open segment (the default), with
only the words two previews agree on (``DICTATE_LIVE_AGREEMENT=1``, whisper_streaming's local
agreement) and without previews (``DICTATE_NO_PREVIEWS=1``: the first pass's words only),
``--runs`` times each;
besides the counts above, the CPU time of the ``transcribe`` process (user and system, its
start and model loads included) and the settled words' time after the end of each segment's
speech (p95 over the segments), medians of the runs.

``--piper`` adds natural-voice prose: the Piper voice (joe) reads a passage of public-domain
prose (the opening of Jane Austen's *Persuasion*, not used to tune anything) at lengths 0.9 and
1.15, 1.5 s of silence between sentences. Prints a Markdown table per recording and pooled.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

RATE = 16000
PROSE = (
    "Sir Walter Elliot, of Kellynch Hall, in Somersetshire, was a man who, for his own "
    "amusement, never took up any book but the Baronetage.",
    "There he found occupation for an idle hour, and consolation in a distressed one.",
    "There his faculties were roused into admiration and respect, by contemplating the limited "
    "remnant of the earliest patents.",
    "Vanity was the beginning and the end of Sir Walter's character; vanity of person and of "
    "situation.",
    "He had been remarkably handsome in his youth, and at fifty-four was still a very fine man.",
    "Few women could think more of their personal appearance than he did.",
)


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower())


def piper_recording(path: Path, length: float) -> None:
    """The prose said by Piper's joe without its random sampling: the same audio every time
    (until 2026-12-06 with Piper's noise, a new draw on each run of the benchmark)."""
    from dictate.audio.speech_voices import SpeechVoice, say
    from dictate.evaluation.commands_audio import write_wav

    voice = SpeechVoice("piper", "joe", length)
    parts = [np.zeros(RATE, np.int16)]
    for sentence in PROSE:
        parts += [say(sentence, voice), np.zeros(int(1.5 * RATE), np.int16)]
    write_wav(path, np.concatenate(parts))


def measure(audio: Path, config: str) -> dict[str, Any]:
    """One real-time run of ``audio`` with ``config`` (of :data:`CONFIGS`): the counts of the
    module's docstring."""
    from dictate.edit_distance import edit_distance
    from dictate.writing.live_mask import LiveMask

    env = {**os.environ, "DICTATE_NO_HARVEST": "1", **CONFIGS[config]}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--realtime", "--json",
         "--second-pass", "tiny.en", "--commit-after", "never"],
        env=env, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    settled_after: list[float] = []
    listed = LiveMask().words()
    edits = reference = live_total = changed = masked = 0
    shown: dict[int, list[str]] = {}
    for line in done.stdout.splitlines():
        event = json.loads(line)
        if event["event"] == "partial":
            # the words of closed segments not settled yet, then the open segment's
            # (a settled segment's words leave the front: the comparison starts again there)
            words, segment = event["words"], event["segment"]
            before = shown.get(segment, [])
            changed += sum(1 for a, b in zip(before, words, strict=False) if a != b)
            shown[segment] = words
            masked += sum(1 for w in words if w.lower() in listed)
        elif event["event"] == "segment":
            shown.clear()
        if event["event"] == "segment" and event.get("shown") is not None:
            settled_after.append(event["time"] - event["end"])
            settled = _words(" ".join(w["text"] for w in event["words"]))
            live = _words(" ".join(event["shown"]))
            edits += edit_distance(live, settled)
            reference += len(settled)
            live_total += len(live)
    p95 = float(np.percentile(settled_after, 95)) if settled_after else 0.0
    return {"edits": edits, "settled": reference, "live": live_total, "changed": changed,
            "masked": masked, "cpu": cpu, "p95": p95}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", nargs="*", type=Path)
    parser.add_argument("--piper", action="store_true", help="add natural-voice prose")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--only", default="", help="the configurations whose names start so")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dictate-live-") as tmp:
        files = list(args.audio)
        if args.piper:
            for length in (0.9, 1.15):
                path = Path(tmp) / f"persuasion-piper-joe-x{length}.wav"
                piper_recording(path, length)
                files.append(path)
        keys = ("edits", "settled", "live", "changed", "masked", "cpu", "p95")
        print("| recording | live words from | settled words | last live words vs settled (WER) | "
              "changed while shown, per 100 live words | live words masked | CPU s | settled "
              "p95 after speech |")  # fmt: skip
        print("|---|---|---|---|---|---|---|---|")
        chosen = [c for c in CONFIGS if not args.only or c.startswith(args.only)]
        pooled = {name: dict.fromkeys(keys, 0.0) for name in chosen}
        for path in files:
            for name in chosen:
                runs = [measure(path, name) for _ in range(args.runs)]
                got = {k: statistics.median(r[k] for r in runs) for k in keys}
                for k in keys:
                    pooled[name][k] += got[k] if k != "p95" else 0.0
                pooled[name]["p95"] = max(pooled[name]["p95"], got["p95"])
                print(_row(path.name, name, got), flush=True)
        for name in chosen:
            print(_row("**pooled** (p95: the worst)", name, pooled[name]))
    return 0


CONFIGS = {
    "previews (the default)": {"DICTATE_NO_PREVIEWS": "", "DICTATE_LIVE_AGREEMENT": ""},
    "previews, words two agree on": {"DICTATE_NO_PREVIEWS": "", "DICTATE_LIVE_AGREEMENT": "1"},
    "first pass only": {"DICTATE_NO_PREVIEWS": "1", "DICTATE_LIVE_AGREEMENT": ""},
}
"""The live words' sources compared: the environment of each (dictate/run/pipeline.py's
``NO_PREVIEWS_ENV``, dictate/run/first_pass.py's ``AGREEMENT_ENV``)."""


def _row(name: str, config: str, got: dict[str, Any]) -> str:
    wer = 100 * got["edits"] / max(1, got["settled"])
    flicker = 100 * got["changed"] / max(1, got["live"])
    return (f"| {name} | {config} | {got['settled']:.0f} | {wer:.1f}% | {flicker:.0f} | "
            f"{got['masked']:.0f} | {got['cpu']:.1f} | {got['p95']:.2f} s |")  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
