"""Every dialog, and the main window, fits a 1024x768 screen: its smallest size leaves room for
a title bar and a panel (a review found Settings at least 1225x882 on a 1280x800 screen, OK and
Cancel off screen). Each is shown at that size too, so its layout is not only asked."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget

WIDTH, HEIGHT = 1024, 700  # 768 less a title bar and a panel


def _settings(tmp: Path) -> QWidget:
    from dictate.config import Settings
    from dictate.ui.dialogs.settings import SettingsDialog

    return SettingsDialog(Settings())


def _history(tmp: Path) -> QWidget:
    from dictate.editing.history import History
    from dictate.ui.dialogs.history import HistoryDialog

    history = History(tmp / "history.jsonl")
    return HistoryDialog(lambda: history, lambda text: "")


def _model(tmp: Path) -> QWidget:
    from dictate.ui.dialogs.model import ModelDialog

    return ModelDialog()


def _voice_commands(tmp: Path) -> QWidget:
    from dictate.ui.dialogs.voice_commands import VoiceCommandsDialog

    return VoiceCommandsDialog()


def _audio_target(tmp: Path) -> QWidget:
    from dictate.ui.dialogs.audio_target import AudioTargetDialog

    return AudioTargetDialog("a recording with a rather long name, as files have.flac")


def _main_window(tmp: Path) -> QWidget:
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.ui.main_window import MainWindow

    window = MainWindow(Settings(engine="sphinx"), Journal(tmp / "j.jsonl"), False)
    window.document.load_text("", None)
    return window


@pytest.mark.parametrize(
    "make",
    [_settings, _history, _model, _voice_commands, _audio_target, _main_window],
    ids=["settings", "history", "model", "voice-commands", "audio-target", "main-window"],
)
def test_it_fits_a_1024_by_768_screen(qtbot: Any, tmp_path: Path, make: Callable[..., Any]) -> None:
    widget = make(tmp_path)
    qtbot.addWidget(widget)
    least = widget.minimumSizeHint().expandedTo(widget.minimumSize())
    assert least.width() <= WIDTH and least.height() <= HEIGHT, least
    widget.resize(WIDTH, HEIGHT)
    widget.show()
    qtbot.waitExposed(widget)
    assert widget.width() <= WIDTH and widget.height() <= HEIGHT
    if hasattr(widget, "document"):
        widget.document.modified = False  # the main window: closing must not ask to save
    widget.close()
