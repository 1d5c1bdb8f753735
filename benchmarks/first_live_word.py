"""How soon the first live (greyed) word of each phrase is shown after its speech begins:
``dictate transcribe REC --realtime --json --second-pass auto`` (the live pipeline, fed the
recording at real-time speed; its events on the pipeline's clock, which the paced source
shares), per segment the first ``partial`` event with words less the segment's speech start as
the voice detector found it (``speechstart``'s ``at``). Issue 52: within 0.5 s on an idle
machine.

    python benchmarks/first_live_word.py ~/.cache/dictate-bench/real/wav/{jfk,read_sentences}.wav \\
        --runs 3

Prints, per recording and run, the median and the largest delay over its segments.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def delays(audio: Path) -> list[float]:
    """Each segment's first live word after its speech start (seconds), one run."""
    env = {**os.environ, "DICTATE_NO_HARVEST": "1"}
    out = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--realtime", "--json",
         "--second-pass", "auto", "--commit-after", "never"],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
    ).stdout  # fmt: skip
    began: dict[int, float] = {}
    first: dict[int, float] = {}
    for line in out.splitlines():
        event = json.loads(line)
        if event["event"] == "speechstart":
            began[event["segment"]] = event["at"]
        elif event["event"] == "partial" and event["words"]:
            first.setdefault(event["segment"], event["time"])
    return [first[n] - began[n] for n in sorted(began) if n in first]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    print("| recording | segments | first live word after speech start: median (runs) | "
          "largest (runs) |")  # fmt: skip
    print("|---|---|---|---|")
    for audio in args.audio:
        runs = [delays(audio) for _ in range(args.runs)]
        medians = ", ".join(f"{statistics.median(r):.2f}" for r in runs if r)
        largest = ", ".join(f"{max(r):.2f}" for r in runs if r)
        print(f"| {audio.name} | {len(runs[0])} | {medians} s | {largest} s |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
