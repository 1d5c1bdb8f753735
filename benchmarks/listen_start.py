"""How soon dictation listens: from the key press to the microphone open and its audio kept,
while the models still load, idle and with busy processes beside it.

    .venv/bin/python benchmarks/listen_start.py --busy 0,4 --runs 3

Each run starts the real window cold in a process of its own (offscreen, a fresh data folder,
the default engines: PocketSphinx, then Whisper tiny.en; its audio kept) on a private PulseAudio
server's null-sink microphone (tests/pulse.py, the GUI tests' harness), and starts dictation as
the key does, at once, while the app's preload of the models is under way. It reports, from that
press:

* open: the microphone opened and capturing (the window's ``micOpened``);
* first block: the first block of audio handed to the kept-audio recorder;
* on disk: the first audio readable from the kept file (as after a crash);
* listening: the recognisers loaded ("Listening…"); what was said before is recognised then.

And ``dictate transcribe --mic``: from the command's launch (Python's start and imports
included) to its recording stream on the sound server, and to its "ready" line (models loaded).

A PulseAudio null sink's monitor, idle, renders 2 s at a time, and a new recording stream waits
for that block to end: its first block comes about 1.8 s after the open, where a hardware
microphone's comes within a block. ``--awake`` keeps the sink rendering, as a hardware source
does, with a recording stream of its own (``parec`` into /dev/null) beside the runs; without it
the figures include the null sink's wait. The spinners are plain Python loops at normal priority.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def child(data: str) -> int:
    """One cold start of the window in this process: press at once, report the moments."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.editing.session_audio import read_span
    from dictate.ui.main_window import MainWindow

    app = QApplication([])
    settings = Settings(first_run_done=True, keep_audio=True)
    window = MainWindow(settings, Journal(Path(data) / "journal.jsonl"), False)
    window.document.load_text("", None)
    window.controller.preload()  # as the app does at start
    moments: dict[str, float] = {}
    window.controller.micOpened.connect(lambda: moments.setdefault("open", time.monotonic()))
    pressed = time.monotonic()
    window.dictation.start()  # the key press
    deadline = pressed + 300
    while len(moments) < 4 and time.monotonic() < deadline:
        app.processEvents()
        now = time.monotonic()
        recorder = window.kept_audio.recorder
        if recorder is not None and recorder.samples and "first_block" not in moments:
            moments["first_block"] = now
        if recorder is not None and "on_disk" not in moments:
            with contextlib.suppress(OSError):
                if len(read_span(recorder.path)):
                    moments["on_disk"] = now
        if window.controller.state == "listening":
            moments.setdefault("listening", now)
        time.sleep(0.005)
    window.dictation.stop()
    while window.controller.state != "idle" and time.monotonic() < deadline + 60:
        app.processEvents()
        time.sleep(0.01)
    window.document.modified = False
    window.close()
    QCoreApplication.processEvents()
    print(json.dumps({k: round(v - pressed, 3) for k, v in moments.items()}), flush=True)
    return 0


def window_run(env: dict[str, str]) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="dls-") as data:
        run_env = {**env, "XDG_DATA_HOME": data, "XDG_STATE_HOME": data, "XDG_CONFIG_HOME": data}
        out = subprocess.run(
            [sys.executable, __file__, "--child", data],
            env=run_env,
            capture_output=True,
            text=True,
            timeout=600,
            check=True,
        ).stdout
        result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
        return result


def recording_streams(env: dict[str, str]) -> set[str]:
    """The sound server's recording streams now (``pactl list short source-outputs``)."""
    out = subprocess.run(
        ["pactl", "list", "short", "source-outputs"], env=env, capture_output=True, text=True
    ).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def transcribe_run(env: dict[str, str]) -> tuple[float, float]:
    """Seconds from launching ``dictate transcribe --mic`` to its recording stream on the
    sound server (the microphone open, asked of the server), and to its "ready" line."""
    before = recording_streams(env)
    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dictate", "transcribe", "--mic", "--duration", "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    opened = None
    while opened is None and proc.poll() is None:
        if recording_streams(env) - before:
            opened = time.monotonic() - began
        time.sleep(0.01)
    assert proc.stderr is not None
    ready = None
    for line in proc.stderr:
        if "ready" in line and ready is None:
            ready = time.monotonic() - began
    proc.wait(600)
    if opened is None or ready is None:
        raise RuntimeError("dictate transcribe --mic never opened the microphone or got ready")
    return opened, ready


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--busy", default="0,4", help="busy processes beside the runs, e.g. 0,4")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--awake", action="store_true", help="keep the null sink rendering")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT / "tests"))
    from pulse import SINK, PulseServer  # the GUI tests' harness; sets PULSE_SERVER

    rows: list[dict[str, Any]] = []
    with (
        tempfile.TemporaryDirectory(prefix="dls") as folder,
        PulseServer(Path(folder), rescan=False) as pulse,
    ):
        env = pulse.env()
        keeper = (
            subprocess.Popen(
                ["parec", f"--device={SINK}.monitor", "--latency-msec=30"],
                env=env,
                stdout=subprocess.DEVNULL,
            )
            if args.awake
            else None
        )
        try:
            for busy in [int(n) for n in args.busy.split(",")]:
                spinners = [
                    subprocess.Popen([sys.executable, "-c", "while True: pass"])
                    for _ in range(busy)
                ]
                try:
                    runs = [window_run(env) for _ in range(args.runs)]
                    ready = [transcribe_run(env) for _ in range(args.runs)]
                finally:
                    for spinner in spinners:
                        spinner.kill()
                        spinner.wait()
                row: dict[str, Any] = {
                    "busy": busy,
                    "runs": runs,
                    "transcribe_open": [o for o, _ in ready],
                    "transcribe_ready": [r for _, r in ready],
                }
                for key in ("open", "first_block", "on_disk", "listening"):
                    got = [r[key] for r in runs if key in r]
                    row[key] = statistics.median(got) if got else None
                    row[f"{key}_max"] = max(got) if got else None
                row["transcribe_open_median"] = statistics.median(row["transcribe_open"])
                row["transcribe_ready_median"] = statistics.median(row["transcribe_ready"])
                rows.append(row)
        finally:
            if keeper is not None:
                keeper.kill()
                keeper.wait()
    if args.json:
        print(json.dumps({"awake": args.awake, "rows": rows}, indent=2))
        return
    print(f"null sink kept rendering: {args.awake}; medians of {args.runs} runs (worst)")
    print(
        "| busy | open | first block kept | on disk | listening "
        "| `transcribe --mic`: open | ready |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [
            f"{r[k]:.2f} s ({r[k + '_max']:.2f})" if r[k] is not None else "-"
            for k in ("open", "first_block", "on_disk", "listening")
        ]
        print(
            f"| {r['busy']} | {' | '.join(cells)} | {r['transcribe_open_median']:.2f} s "
            f"| {r['transcribe_ready_median']:.2f} s |"
        )


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        sys.exit(child(sys.argv[2]))
    main()
