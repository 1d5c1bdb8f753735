"""Transitions, not steady states: the first dictation after Settings > OK hears the microphone
(a review found it recorded pure silence 4 times of 4, even with nothing changed; not seen
here, so the window also says when a run hears only digital silence, whatever the cause).

The real window (offscreen), microphone (a PulseAudio null sink, tests/pulse.py: with nothing
played into it, its monitor gives samples that are all zero) and recogniser."""

from __future__ import annotations

from typing import Any

import pytest
from pulse import PulseServer
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QDialog

from dictate.paths import asset_path
from dictate.ui.run_states import State

pytestmark = [pytest.mark.slow, pytest.mark.audio]


def _answer_settings(accept: bool) -> None:
    """Press OK (or Cancel) in the Settings dialog once it is open."""

    def answer() -> None:
        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QDialog):
            QTimer.singleShot(50, answer)
            return
        dialog.accept() if accept else dialog.reject()

    QTimer.singleShot(50, answer)


def _dictate_the_sample(window: Any, qtbot: Any, pulse_server: PulseServer) -> None:
    controller = window.controller
    window.dictation.start()
    qtbot.waitUntil(lambda: controller.state == State.LISTENING, timeout=120_000)
    assert pulse_server.play(asset_path("sample_en.wav")).wait(60) == 0
    qtbot.waitUntil(lambda: "thank you very much" in window.editor.text.lower(), timeout=120_000)
    window.dictation.stop()
    qtbot.waitUntil(lambda: controller.state == State.IDLE, timeout=120_000)


@pytest.mark.parametrize("accept", [True, False], ids=["ok", "cancel"])
def test_the_first_dictation_after_the_settings_dialog_hears_the_microphone(
    window: Any, qtbot: Any, pulse_server: PulseServer, accept: bool
) -> None:
    device = window.settings.input_device
    _answer_settings(accept)
    window.open_settings()
    assert window.settings.input_device == device
    _dictate_the_sample(window, qtbot, pulse_server)


def test_a_run_that_hears_only_digital_silence_says_so_and_goes_on(
    window: Any, qtbot: Any, pulse_server: PulseServer
) -> None:
    controller = window.controller
    window.dictation.start()
    qtbot.waitUntil(lambda: controller.state == State.LISTENING, timeout=120_000)
    # Nothing is played: the sink's monitor gives zeros.
    qtbot.waitUntil(lambda: window.silence.said, timeout=120_000)
    assert "only digital silence" in window.messages.label.text()
    assert window.messages.isVisible()
    assert pulse_server.play(asset_path("sample_en.wav")).wait(60) == 0
    qtbot.waitUntil(lambda: "thank you very much" in window.editor.text.lower(), timeout=120_000)
    window.dictation.stop()
    qtbot.waitUntil(lambda: controller.state == State.IDLE, timeout=120_000)
    # The next run has a notice of its own: none until it too hears only silence.
    window.dictation.start()
    assert not window.silence.said and not window.messages.isVisible()
    window.dictation.stop()
    qtbot.waitUntil(lambda: controller.state == State.IDLE, timeout=120_000)


def test_settings_ok_while_listening_leaves_the_run_listening_and_the_next_run_hears(
    window: Any, qtbot: Any, pulse_server: PulseServer
) -> None:
    controller = window.controller
    window.dictation.start()
    qtbot.waitUntil(lambda: controller.state == State.LISTENING, timeout=120_000)
    _answer_settings(True)
    window.open_settings()
    assert controller.state == State.LISTENING
    assert pulse_server.play(asset_path("sample_en.wav")).wait(60) == 0
    qtbot.waitUntil(lambda: "thank you very much" in window.editor.text.lower(), timeout=120_000)
    window.dictation.stop()
    qtbot.waitUntil(lambda: controller.state == State.IDLE, timeout=120_000)
    _dictate_the_sample(window, qtbot, pulse_server)  # the speech played to its end, flushed
    assert window.editor.text.lower().count("thank you very much") == 2, window.editor.text
