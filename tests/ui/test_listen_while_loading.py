"""The window listens from the moment dictation starts, while its models still load (the app
preloads them at start, and a first load takes seconds): the microphone is open at once, and
what is said meanwhile is recognised once they are ready. `transcribe --mic` took 35 s before
it listened once, and the first try heard nothing.

The real window (offscreen), microphone (a PulseAudio null sink, tests/pulse.py) and recogniser;
the load is held back by the test until the speech has been played (a stand-in for a slow load,
which cannot be made slow on demand), so that every word is said before anything could hear it
but the microphone."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from pulse import PulseServer

from dictate.paths import asset_path
from dictate.ui.run_states import State

pytestmark = [pytest.mark.slow, pytest.mark.audio]


def test_words_said_while_the_models_load_are_recognised(
    window: Any, qtbot: Any, pulse_server: PulseServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    controller = window.controller
    loaded = threading.Event()
    real_ready = controller._ready_pipeline

    def slow_ready(settings: Any) -> Any:
        assert loaded.wait(120)
        return real_ready(settings)

    monkeypatch.setattr(controller, "_ready_pipeline", slow_ready)
    opened: list[bool] = []
    controller.micOpened.connect(lambda: opened.append(True))
    window.dictation.start()
    qtbot.waitUntil(lambda: bool(opened), timeout=60_000)
    assert controller.state == State.STARTING  # still loading
    assert "recogniser is loading" in window.statusBar().currentMessage()
    assert pulse_server.play(asset_path("sample_en.wav")).wait(60) == 0
    loaded.set()
    qtbot.waitUntil(lambda: controller.state == State.LISTENING, timeout=120_000)
    qtbot.waitUntil(lambda: "thank you very much" in window.editor.text.lower(), timeout=120_000)
    window.dictation.stop()
    qtbot.waitUntil(lambda: controller.state == State.IDLE, timeout=120_000)
