"""The "Other applications" target in the window: finalized sentences and voice commands go to
the typist, never the editor; a typing failure keeps the text in the window. The backend here
records key presses (the real X11 path is tested in tests/output/test_typing_x11.py)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from recorder import Recorder

from dictate.events import Command, Finalized, Pending
from dictate.output.typist import Typist
from dictate.ui.run_states import State


def test_sentences_and_commands_are_typed_not_inserted(window: Any, qtbot: Any) -> None:
    backend = Recorder()
    window.typing.start_run(Typist(backend))
    window.events.dispatch(Finalized(0.1, 1, ["We met at 9:30 a.m."], pending="And then"))
    window.events.dispatch(Pending(0.1, 1, "And then"))
    # Words not final yet are shown on the overlay only, never in this document or its journal.
    assert window.editor.text == "" and window.editor.pending_text == ""
    window.events.dispatch(Command(0.2, 2, "new_paragraph", "new paragraph"))
    window.events.dispatch(Finalized(0.3, 3, ["It cost $25."], pending=""))
    window.events.dispatch(Finalized(0.4, 4, ["Oops."], pending=""))
    window.events.dispatch(Command(0.5, 5, "scratch", "scratch that", "sentence"))
    # Typed on the typing thread, in order; the scratch result comes back to this one.
    qtbot.waitUntil(lambda: "Scratched" in window.statusBar().currentMessage())
    assert backend.text == "We met at 9:30 a.m.\n\nIt cost $25."
    assert window.editor.text == ""


def test_a_typing_failure_keeps_the_text_in_the_window_in_order(window: Any, qtbot: Any) -> None:
    window.typing.start_run(Typist(Recorder(fail=True)))
    # Queued before the window learns of the failure: they come here too, in order.
    window.events.dispatch(Finalized(0.1, 1, ["Never lost."], pending=""))
    window.events.dispatch(Command(0.2, 2, "new_line", "new line"))
    window.events.dispatch(Finalized(0.3, 3, ["Queued too."], pending=""))
    qtbot.waitUntil(lambda: window.typing.typist is None)
    assert "kept in this window" in window.messages.label.text()
    window.events.dispatch(Finalized(0.4, 4, ["Still here."], pending=""))
    assert window.editor.text == "Never lost.\nQueued too. Still here."


def test_no_backend_says_what_to_install_and_dictation_comes_here(
    window: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    window.dictation.set_target("apps")
    assert window.dictation.target_action.isChecked()
    assert window.typing.make_typist() is None
    assert "no graphical session" in window.messages.label.text()
    assert "this window instead" in window.messages.label.text()
    window.dictation.set_target("window")
    assert not window.dictation.target_action.isChecked() and window.settings.target == "window"


def test_the_status_bar_says_where_dictated_text_goes(window: Any) -> None:
    """The menu's tick was the only sign of the target: the window looked the same."""
    from dictate.config import save_settings

    assert window.dictation.target_label.text() == "Text goes to: this window"
    window.dictation.target_action.trigger()  # the menu item (Ctrl+Shift+T)
    assert window.dictation.target_label.text() == "Text goes to: other applications"
    window.dictation.set_target("window")
    assert window.dictation.target_label.text() == "Text goes to: this window"
    saved = dataclasses.replace(window.settings, target="apps")
    save_settings(saved)  # another process (dictate devices --use, a second window) saved it
    window.reload_settings()
    assert window.dictation.target_label.text() == "Text goes to: other applications"


def test_the_overlay_shows_level_partial_and_pending_words_and_remembers_its_place(
    window: Any,
) -> None:
    from dictate.events import Finished, Level, Partial, Pending

    window.typing.start_run(Typist(Recorder()))
    window.feedback.show_overlay(window.typing.typist.typist.backend.name)
    overlay = window.feedback.overlay
    assert overlay.isVisible() and "recorder" in overlay.state()
    window.events.dispatch(Level(0.1, -20.0))
    window.events.dispatch(Pending(0.2, 1, "Words not final"))
    window.events.dispatch(Partial(0.3, 2, ["still", "speaking"]))
    assert "Words not final" in overlay.shown_words() and "still speaking" in overlay.shown_words()
    assert window.editor.text == ""
    overlay.moved.emit(120, 80)
    assert window.settings.overlay_position == [120, 80]
    window.events.dispatch(Finished(0.4, "stopped", 1.0, 0))
    assert not overlay.isVisible()


# Showing a tray icon on the offscreen platform (which has no tray; availability is faked
# below) makes Qt warn about a signal its platform lacks.
@pytest.mark.qt_log_ignore("systemTrayWindowChanged")
def test_the_tray_follows_the_state_and_sets_the_target(window: Any, monkeypatch: Any) -> None:
    from PySide6.QtWidgets import QSystemTrayIcon

    monkeypatch.setattr(QSystemTrayIcon, "isSystemTrayAvailable", staticmethod(lambda: True))
    window.attach_tray()
    tray = window.tray
    assert "idle" in tray.toolTip() and "this window" in tray.toolTip()
    window.dictation.set_target("apps")
    assert "other applications" in tray.toolTip()
    window.controller.stateChanged.emit(State.LISTENING)
    assert "listening" in tray.toolTip()
    tray.hide()


class SlowRecorder(Recorder):
    """Types like a real backend: a few milliseconds a key, into one shared log."""

    def __init__(self, log: list[str], tag: str) -> None:
        super().__init__()
        self.log, self.tag = log, tag

    def type_text(self, text: str) -> None:
        import time

        for word in text.split():
            time.sleep(0.02)
            self.log.append(f"{self.tag}:{word}")
        super().type_text(text)


def test_quitting_types_the_last_sentences_before_the_app_ends(window: Any) -> None:
    """Found in review: the typing thread was a daemon left typing when the window closed, so
    the process ended before the last sentences were typed."""
    from dictate.events import Finished

    log: list[str] = []
    backend = SlowRecorder(log, "a")
    window.typing.start_run(Typist(backend))
    for n, sentence in enumerate(["One two three.", "Four five six.", "Seven eight."], 1):
        window.events.dispatch(Finalized(0.1 * n, n, [sentence], pending=""))
    window.events.dispatch(Finished(0.5, "stopped", 1.0, 0))
    assert window.close()
    assert backend.text == "One two three. Four five six. Seven eight."
    assert window.editor.text == ""


def test_a_new_run_types_only_after_the_last_one_finished_typing(window: Any, qtbot: Any) -> None:
    """Found in review: stopping and starting again at once ran two typing threads whose keys
    were mixed in the other application."""
    from dictate.events import Finished

    log: list[str] = []
    window.typing.start_run(Typist(SlowRecorder(log, "a")))
    window.events.dispatch(Finalized(0.1, 1, ["One two three four five."], pending=""))
    window.events.dispatch(Finished(0.2, "stopped", 1.0, 0))
    window.typing.start_run(Typist(SlowRecorder(log, "b")))  # the next run
    window.events.dispatch(Finalized(0.3, 1, ["Alpha beta gamma."], pending=""))
    window.events.dispatch(Finished(0.4, "stopped", 1.0, 0))
    qtbot.waitUntil(lambda: len(log) == 8, timeout=10_000)
    assert log == [f"a:{w}" for w in "One two three four five.".split()] + [
        f"b:{w}" for w in "Alpha beta gamma.".split()
    ]


def test_start_while_dictating_keeps_the_typing_queue(window: Any, monkeypatch: Any) -> None:
    queue = window.typing.start_run(Typist(Recorder()))
    monkeypatch.setattr(window.controller, "state", State.LISTENING)
    window.dictation.start()  # `dictate start` a second time
    assert window.typing.typist is queue
    monkeypatch.undo()  # idle again, so closing the window does not wait for a run


def test_a_failed_start_hides_the_overlay(window: Any) -> None:
    """Found in review: the overlay went on saying "Listening" after the start failed."""
    from dictate.errors import AudioError

    window.typing.start_run(Typist(Recorder()))
    window.feedback.show_overlay(window.typing.typist.typist.backend.name)
    assert window.feedback.overlay.isVisible()
    window.controller.failed.emit(AudioError("no microphone found"))
    assert not window.feedback.overlay.isVisible() and window.typing.typist is None
    assert "No microphone" in window.messages.label.text()


def test_a_typing_failure_after_the_run_is_brought_in_once(window: Any, qtbot: Any) -> None:
    from dictate.events import Finished

    window.typing.start_run(Typist(Recorder(fail=True)))
    window.events.dispatch(Finalized(0.1, 1, ["Only once."], pending=""))
    window.events.dispatch(Finished(0.2, "stopped", 1.0, 0))
    qtbot.waitUntil(lambda: "Only once." in window.editor.text)
    window.typing.finish()  # what closing the window does
    assert window.editor.text == "Only once."


def test_a_second_run_continues_the_text_it_typed_before(
    window: Any, qtbot: Any, monkeypatch: Any
) -> None:
    """Found by trying the app under Xvfb: the second run's first sentence was glued to the
    first run's last one ("is.What"), each run starting with no memory of what was typed."""
    from dictate.events import Finished

    backend = Recorder()
    monkeypatch.setattr("dictate.output.chooser.choose_backend", lambda *a, **k: backend)
    window.settings.target = "apps"
    for number, sentence in enumerate(["It is.", "What now?"], start=1):
        window.typing.start_run()
        window.events.dispatch(Finalized(0.1 * number, number, [sentence], pending=""))
        window.events.dispatch(Finished(0.1 * number + 0.05, "stopped", 1.0, 0))
        assert window.typing.typist is None
    qtbot.waitUntil(lambda: backend.text == "It is. What now?", timeout=5_000)
