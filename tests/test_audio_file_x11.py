"""An audio file transcribed in the real app: ``python -m dictate`` on a real X server (Xvfb),
driven with xdotool as a user would: File > Transcribe audio file (Ctrl+Shift+O), the file's
path typed into the file dialog, the progress in the window title as it grows, Cancel
(Alt+C) half-way, which keeps the text, then a second file transcribed to its end. The text is
read back from the autosave journal. A screenshot of the screen mid-run is left in
``$DICTATE_SCREENSHOT_DIR`` (default: the test's temporary folder) to look at.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
import soundfile
from pulse import need
from xserver import XServer, end_process

from dictate.editing.journal_replay import Recovered, replay
from dictate.instance_client import ADDRESS_ENV

pytestmark = [pytest.mark.slow, pytest.mark.gui]

ROOT = Path(__file__).resolve().parents[1]
SPEECH = ROOT / "tests" / "data" / "en_phrases.wav"


@pytest.fixture(scope="module")
def xserver() -> Iterator[XServer]:
    need(shutil.which("xdotool") is not None, "xdotool is not installed")
    with XServer() as server:
        yield server


def wait_for(condition: Callable[[], object], timeout: float, what: str, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            text = log.read_text(encoding="utf-8") if log.exists() else ""
            pytest.fail(f"timed out after {timeout} s waiting for {what}; log:\n{text}")
        time.sleep(0.1)


def test_an_audio_file_is_transcribed_with_progress_cancelled_and_completed(
    xserver: XServer, tmp_path: Path
) -> None:
    samples, rate = soundfile.read(str(SPEECH), dtype="int16")
    # The speech 16 times, 172 s: with one PocketSphinx recogniser a core the window decodes
    # it in about 15 s here, time enough to look at the bar and cancel half-way.
    long = tmp_path / "lecture.flac"
    soundfile.write(str(long), np.concatenate([samples] * 16), rate)
    socket_dir = tempfile.mkdtemp(prefix="daf")
    config = tmp_path / "config" / "settings.json"
    config.parent.mkdir(parents=True)
    # The second pass off: this is about progress and Cancel on a 172 s file, which Whisper
    # would make slower to reach 20% on a loaded machine (its words: tests/test_second_pass_x11).
    settings = {
        "first_run_done": True, "engine": "sphinx", "hotkey": "", "history": False,
        "second_pass": "off",
    }  # fmt: skip
    config.write_text(json.dumps({**settings, "audio_file_target": "cursor"}), encoding="utf-8")
    env = xserver.env(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        XDG_CACHE_HOME=str(tmp_path / "cache"),
        DICTATE_CONFIG=str(config),
        PULSE_SERVER="unix:/nonexistent",  # no microphone is needed
        **{ADDRESS_ENV: os.path.join(socket_dir, "instance.sock")},
    )
    journal = tmp_path / "data" / "dictate" / "journal" / "document.jsonl"
    log = tmp_path / "state" / "dictate" / "log" / "dictate.log"
    shots = Path(os.environ.get("DICTATE_SCREENSHOT_DIR", str(tmp_path)))

    def xdotool(*args: str) -> str:
        done = subprocess.run(
            ["xdotool", *args], env=env, capture_output=True, text=True, timeout=30
        )
        return done.stdout.strip()

    def document() -> Recovered:
        return replay(journal) or Recovered("", "", None, False)

    def logged(text: str) -> int:
        return log.read_text(encoding="utf-8").count(text) if log.exists() else 0

    def title() -> str:
        return xdotool("getwindowname", window)

    def percent() -> int:
        found = re.match(r"(\d+)% ", title())
        return int(found.group(1)) if found else -1

    def transcribe(path: Path) -> None:
        """File > Transcribe audio file, and the path typed into the file dialog."""
        xdotool("windowfocus", "--sync", window)
        xdotool("key", "ctrl+shift+o")
        wait_for(
            lambda: xdotool("search", "--name", "^Transcribe audio file$"), 120, "the dialog", log
        )
        dialog = xdotool("search", "--name", "^Transcribe audio file$").split()[0]
        xdotool("windowfocus", "--sync", dialog)
        time.sleep(0.3)
        xdotool("type", "--delay", "2", str(path))
        xdotool("key", "Return")

    app = subprocess.Popen(
        [sys.executable, "-m", "dictate"],
        env=env,
        cwd=ROOT,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_for(lambda: logged("listening for commands"), 300, "the app", log)
        wait_for(lambda: xdotool("search", "--name", "[-] dictate$"), 120, "the window", log)
        window = xdotool("search", "--name", "[-] dictate$").split()[0]
        transcribe(long)
        shown: list[int] = []

        def past_20() -> bool:
            shown.append(percent())  # what the title said when it was seen, not later
            return shown[-1] >= 20

        wait_for(past_20, 600, "the progress to pass 20%", log)  # hang guards: no speed limits
        seen = shown[-1]
        shot = shots / "dictate-audio-file-progress.png"
        subprocess.run(["import", "-window", "root", str(shot)], env=env, check=True, timeout=30)
        xdotool("windowfocus", "--sync", window)
        xdotool("key", "alt+c")  # Cancel transcription
        wait_for(lambda: logged("transcription ended: stopped"), 300, "the cancel", log)
        wait_for(lambda: not document().pending, 120, "the pending words to be committed", log)
        cancelled = document().text
        assert cancelled.strip() and not document().pending, document()
        assert percent() == -1 and 20 <= seen < 100  # the title no longer shows progress
        transcribe(SPEECH)  # at the cursor: after the text kept
        wait_for(lambda: logged("transcription ended: end_of_audio"), 600, "the second run", log)
        wait_for(lambda: "Thank you" in document().text, 120, "the last words", log)
        subprocess.run(
            ["import", "-window", "root", str(shots / "dictate-audio-file-done.png")],
            env=env,
            check=True,
            timeout=30,
        )
        after = document()
        assert after.text.startswith(cancelled) and after.pending == ""
        assert after.text.rstrip().endswith((".", "?", "!"))  # punctuated, committed
    finally:
        end_process(app)
        shutil.rmtree(socket_dir, ignore_errors=True)
