"""How close the live (greyed) words are to the words each segment settles on.

    .venv/bin/python benchmarks/live_words.py ~/.cache/dictate-bench/real/wav/*.wav --piper

What a person reads while speaking is the live layer: the first pass's words of the open
segment, replaced by the settled (Whisper's) words when the segment closes. Each recording is
fed at real-time speed through ``dictate transcribe REC --realtime --json --second-pass tiny.en
--commit-after never`` (the window's pipeline, without the window), and per segment:

* **last live words**: the first pass's final words of the segment (the ``segment`` event's
  ``first_pass``), what was greyed just before the settled words replaced them;
* **their distance**: word edits from the last live words to the settled words, lower case and
  without punctuation, pooled over the segments (a word error rate with the settled words as the
  reference: the issue's measure, not accuracy against what was said);
* **changed while shown**: of the words shown live (``partial`` events of the open segment),
  how many were shown and later replaced by another word in the same place before the segment
  closed (flicker), per 100 words of the last live words;
* **words shown masked**: live words in the masked list (dictate/writing/live_mask.py), which
  the window shows masked.

``--piper`` adds natural-voice prose: the Piper voice (joe) reads a passage of public-domain
prose (the opening of Jane Austen's *Persuasion*, not used to tune anything) at lengths 0.9 and
1.15, 1.5 s of silence between sentences. Prints a Markdown table per recording and pooled.
"""

from __future__ import annotations

import argparse
import json
import os
import re
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
    from dictate.evaluation.commands_audio import Voice, synthesize, write_wav

    voice = Voice("piper", "joe", length=length)
    parts = [np.zeros(RATE, np.int16)]
    with tempfile.TemporaryDirectory() as work:
        for sentence in PROSE:
            parts += [synthesize(sentence, voice, Path(work)), np.zeros(int(1.5 * RATE), np.int16)]
    write_wav(path, np.concatenate(parts))


def measure(audio: Path) -> dict[str, Any]:
    """One real-time run of ``audio``: the counts of the module's docstring."""
    from dictate.edit_distance import edit_distance
    from dictate.writing.live_mask import LiveMask

    env = {**os.environ, "DICTATE_NO_HARVEST": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--realtime", "--json",
         "--second-pass", "tiny.en", "--commit-after", "never"],
        env=env, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
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
        if event["event"] == "segment" and event.get("first_pass") is not None:
            settled = _words(" ".join(w["text"] for w in event["words"]))
            live = _words(" ".join(w["text"] for w in event["first_pass"]))
            edits += edit_distance(live, settled)
            reference += len(settled)
            live_total += len(live)
    return {"edits": edits, "settled": reference, "live": live_total, "changed": changed,
            "masked": masked}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", nargs="*", type=Path)
    parser.add_argument("--piper", action="store_true", help="add natural-voice prose")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dictate-live-") as tmp:
        files = list(args.audio)
        if args.piper:
            for length in (0.9, 1.15):
                path = Path(tmp) / f"persuasion-piper-joe-x{length}.wav"
                piper_recording(path, length)
                files.append(path)
        total = {"edits": 0, "settled": 0, "live": 0, "changed": 0, "masked": 0}
        print("| recording | settled words | last live words vs settled (WER) | changed while "
              "shown, per 100 live words | live words masked |")  # fmt: skip
        print("|---|---|---|---|---|")
        for path in files:
            got = measure(path)
            for key in total:
                total[key] += got[key]
            print(_row(path.name, got), flush=True)
        print(_row("**pooled**", total))
    return 0


def _row(name: str, got: dict[str, Any]) -> str:
    wer = 100 * got["edits"] / max(1, got["settled"])
    flicker = 100 * got["changed"] / max(1, got["live"])
    return f"| {name} | {got['settled']} | {wer:.1f}% | {flicker:.0f} | {got['masked']} |"


if __name__ == "__main__":
    raise SystemExit(main())
