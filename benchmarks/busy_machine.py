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
"""

from __future__ import annotations

import argparse
import json
import re
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


def one_run(audio: Path, busy: int, reference: list[str] | None) -> dict[str, Any]:
    from pulse import PulseServer
    from test_commit_on_pause_x11 import App, wait_for
    from xserver import XServer

    folder = Path(tempfile.mkdtemp(prefix="dictate-busy-"))
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
    try:
        with XServer() as server, PulseServer(folder / "pulse", rescan=False) as pulse:
            app = App(server, pulse, folder / "app", **SETTINGS)
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
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    behind = [float(b) for b in re.findall(r"Catching up: (\d+) s behind", log)]
    latencies = [float(s) for s in re.findall(r"latency ([0-9.]+) s \(segment", log)]
    lost = re.findall(r"audio lost so far: (\d+) blocks could not be stored", log)
    got = words(text)
    return {
        "busy": busy,
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
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    rows: list[dict[str, Any]] = []
    reference: list[str] | None = None
    for busy in (int(n) for n in args.busy.split(",")):
        runs = []
        for _ in range(args.runs):
            run = one_run(args.audio, busy, reference)
            reference = run["reference"]
            runs.append(run)
            print(json.dumps({k: v for k, v in run.items() if k not in ("reference", "text")}),
                  flush=True)  # fmt: skip
        rows.append(
            {
                "busy": busy,
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
