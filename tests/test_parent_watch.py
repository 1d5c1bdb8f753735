"""Children end with their parent: kill -9 of `dictate transcribe --workers 2` mid-file leaves
no worker and no resource tracker behind (they ran for ever, 130-146 MB each)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import wave
from pathlib import Path

from processes import alive, children

from dictate.paths import asset_path


def long_file(path: Path, times: int) -> Path:
    with wave.open(str(asset_path("sample_en.wav")), "rb") as f:
        params, frames = f.getparams(), f.readframes(f.getnframes())
    with wave.open(str(path), "wb") as out:
        out.setparams(params)
        out.writeframes(frames * times)
    return path


def wait_for(condition, what: str, limit: float = 120.0) -> None:  # type: ignore[no-untyped-def]
    # A bound only so that a broken build fails instead of hanging; not a measure of speed.
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.2)


def test_kill_9_of_a_parallel_transcription_leaves_no_process(tmp_path: Path) -> None:
    audio = long_file(tmp_path / "long.wav", 40)
    parent = subprocess.Popen(
        [sys.executable, "-m", "dictate", "transcribe", str(audio), "--workers", "2",
         "--engine", "sphinx", "--second-pass", "off"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )  # fmt: skip
    left: list[int] = []
    try:
        workers = lambda: [p for p, cmd in children(parent.pid).items() if "spawn_main" in cmd]  # noqa: E731
        wait_for(lambda: len(workers()) >= 2 or parent.poll() is not None, "no workers started")
        assert parent.poll() is None, "the transcription ended before it could be killed"
        left = list(children(parent.pid))  # the workers and the resource tracker
        assert len(left) >= 2
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        wait_for(lambda: not any(alive(p) for p in left), f"left running: {left}")
    finally:
        for pid in left:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        if parent.poll() is None:
            parent.kill()
            parent.wait()
