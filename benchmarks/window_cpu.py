"""The window's CPU for a dictation against its pipeline's: issue 52's "the window costs what the
pipeline costs".

    .venv/bin/python benchmarks/window_cpu.py ~/.cache/dictate-bench/real/wav/librivox_sense.wav \\
        --runs 3

For each recording, ``--runs`` times each, at real-time speed, this machine as it is:

* **the window**: ``dictate bench gui AUDIO --second-pass auto --cpu`` (the real window,
  offscreen, dictated into ``--runs`` times, as a person starts and stops dictation; its
  recogniser in its child process, as in the app): the CPU of each dictation, the window's
  process and its children, by thread; and the start-up's (the window built and its models
  loaded, before the first dictation);
* **``transcribe --realtime``**: ``dictate transcribe AUDIO --realtime --second-pass auto``
  in a process of its own, its whole CPU (start-up and model loads included, as the issue
  measured it), and the same with ``--json`` (which punctuates the live words too, as the window
  does);
* **the start-up of ``transcribe``**: the same command on 1 s of silence, so that the
  pipeline's own CPU (the total less the start-up) can be set beside the window's per dictation.

Medians of the runs. Prints a Markdown table and the window's threads.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def transcribe_cpu(audio: Path, *extra: str) -> float:
    """CPU seconds of one ``dictate transcribe AUDIO --realtime`` process (its children too)."""
    before = _children_cpu()
    subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--realtime",
         "--second-pass", "auto", *extra],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return _children_cpu() - before


def window_cpu(audio: Path, runs: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "bench", "gui", str(audio), "--second-pass", "auto",
         "--runs", str(runs), "--cpu", "--json"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout)
    return result


def silence(path: Path) -> Path:
    with wave.open(str(path), "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(16000)
        f.writeframes(b"\0\0" * 16000)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="dictate-cpu-") as tmp:
        quiet = silence(Path(tmp) / "silence.wav")
        startup = statistics.median(transcribe_cpu(quiet) for _ in range(args.runs))
    print(f"`transcribe --realtime` of 1 s of silence (its start-up): {startup:.1f} CPU-s\n")
    print("| recording | window, per dictation | window's start-up | transcribe --realtime "
          "| less its start-up | with --json | less its start-up | window / transcribe less "
          "start-up (--json) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    threads: dict[str, list[float]] = {}
    for audio in args.audio:
        window = window_cpu(audio, args.runs)
        runs = window["runs"]
        assert isinstance(runs, list)
        for run in runs:
            for name, cpu in run["threads_cpu_s"].items():
                threads.setdefault(name, []).append(cpu)
            threads.setdefault("child processes", []).append(run["children_cpu_s"])
        per_run = float(window["cpu_s_median"])  # type: ignore[arg-type]
        plain = statistics.median(transcribe_cpu(audio) for _ in range(args.runs))
        live = statistics.median(transcribe_cpu(audio, "--json") for _ in range(args.runs))
        ratio, ratio_live = (per_run / max(0.01, cpu - startup) for cpu in (plain, live))
        print(f"| {audio.name} | {per_run:.1f} s | {window['startup_cpu_s']} s | {plain:.1f} s | "
              f"{plain - startup:.1f} s | {live:.1f} s | {live - startup:.1f} s | "
              f"{ratio:.2f} ({ratio_live:.2f}) |", flush=True)  # fmt: skip
    print("\nThe window's CPU per dictation by thread (medians over all dictations):")
    for name, values in sorted(threads.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"- {name}: {statistics.median(values):.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
