"""What a 500-entry vocabulary costs the user: how long after the end of speech each segment
settles (Whisper's words and the vocabulary's rewrites in the text), with and without the
vocabulary, for the same recording played at real-time speed.

    .venv/bin/python benchmarks/vocabulary_settle.py --data /tmp/v500/data --runs 3 \
        --audio /tmp/v500/settle.wav

``--audio`` keeps the recording (or reuses it where it exists): Piper speaks it with noise,
unseeded, so each invocation without it makes another recording and another set of words.

The recording: the Piper voice (joe, length 1.0, noise 0.333) says ``--sentences`` sentences of
benchmarks/vocabulary_set.py, every other one with its entry and the others its decoy (an
ordinary word in the entry's place), 1.2 s of silence after each. Each run is
``dictate transcribe REC --realtime --json --second-pass tiny.en --commit-after never`` in its
own process, with ``XDG_DATA_HOME`` set to an empty folder (no vocabulary) or to ``--data`` (a
data folder holding ``dictate/vocabulary.jsonl`` and its misheard forms); the configurations
alternate, run by run. Per segment: its ``segment`` event's time (the pipeline's clock, source
seconds plus how far it is behind) minus the segment's end of speech. Prints p50 and p95 per
run, their medians per configuration, and whether every run of a configuration wrote the same
words.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

RATE = 16000


def recording(path: Path, count: int) -> None:
    from vocabulary_set import SET

    from dictate.evaluation.commands_audio import Voice, synthesize, write_wav

    voice = Voice("piper", "joe", length=1.0, noise=0.333)
    parts = [np.zeros(RATE, dtype=np.int16)]
    with tempfile.TemporaryDirectory() as work:
        for number, (entry, sentence, decoy) in enumerate(SET[:count]):
            said = entry.split(" = ")[0] if number % 2 == 0 else decoy
            parts.append(synthesize(sentence.format(said), voice, Path(work)))
            parts.append(np.zeros(int(1.2 * RATE), dtype=np.int16))
    write_wav(path, np.concatenate(parts))


def run(audio: Path, data: Path) -> tuple[list[float], str]:
    env = {**os.environ, "XDG_DATA_HOME": str(data), "DICTATE_NO_HARVEST": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--realtime", "--json",
         "--second-pass", "tiny.en", "--commit-after", "never"],
        env=env, capture_output=True, text=True, check=True, cwd=ROOT,
    )  # fmt: skip
    settled, text = [], []
    for line in done.stdout.splitlines():
        event = json.loads(line)
        if event["event"] == "segment" and event["words"]:
            settled.append(event["time"] - event["end"])
        elif event["event"] == "finalized":
            text += event["sentences"]
    return settled, " ".join(text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, required=True, help="a data folder with the words")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sentences", type=int, default=20)
    parser.add_argument("--audio", type=Path, help="keep (or reuse) the recording here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dictate-settle-") as tmp:
        audio = args.audio or Path(tmp) / "said.wav"
        if not audio.exists():
            recording(audio, args.sentences)
        empty = Path(tmp) / "empty"
        empty.mkdir()
        configs = {"no vocabulary": empty, f"{args.data}": args.data}
        results: dict[str, list[tuple[list[float], str]]] = {name: [] for name in configs}
        for number in range(args.runs):
            for name, data in configs.items():
                settled, text = run(audio, data)
                results[name].append((settled, text))
                p50, p95 = np.percentile(settled, 50), np.percentile(settled, 95)
                print(f"run {number + 1}, {name}: {len(settled)} segments, settled p50 "
                      f"{p50:.2f} s, p95 {p95:.2f} s", flush=True)  # fmt: skip
        for name, runs in results.items():
            p50 = statistics.median(float(np.percentile(s, 50)) for s, _ in runs)
            p95 = statistics.median(float(np.percentile(s, 95)) for s, _ in runs)
            same = len({text for _, text in runs}) == 1
            print(f"{name}: median of {len(runs)} runs: p50 {p50:.2f} s, p95 {p95:.2f} s; "
                  f"the same words in every run: {same}")  # fmt: skip
            print(f"  {runs[-1][1]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
