"""The overlay's state line belongs to the run's state: after Stop it no longer says
"Listening — typing with …" (a review saw that after Stop), and it goes with the run.

The real window (offscreen), recogniser and a recording played in real time; the typing
backend is the recorder of tests/recorder.py (typing into another application needs an X
server: tests/ui/test_overlay_x11.py)."""

from __future__ import annotations

from typing import Any

import pytest
from recorder import Recorder

from dictate.audio.capture import FileSource
from dictate.output.typist import Typist
from dictate.paths import asset_path
from dictate.ui.run_states import State

pytestmark = pytest.mark.slow


def test_after_stop_the_overlay_says_finishing_not_listening(
    window: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.settings.target = "apps"
    window.settings.show_overlay = True
    monkeypatch.setattr(
        window.typing, "make_typist", lambda: window.typing.queue_for(Typist(Recorder()))
    )
    controller = window.controller
    window.dictation.start(lambda: FileSource(asset_path("sample_en.wav"), realtime=True))
    qtbot.waitUntil(lambda: controller.state == State.LISTENING, timeout=120_000)
    overlay = window.feedback.overlay
    assert overlay.isVisible() and overlay.state().startswith("Listening")
    window.dictation.stop()
    assert controller.state == State.STOPPING
    assert overlay.state() == "Finishing…"
    qtbot.wait(700)  # the progress timer's turn: it must not say "Listening" again
    assert controller.state == State.IDLE or not overlay.state().startswith("Listening")
    qtbot.waitUntil(lambda: controller.state == State.IDLE, timeout=120_000)
    assert not overlay.isVisible()
