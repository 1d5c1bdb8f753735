"""Dictation on a busy machine: ``python -m dictate`` on a real X server (Xvfb), a real
recording (J. F. Kennedy, tests/data/real) played into a real microphone (the private
PulseAudio server of tests/pulse.py), with four processes beside it that keep both cores busy.
The window once dropped whole passages this way while it said "Listening…"; now every word
``dictate transcribe`` gets from the same file must come, and nothing may be lost.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulse import PulseServer
from test_commit_on_pause_x11 import ROOT, dictated, words
from xserver import XServer, desktop_servers, needs_tiny_en

from dictate.edit_distance import edit_distance

pytestmark = [pytest.mark.slow, pytest.mark.audio, pytest.mark.gui]

JFK = Path(__file__).resolve().parent / "data" / "real" / "jfk.flac"
BUSY = 4


@pytest.fixture
def busy() -> Iterator[None]:
    """Processes that spin on the CPU for as long as the test runs (ended after it)."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BUSY)]
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


desktop = pytest.fixture(scope="module", name="desktop")(desktop_servers)


@needs_tiny_en
def test_every_word_comes_with_busy_processes_beside_the_window(
    desktop: tuple[XServer, PulseServer], tmp_path: Path, busy: None
) -> None:
    server, pulse = desktop
    app = dictated(server, pulse, tmp_path, JFK, "country", 600)
    try:
        app.stop()
        shown = app.document().text
        log = app.log_text()
    finally:
        app.close()
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(JFK), "--engine", "sphinx"],
        env=app.env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert "audio lost" not in log, log
    # The same words as the file gives (the microphone's copy went through the sound server's
    # resampling, so a word may differ; a dropped stretch would cost many).
    assert edit_distance(words(shown), words(done.stdout)) <= 2, (shown, done.stdout)
    assert words(shown)[-4:] == ["can", "do", "for", "your", "country"][-4:], shown
