"""The first-start guide (issue 53, offscreen Qt): a panel above the text on a first start that
names the key, the microphone, where the text goes and the recogniser; gone once words were
dictated and at the next starts; back from Help > Getting started. And the Dictate button
reads as the main action. The real app on an X server: tests/test_first_start_x11.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pulse import PulseServer
from PySide6.QtCore import Qt

from dictate.asr.registry import OFF, SPHINX
from dictate.config import Settings, load_settings, save_settings, settings_path
from dictate.editing.journal import Journal
from dictate.events import Finalized, Finished, Level
from dictate.ui.main_window import MainWindow
from dictate.ui.run_states import State


def new_window(tmp_path: Path, settings: Settings) -> MainWindow:
    """A window that saves its settings, as the app's does."""
    window = MainWindow(settings, Journal(tmp_path / "j.jsonl"), True)
    window.document.load_text("", None)
    window.show()
    return window


def close(window: MainWindow) -> None:
    window.document.modified = False
    window.close()
    window.deleteLater()


def help_actions(window: MainWindow) -> list[Any]:
    menus: dict[str, Any] = {
        a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()
    }
    return list(menus["Help"].actions())


def test_a_first_start_shows_the_guide_naming_key_microphone_target_and_engine(
    window: Any,
) -> None:
    guide = window.guide
    assert guide.isVisible() and not window.settings.guide_done
    assert guide.y() < window.editor.y()  # above the text, not over it
    said = guide.text()
    assert "Press F9 or the Dictate button" in said
    assert "From any other application: Ctrl+Alt+D." in said  # the global shortcut
    assert said.splitlines()[1].startswith("the system default")  # the microphone row
    assert "this window" in said and "Ctrl+Shift+T" in said
    assert "PocketSphinx" in said and "no second pass" in said
    assert "start dictating, or test the microphone" in said  # the microphone is not open
    assert window.editor.hasFocus() or not guide.hasFocus()


def test_the_guide_follows_the_settings_and_the_level(window: Any) -> None:
    guide = window.guide
    window.dictation.set_target("apps")
    assert "typed into the application you click into" in guide.text()
    window.settings.hotkey = ""
    guide.show_again()
    assert "From any other application" not in guide.text()
    from dictate.ui.loaded_models import Loaded

    window.controller.loaded.emit(
        Loaded("PocketSphinx (en-us)", "CPUExecutionProvider", second_pass="Whisper tiny.en (cpu)")
    )
    said = (
        "PocketSphinx shows the words as you speak; Whisper tiny.en (cpu) writes the final words."
    )
    assert said in guide.text()
    window.controller.pipelineEvent.emit(Level(0.1, -23.4))
    assert guide.level.value() == -23 and "-23 dBFS" in guide.text()
    window.controller.stateChanged.emit(State.IDLE)
    assert guide.level.value() == -60 and "start dictating, or test" in guide.text()


def test_no_two_buttons_in_view_share_an_alt_key(window: Any) -> None:
    """Alt+letter reaches one thing: the menus, the guide's buttons and the buttons a message
    offers (a microphone that failed: "Try again"; typing elsewhere: "Type into this window";
    a file transcribed: "Cancel transcription") while the guide shows (Alt+T was the guide's
    test and "Try again" both)."""
    import re

    from PySide6.QtWidgets import QPushButton

    window.messages.show_message("The microphone failed", [("&Try again", lambda: None)])
    window.messages.add_message("Typing", [("Type into this &window", lambda: None)])
    labels = [a.text() for a in window.menuBar().actions()]
    labels += [b.text() for b in window.guide.findChildren(QPushButton)]
    labels += [b.text() for b in window.messages.findChildren(QPushButton)]
    labels += ["&Cancel transcription"]  # dictate.ui.audio_progress, while a file runs
    keys = [m.group(1).lower() for label in labels if (m := re.search(r"&(\w)", label))]
    assert len(keys) == len(set(keys)), " | ".join(labels)


def test_the_microphone_is_named_as_the_picker_names_it(
    pulse_server: PulseServer, window: Any
) -> None:
    """The private PulseAudio server's null sink monitor is the default source: "System
    default" is named for what it records, as the microphone list names that source."""
    mic = window.guide.text().splitlines()[1]
    assert mic == "the system default: Monitor of Null Output (sound server)", mic
    combo = window.toolbar.mic_combo
    window.toolbar.choose_mic(combo.findData("pulse:dictate_mic.monitor"))
    window.guide._mic_timer.timeout.emit()  # the picker's change, named (a 0 ms timer)
    assert window.guide.text().splitlines()[1] == "Monitor of Null Output (sound server)"


def test_the_microphone_test_shows_the_level_of_the_real_device(
    pulse_server: PulseServer, window: Any, qtbot: Any, tmp_path: Path
) -> None:
    """ "Test the microphone" opens the real default device (the private PulseAudio server's
    null sink monitor) for a few seconds: silent, it says it heard almost nothing; with speech
    played into the sink, that it hears you, and the bar moved. Not while dictating."""
    guide = window.guide
    guide.start_test()
    assert not guide.test_mic.isEnabled() and "testing" in guide.text()
    qtbot.waitUntil(lambda: guide.test_mic.isEnabled(), timeout=20_000)
    assert "heard almost nothing" in guide.text(), guide.text()
    speech = Path(__file__).resolve().parents[1] / "data" / "en_phrases.wav"
    levels: list[float] = []
    guide.mic_test.level.connect(levels.append)
    guide.start_test()
    player = pulse_server.play(speech)
    qtbot.waitUntil(lambda: guide.test_mic.isEnabled(), timeout=20_000)
    player.kill()
    assert "it hears you (loudest" in guide.text(), guide.text()
    assert max(levels) > -50 and len(levels) >= 10
    window.controller.stateChanged.emit(State.LISTENING)  # dictating: the microphone is the run's
    assert not guide.test_mic.isEnabled()
    guide.start_test()
    assert not guide.mic_test.running
    window.controller.stateChanged.emit(State.IDLE)
    assert guide.test_mic.isEnabled()
    guide.start_test()  # and the window closes while it tests: the device is closed with it
    assert guide.mic_test.running
    window.document.modified = False
    window.close()
    qtbot.waitUntil(lambda: not guide.mic_test.running, timeout=5_000)


def test_change_microphone_opens_the_microphone_list(window: Any, qtbot: Any) -> None:
    opened: list[bool] = []
    window.toolbar.focus_mic = lambda: opened.append(True)
    qtbot.mouseClick(window.guide.change_mic, Qt.MouseButton.LeftButton)
    assert opened == [True]


def test_dictated_words_hide_the_guide_for_good_and_help_brings_it_back(
    tmp_path: Path, qtbot: Any
) -> None:
    settings = Settings(engine=SPHINX.name, second_pass=OFF)
    window = new_window(tmp_path, settings)
    try:
        guide = window.guide
        assert guide.isVisible()
        emit = window.controller.pipelineEvent.emit
        emit(Finalized(0.1, 1, ["."], pending=""))  # a lone mark: no word said yet
        assert guide.isVisible()
        emit(Finalized(0.2, 2, ["We met at noon."], pending=""))
        emit(Finished(0.3, "end_of_audio", 1.0, 0))
        assert guide.isHidden() and window.editor.text.endswith("We met at noon.")
        assert json.loads(settings_path().read_text(encoding="utf-8"))["guide_done"] is True
    finally:
        close(window)
    again = new_window(tmp_path, load_settings())  # the next start
    try:
        assert again.guide.isHidden()
        action = again.guide.action
        assert action in help_actions(again) and action.text() == "&Getting started"
        action.trigger()
        assert again.guide.isVisible() and "Press F9" in again.guide.text()
        qtbot.mouseClick(
            again.guide.hide_button, Qt.MouseButton.LeftButton
        )  # hidden by hand: hidden
        assert again.guide.isHidden() and again.settings.guide_done
    finally:
        close(again)


def test_hiding_it_by_hand_keeps_it_hidden_at_the_next_start(tmp_path: Path, qtbot: Any) -> None:
    # qtbot: the QApplication (a window made before any exists aborts the process)
    save_settings(Settings(engine=SPHINX.name, second_pass=OFF))
    window = new_window(tmp_path, load_settings())
    try:
        window.guide.hide_button.click()
        assert window.guide.isHidden()
    finally:
        close(window)
    assert load_settings().guide_done is True
    assert Settings.from_dict({"guide_done": "yes"}).problems == ["guide_done ('yes')"]


def test_the_dictate_button_reads_as_the_main_action(window: Any, qtbot: Any) -> None:
    action = window.dictation.dictate_action
    button = window.toolbar.widgetForAction(action)
    assert button.text() == "Dictate (F9)" and button.font().bold()
    assert button.accessibleName() == "Dictate"
    assert "Start or stop dictation (F9)" in (button.toolTip(), button.accessibleDescription())
    assert "background" in button.styleSheet()
    before = window.toolbar.mic_combo.x()
    action.setText("Stop &dictating")  # what a run's start makes it say
    qtbot.wait(20)
    assert button.text() == "Stop dictating" and button.accessibleName() == "Stop dictating"
    assert window.toolbar.mic_combo.x() == before  # no shift under the mouse
    action.setText("&Dictate")
    assert button.text() == "Dictate (F9)"
    assert window.menuBar().actions()[2].menu().actions()[0].text() == "&Dictate"  # the menu
