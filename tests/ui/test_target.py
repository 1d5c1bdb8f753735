"""The "Other applications" target in the window: finalized sentences and voice commands go to
the typist, never the editor; a typing failure keeps the text in the window. The backend here
records key presses (the real X11 path is tested in tests/test_typing_x11.py)."""

from __future__ import annotations

from typing import Any

import pytest

from dictate.events import Command, Finalized, Pending
from dictate.output.typing import TypingError, Typist


class Recorder:
    name = "recorder"

    def __init__(self, fail: bool = False) -> None:
        self.text = ""
        self.fail = fail

    def type_text(self, text: str) -> None:
        if self.fail:
            raise TypingError("xdotool could not type: no display")
        self.text += text

    def press_return(self, count: int = 1) -> None:
        self.text += "\n" * count

    def backspace(self, count: int) -> None:
        self.text = self.text[:-count]

    def focused_window(self) -> str | None:
        return "w"


def test_sentences_and_commands_are_typed_not_inserted(window: Any, qtbot: Any) -> None:
    backend = Recorder()
    window._typist = window.typing_queue(Typist(backend))
    window.handle_event(Finalized(0.1, 1, ["We met at 9:30 a.m."], pending="And then"))
    window.handle_event(Pending(0.1, 1, "And then"))
    # Words not final yet are shown on the overlay only, never in this document or its journal.
    assert window.editor.text == "" and window.editor.pending_text == ""
    window.handle_event(Command(0.2, 2, "new_paragraph", "new paragraph"))
    window.handle_event(Finalized(0.3, 3, ["It cost $25."], pending=""))
    window.handle_event(Finalized(0.4, 4, ["Oops."], pending=""))
    window.handle_event(Command(0.5, 5, "scratch", "scratch that", "sentence"))
    # Typed on the typing thread, in order; the scratch result comes back to this one.
    qtbot.waitUntil(lambda: "Scratched" in window.statusBar().currentMessage())
    assert backend.text == "We met at 9:30 a.m.\n\nIt cost $25."
    assert window.editor.text == ""


def test_a_typing_failure_keeps_the_text_in_the_window_in_order(window: Any, qtbot: Any) -> None:
    window._typist = window.typing_queue(Typist(Recorder(fail=True)))
    # Queued before the window learns of the failure: they come here too, in order.
    window.handle_event(Finalized(0.1, 1, ["Never lost."], pending=""))
    window.handle_event(Command(0.2, 2, "new_line", "new line"))
    window.handle_event(Finalized(0.3, 3, ["Queued too."], pending=""))
    qtbot.waitUntil(lambda: window._typist is None)
    assert "kept in this window" in window.messages.label.text()
    window.handle_event(Finalized(0.4, 4, ["Still here."], pending=""))
    assert window.editor.text == "Never lost.\nQueued too. Still here."


def test_no_backend_says_what_to_install_and_dictation_comes_here(
    window: Any, monkeypatch: Any
) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    window.set_target("apps")
    assert window.target_action.isChecked()
    assert window._make_typist() is None
    assert "no graphical session" in window.messages.label.text()
    assert "this window instead" in window.messages.label.text()
    window.set_target("window")
    assert not window.target_action.isChecked() and window.settings.target == "window"


def test_the_overlay_shows_level_partial_and_pending_words_and_remembers_its_place(
    window: Any,
) -> None:
    from dictate.events import Finished, Level, Partial, Pending

    window._typist = window.typing_queue(Typist(Recorder()))
    window._show_overlay()
    overlay = window.overlay
    assert overlay.isVisible() and "recorder" in overlay.state()
    window.handle_event(Level(0.1, -20.0))
    window.handle_event(Pending(0.2, 1, "Words not final"))
    window.handle_event(Partial(0.3, 2, ["still", "speaking"]))
    assert "Words not final" in overlay.shown_words() and "still speaking" in overlay.shown_words()
    assert window.editor.text == ""
    overlay.moved.emit(120, 80)
    assert window.settings.overlay_position == [120, 80]
    window.handle_event(Finished(0.4, "stopped", 1.0, 0))
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
    window.set_target("apps")
    assert "other applications" in tray.toolTip()
    window.controller.stateChanged.emit("listening")
    assert "listening" in tray.toolTip()
    tray.hide()
