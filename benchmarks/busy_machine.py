"""Dictation on a busy machine: the real window, a real recording played into a virtual
microphone, with N processes spinning on the CPU beside it.

    .venv/bin/python benchmarks/busy_machine.py --busy 0,2,4,8 --runs 1 \\
        --audio ~/.cache/dictate-bench/real/wav/librivox_sonnet1.wav

For each N: ``python -m dictate`` on its own Xvfb X server, listening to a private PulseAudio
server's null-sink monitor (tests/pulse.py, tests/xserver.py: the same harness as the GUI tests),
the default engines (PocketSphinx, then Whisper tiny.en), commit on pause at 1.5 s. The recording
is played into the sink once; the benchmark waits until the text is final and stable, stops, and
reads the autosave journal (the text) and the app's log. It reports:

* words: the window's final text against ``dictate transcribe`` of the same file (run once,
  idle, with the same settings): word edits between the two, and the words of each;
* lost: audio blocks the app could not store (its log's "audio lost"); the target is 0;
* behind: the most the status bar said recognition was behind ("Catching up: N s behind");
* catch-up: seconds from the end of playback to the last word final in the journal;
* latency: the window's last latency readout against that truth (the last phrase's speech end,
  about 0.5 s before the end of playback here, to its words final).

The spinners are plain Python loops at normal priority; the machine's cores are shared with them.

``--mixed`` adds a heavy mixed load of the kind that left the window 45-67 s behind (issue 52):
another ``dictate transcribe`` with Whisper, ``dictate bench punctuator`` and a loop starting
Python processes, each run again as soon as it ends (from this checkout, whatever the window's).
``--app-root`` runs the window from another checkout (a ``git worktree`` of an older commit)
under the same harness and load, to compare the two.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from dictate.edit_distance import edit_distance  # noqa: E402

SETTINGS = {"second_pass": "auto", "commit_after_ms": 1500}


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def transcribe(audio: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--engine", "sphinx"],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        stdin=subprocess.DEVNULL,
    )
    return done.stdout


AGAIN = (
    "import subprocess, sys\n"
    "while True:\n"
    "    subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,\n"
    "                   stderr=subprocess.DEVNULL)\n"
)
"""A loop that runs the command in its arguments again each time it ends."""
MIXED_AUDIO = ROOT / "tests/data/real/jfk.flac"


def mixed_load() -> list[list[str]]:
    """The mixed load's commands, each run again and again: a transcription with Whisper, a
    benchmark of the punctuator, and process starts."""
    dictate = [sys.executable, "-m", "dictate"]
    return [
        [*dictate, "transcribe", str(MIXED_AUDIO), "--engine", "sphinx", "--second-pass", "auto"],
        [*dictate, "bench", "punctuator", "--runs", "3"],
        [sys.executable, "-c", "import json, subprocess"],
    ]


def start_load(busy: int, mixed: bool) -> list[subprocess.Popen[bytes]]:
    """``busy`` spinners, and the mixed load if asked; each in a process group of its own."""
    commands = [[sys.executable, "-c", "while True: pass"] for _ in range(busy)]
    if mixed:
        commands += [[sys.executable, "-c", AGAIN, *command] for command in mixed_load()]
    env = {**os.environ, "DICTATE_NO_HARVEST": "1"}
    return [subprocess.Popen(c, cwd=ROOT, env=env, start_new_session=True) for c in commands]


def stop_load(load: list[subprocess.Popen[bytes]]) -> None:
    for process in load:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # the loop and the command it runs
        process.wait()


def one_run(
    audio: Path, busy: int, reference: list[str] | None, mixed: bool = False,
    app_root: Path = ROOT,
) -> dict[str, Any]:  # fmt: skip
    from pulse import PulseServer
    from test_commit_on_pause_x11 import App, wait_for
    from xserver import XServer

    folder = Path(tempfile.mkdtemp(prefix="dictate-busy-"))
    spinners = start_load(busy, mixed)
    try:
        with XServer() as server, PulseServer(folder / "pulse", rescan=False) as pulse:
            app = App(server, pulse, folder / "app", root=app_root, **SETTINGS)
            try:
                app.wait_ready()
                app.start()
                pulse.play(audio).wait()
                played = time.monotonic()
                last, since = "", time.monotonic()
                while time.monotonic() - played < 900:  # at most 15 minutes
                    doc = app.document()
                    if doc.text != last or doc.pending:
                        last, since = doc.text, time.monotonic()
                    statuses = re.findall(r"status: (.*)", app.log_text())
                    caught_up = bool(statuses) and not statuses[-1].startswith("Catching up")
                    if last and caught_up and time.monotonic() - since > 5:
                        break  # final, unchanged for 5 s, and the window no longer behind
                    time.sleep(0.1)
                catch_up = since - played
                app.dictate("stop")
                wait_for(lambda: not app.recording(), 600, "the microphone to close", app)
                log = app.log_text()
                text = app.document().text
                if reference is None:
                    reference = words(transcribe(audio, app.env))
            finally:
                app.close()
    finally:
        stop_load(spinners)
    behind = [float(b) for b in re.findall(r"Catching up: (\d+) s behind", log)]
    latencies = [float(s) for s in re.findall(r"latency ([0-9.]+) s \(segment", log)]
    lost = re.findall(r"audio lost so far: (\d+) blocks could not be stored", log)
    got = words(text)
    return {
        "busy": f"{busy}+mixed" if mixed else busy,
        "words": len(got),
        "reference_words": len(reference),
        "edits": edit_distance(got, reference),
        "lost_blocks": int(lost[-1]) if lost else 0,
        "largest_behind_s": max(behind, default=0.0),
        "catch_up_s": round(catch_up, 1),
        "last_latency_readout_s": latencies[-1] if latencies else None,
        "truth_last_s": round(catch_up + 0.5, 1),
        "reference": reference,
        "text": text,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--audio", type=Path, default=ROOT / "tests/data/real/jfk.flac")
    parser.add_argument("--busy", default="0,2,4,8")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--mixed", action="store_true", help="add the mixed load")
    parser.add_argument("--app-root", type=Path, default=ROOT,
                        help="the checkout the window runs from (default: this one)")  # fmt: skip
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    reference: list[str] | None = None
    for busy in (int(n) for n in args.busy.split(",")):
        runs = []
        for _ in range(args.runs):
            run = one_run(args.audio, busy, reference, args.mixed, args.app_root)
            reference = run["reference"]
            runs.append(run)
            print(json.dumps({k: v for k, v in run.items() if k not in ("reference", "text")}),
                  flush=True)  # fmt: skip
        rows.append(
            {
                "busy": runs[0]["busy"],
                "edits": statistics.median(r["edits"] for r in runs),
                "lost_blocks": max(r["lost_blocks"] for r in runs),
                "largest_behind_s": statistics.median(r["largest_behind_s"] for r in runs),
                "catch_up_s": statistics.median(r["catch_up_s"] for r in runs),
                "latency_readout_s": statistics.median(
                    r["last_latency_readout_s"] or 0 for r in runs
                ),
                "truth_s": statistics.median(r["truth_last_s"] for r in runs),
                "runs": runs,
            }
        )
    print(f"\n{args.audio.name}, {len(reference or [])} words from `transcribe`")
    print("| busy processes | word edits vs transcribe | blocks lost | most behind (s) | "
          "catch-up after the audio (s) | last latency readout (s) | truth (s) |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(
            f"| {row['busy']} | {row['edits']} | {row['lost_blocks']} | "
            f"{row['largest_behind_s']:.0f} | {row['catch_up_s']:.1f} | "
            f"{row['latency_readout_s']:.1f} | {row['truth_s']:.1f} |"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
