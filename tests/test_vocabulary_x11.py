"""The vocabulary in the real app: ``python -m dictate`` on a real X server (Xvfb), listening
to a real microphone (the private PulseAudio server of tests/pulse.py), with "TensorRT" said as
"tensor r t" in the user's words. espeak-ng says "we exported the model to tensor r t today"
into the microphone; Whisper tiny.en writes "tensor rrt", and the window writes the entry as
given. Without the vocabulary the same speech is not written "TensorRT" (the control run)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pulse import PulseServer, need
from test_commit_on_pause_x11 import App, speak, wait_for
from xserver import XServer, desktop_servers, needs_tiny_en

from dictate.writing.vocabulary import VocabularyFile, parse_entry

pytestmark = [pytest.mark.slow, pytest.mark.audio, pytest.mark.gui]

SAID = "we exported the model to tensor r t today"


@pytest.fixture(scope="module")
def speech(tmp_path_factory: pytest.TempPathFactory) -> Path:
    need(shutil.which("espeak-ng") is not None and shutil.which("sox") is not None,
         "espeak-ng and sox")  # fmt: skip
    folder = tmp_path_factory.mktemp("speech")
    raw, out = folder / "raw.wav", folder / "said.wav"
    subprocess.run(["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(raw), SAID], check=True)
    subprocess.run(
        ["sox", "-q", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(out), "pad", "0.8",
         "0.8"],
        check=True,
    )  # fmt: skip
    return out


desktop = pytest.fixture(scope="module", name="desktop")(desktop_servers)


def _dictated(app: App, pulse: PulseServer, speech: Path) -> str:
    app.wait_ready()
    app.start()
    speak(pulse, speech)
    wait_for(
        lambda: "today" in app.document().text.lower() and not app.document().pending,
        120,
        "the sentence to be final",
        app,
        app.document,
    )
    text = app.document().text
    app.stop()
    return text


@needs_tiny_en
@pytest.mark.parametrize("with_words", [True, False])
def test_a_vocabulary_word_said_into_the_microphone_is_written_as_the_entry(
    desktop: tuple[XServer, PulseServer], speech: Path, tmp_path: Path, with_words: bool
) -> None:
    server, pulse = desktop
    if with_words:
        VocabularyFile(tmp_path / "data" / "dictate" / "vocabulary.jsonl").add(
            [parse_entry("TensorRT = tensor r t"), parse_entry("metoprolol")]
        )
    app = App(server, pulse, tmp_path, second_pass="auto", commit_after_ms=1500)
    try:
        text = _dictated(app, pulse, speech)
    finally:
        app.close()
    assert ("TensorRT" in text) is with_words, text
    assert "exported the model" in text.lower(), text
