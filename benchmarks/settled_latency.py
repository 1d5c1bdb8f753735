"""How long after the end of speech each segment's words are settled, through ``dictate
transcribe --realtime --json`` (the live pipeline, fed a recording at real-time speed), with N
processes spinning beside it.

    python benchmarks/settled_latency.py ~/.cache/dictate-bench/real/wav/{jfk,read_sentences}.wav \\
        --runs 3 --busy 0,2

Each Segment event's time less its speech's end (both on the pipeline's clock), per run: the
median and the 95th percentile over the recording's segments, and the run's CPU seconds (the
command and its child processes). Commit on pause is off, as it adds nothing to a segment's
settling. The window's own figure is ``dictate bench gui AUDIO --second-pass auto``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def one_run(audio: Path) -> dict[str, Any]:
    env = {**os.environ, "DICTATE_NO_HARVEST": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--realtime", "--json",
         "--second-pass", "auto", "--commit-after", "never"],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True, stdin=subprocess.DEVNULL,
    ).stdout  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    settled = [e["time"] - e["end"] for e in map(json.loads, out.splitlines())
               if e["event"] == "segment" and e["words"]]  # fmt: skip
    return {
        "segments": len(settled),
        "p50_s": round(float(np.percentile(settled, 50)), 2),
        "p95_s": round(float(np.percentile(settled, 95)), 2),
        "cpu_s": round(cpu, 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--busy", default="0", help="spinning processes, e.g. 0,2")
    args = parser.parse_args(argv)
    print("| busy | recording | segments | settled p50 (runs) | settled p95 (runs) | "
          "median p95 | CPU s (median) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for busy in (int(n) for n in args.busy.split(",")):
        spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(busy)]  # fmt: skip
        try:
            for audio in args.audio:
                runs = [one_run(audio) for _ in range(args.runs)]
                p50 = ", ".join(f"{r['p50_s']:.2f}" for r in runs)
                p95 = ", ".join(f"{r['p95_s']:.2f}" for r in runs)
                p95_median = statistics.median(r["p95_s"] for r in runs)
                cpu = statistics.median(r["cpu_s"] for r in runs)
                print(f"| {busy} | {audio.stem} | {runs[0]['segments']} | {p50} | {p95} | "
                      f"{p95_median:.2f} | {cpu:.1f} |", flush=True)  # fmt: skip
        finally:
            for spinner in spinners:
                spinner.kill()
                spinner.wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
