"""File > Transcribe audio file in the window against ``dictate transcribe`` of the same file
(issue 53: at most 1.2 times as long, progress from the first second, an honest time left).

    .venv/bin/python benchmarks/window_file.py FILE --runs 3

For each run, on this machine as it is, both with the default settings (Whisper on):

* **the command line**: ``dictate transcribe FILE -o OUT`` in a process of its own, from its
  start to its exit (start-up and model loads included: what a person waits for), and the same
  with ``--workers auto`` (one recogniser per core, as the window decodes a file);
* **the window**: the real window (offscreen), open with its models loaded as the app has them
  a moment after it starts; File > Transcribe audio file of FILE into a new document, from the
  call to the end of the run (the recognisers the file needs started, the decode, the text).
  Twice a second the progress line is read: when it first shows progress, and what each
  "time left" said against the time that was really left (its relative error, median and
  largest, while more than 3 s were left).

Prints the medians, their ratio, and whether the window's text is the command line's.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

WINDOW_RUN = r"""
import json, os, re, sys, tempfile, time
from pathlib import Path
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QCoreApplication
from dictate.config import Settings
from dictate.editing.journal import Journal
from dictate.ui.app import application
from dictate.ui.main_window import MainWindow

audio = Path(sys.argv[1])
application()
with tempfile.TemporaryDirectory(prefix="dictate-bench-") as tmp:
    settings = Settings(first_run_done=True, audio_file_target="new")
    window = MainWindow(settings, Journal(Path(tmp) / "j.jsonl"), False)
    window.document.load_text("", None)
    window.show()
    window.controller.preload_now()
    importer = window.audio_import
    began = time.monotonic()
    assert importer.transcribe(audio)
    seen = []
    next_read = began
    while importer.busy:
        QCoreApplication.processEvents()
        now = time.monotonic()
        if now >= next_read:
            next_read += 0.5
            done = importer.source.done_s if importer.source is not None else None
            seen.append([round(now - began, 2), importer.progress.label.text(),
                         window.statusBar().currentMessage(), done])
        time.sleep(0.01)
    took = time.monotonic() - began
    print(json.dumps({"seconds": took, "text": window.editor.text, "seen": seen}))
    window.document.modified = False
    window.close()
"""


def cli_run(audio: Path, out: Path, *extra: str) -> float:
    began = time.monotonic()
    subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "-o", str(out), *extra],
        cwd=ROOT, check=True, capture_output=True,
    )  # fmt: skip
    return time.monotonic() - began


def window_run(audio: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", WINDOW_RUN, str(audio)],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )  # fmt: skip
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


LEFT = (r"about (\d+(?:\.\d+)?) (s|min|h) left", {"s": 1, "min": 60, "h": 3600})


def honesty(seen: list[list[object]], took: float) -> dict[str, object]:
    """When progress first showed, and each time-left against the time really left."""
    import re

    pattern, unit = LEFT
    first = next((t for t, _, _, done in seen if done), None)  # the first words are in
    said = []
    for t, label, _, _ in seen:
        match = re.search(pattern, str(label))
        if match:
            left = float(match.group(1)) * unit[match.group(2)]
            said.append((float(str(t)), left, took - float(str(t))))
    statuses = sorted({str(status) for _, _, status, _ in seen})
    off = sorted(abs(left - real) / real for _, left, real in said if real > 3)
    return {"first_progress_s": first, "statuses": statuses,
            "time_left_off_median": round(off[len(off) // 2], 2) if off else None,
            "time_left_off_max": round(off[-1], 2) if off else None,
            "time_left": said}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("audio", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    cli, auto, window, same = [], [], [], []
    with tempfile.TemporaryDirectory(prefix="dictate-file-") as tmp:
        for run in range(args.runs):
            out = Path(tmp) / f"cli{run}.txt"
            cli.append(cli_run(args.audio, out))
            auto.append(cli_run(args.audio, Path(tmp) / "auto.txt", "--workers", "auto"))
            result = window_run(args.audio)
            window.append(float(str(result["seconds"])))
            text = out.read_text(encoding="utf-8").strip()
            same.append(str(result["text"]).strip() == text)
            seen = result["seen"]
            assert isinstance(seen, list)
            report = honesty(seen, window[-1])
            print(json.dumps({"run": run, "cli_s": round(cli[-1], 2),
                              "cli_workers_auto_s": round(auto[-1], 2),
                              "window_s": round(window[-1], 2), "same_text": same[-1],
                              **report}), flush=True)  # fmt: skip
    c, w = statistics.median(cli), statistics.median(window)
    a = statistics.median(auto)
    print(f"median: transcribe {c:.1f} s (--workers auto {a:.1f} s), window {w:.1f} s, "
          f"ratio {w / c:.2f} ({w / a:.2f} against --workers auto); "
          f"same text in {sum(same)} of {len(same)} runs")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
