"""The dictation history in the window (offscreen Qt): what dictation records (into this window,
typed into another application, typing that failed), View > History (search, copy, delete,
clear, type again), and the settings that turn it off.

The typing backends here are fakes (tests/recorder.py: it records, or fails as a backend whose
tool is missing would); the real X11 path is in tests/ui/test_history_x11.py."""

from __future__ import annotations

from typing import Any

import pytest
from recorder import Recorder

from dictate.editing.history import FAILED, OK, OTHER_APP, WINDOW, History
from dictate.events import Finalized, Finished
from dictate.output.typist import Typist
from dictate.ui import history_keeper
from dictate.ui.dialogs.history import HistoryDialog


def texts(history: History) -> list[tuple[str, str, str]]:
    return [(e.text, e.target, e.status) for e in history.entries()]


def test_a_finalized_sentence_through_the_window_lands_in_the_history(window: Any) -> None:
    # The controller's signal is what a dictation run emits: the real path to the editor.
    window.controller.pipelineEvent.emit(Finalized(0.1, 1, ["We met at 9:30 a.m."], pending=""))
    window.controller.pipelineEvent.emit(Finalized(0.2, 2, ["It rained.", "We left."], pending=""))
    assert window.editor.text == "We met at 9:30 a.m. It rained. We left."
    assert texts(window.history.store()) == [
        ("We met at 9:30 a.m.", WINDOW, OK),
        ("It rained. We left.", WINDOW, OK),
    ]


def test_no_entry_without_a_word(window: Any) -> None:
    """A lone mark finalized (a review found entries "." and ",") is not a thing said."""
    window.controller.pipelineEvent.emit(Finalized(0.1, 1, ["We met."], pending=""))
    window.controller.pipelineEvent.emit(Finalized(0.2, 2, ["."], pending=""))
    window.controller.pipelineEvent.emit(Finalized(0.3, 3, [",", " "], pending=""))
    window.controller.pipelineEvent.emit(Finalized(0.4, 4, ["9."], pending=""))
    assert texts(window.history.store()) == [("We met.", WINDOW, OK), ("9.", WINDOW, OK)]


def test_a_sentence_a_pause_left_open_is_kept_once_with_its_mark(window: Any) -> None:
    """A pause commits "We met at noon" open; Stop (or the next sentence) decides its "." and
    the words that went on with it come first. The history keeps the sentence as the document
    has it, once, with its mark: not "We met at noon" and a lone "." left out."""
    emit = window.controller.pipelineEvent.emit
    emit(Finalized(0.1, 1, ["We met at noon"], pending="", committed=True))
    assert texts(window.history.store()) == []  # held: its end is not decided yet
    emit(Finalized(0.2, 2, ["and talked"], pending="", continues=True, committed=True))
    emit(Finalized(0.3, 2, ["."], pending="", continues=True))
    emit(Finalized(0.4, 3, ["Then it rained."], pending=""))
    emit(Finalized(0.5, 4, ["Later"], pending="", committed=True))
    emit(Finalized(0.6, 4, ["?"], pending="", continues=True))
    assert window.editor.text == "We met at noon and talked. Then it rained. Later?"
    assert texts(window.history.store()) == [
        ("We met at noon and talked.", WINDOW, OK),
        ("Then it rained.", WINDOW, OK),
        ("Later?", WINDOW, OK),
    ]


def test_an_open_sentence_nothing_completed_is_kept_as_it_is(window: Any) -> None:
    """A line break after an open sentence (no mark comes), and the end of a run: the held
    sentence is written as the document has it, before what follows it."""
    emit = window.controller.pipelineEvent.emit
    emit(Finalized(0.1, 1, ["A list"], pending="", committed=True))
    emit(Finalized(0.2, 2, ["Milk."], pending=""))  # a new line's sentence: not a continuation
    emit(Finalized(0.3, 3, ["and bread"], pending="", committed=True))
    window.controller.pipelineEvent.emit(Finished(0.4, "end_of_audio", 1.0, 0))
    assert texts(window.history.store()) == [
        ("A list", WINDOW, OK),
        ("Milk.", WINDOW, OK),
        ("and bread", WINDOW, OK),
    ]


def test_a_typed_open_sentence_and_its_mark_are_one_entry(window: Any, qtbot: Any) -> None:
    backend = Recorder()
    window.typing.start_run(Typist(backend))
    window.events.dispatch(Finalized(0.1, 1, ["Typed at noon"], pending="", committed=True))
    window.events.dispatch(Finalized(0.2, 1, ["."], pending="", continues=True))
    qtbot.waitUntil(lambda: len(window.history.store().entries()) == 1)
    assert texts(window.history.store()) == [("Typed at noon.", OTHER_APP, OK)]


def test_typed_sentences_are_kept_with_where_they_went(window: Any, qtbot: Any) -> None:
    backend = Recorder()
    window.typing.start_run(Typist(backend))
    window.events.dispatch(Finalized(0.1, 1, ["Typed elsewhere."], pending=""))
    qtbot.waitUntil(lambda: len(window.history.store().entries()) == 1)
    # The recorder cannot say its window's title: "other application".
    assert texts(window.history.store()) == [("Typed elsewhere.", OTHER_APP, OK)]
    assert window.editor.text == ""


def test_a_failed_typing_is_told_and_its_words_are_kept_as_failed(window: Any, qtbot: Any) -> None:
    """A backend that fails (as one whose tool is missing does) never counts as typed: the
    window and the overlay say what failed and what to do; the words are in the window and in
    the history, marked failed."""
    window.typing.start_run(Typist(Recorder(fail=True)))
    window.feedback.show_overlay(window.typing.typist.typist.backend.name)
    window.events.dispatch(Finalized(0.1, 1, ["Never lost."], pending=""))
    window.events.dispatch(Finalized(0.2, 2, ["Queued too."], pending=""))
    qtbot.waitUntil(lambda: window.typing.typist is None)
    message = window.messages.label.text()
    assert "failed (xdotool could not type: no display)" in message
    assert "View > History" in message and "choose another typing method" in message
    assert "Typing failed" in window.feedback.overlay.notice_shown()
    assert "dictate window" in window.feedback.overlay.state()
    assert window.editor.text == "Never lost. Queued too."
    assert texts(window.history.store()) == [
        ("Never lost.", OTHER_APP, FAILED),
        ("Queued too.", OTHER_APP, FAILED),
    ]
    window.events.dispatch(Finalized(0.3, 3, ["Here now."], pending=""))
    assert texts(window.history.store())[-1] == ("Here now.", WINDOW, OK)


def test_the_advice_fits_the_failure() -> None:
    from dictate.errors import TypingError
    from dictate.output.typist import NO_FOCUS
    from dictate.ui.app_typing import typing_advice as advice

    assert "Click into the window" in advice(TypingError(NO_FOCUS))
    assert "Install it" in advice(TypingError("wtype is not installed"))
    assert "Allow dictate" in advice(TypingError("the portal refused the request"))


def test_with_the_history_off_nothing_is_written_and_turning_it_off_offers_to_delete(
    window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["Kept."], pending=""))
    store = window.history.store()
    assert store.path.exists()
    window.settings.history = False
    window.events.dispatch(Finalized(0.2, 2, ["Not kept."], pending=""))
    assert texts(store) == [("Kept.", WINDOW, OK)]
    asked: list[str] = []

    def confirm(parent: Any, question: str) -> bool:
        asked.append(question)
        return True

    monkeypatch.setattr(history_keeper.HistoryKeeper, "confirm", staticmethod(confirm))
    window.history.settings_changed(True, window)
    assert asked and not store.path.exists()


def test_the_settings_dialog_sets_the_history(window: Any) -> None:
    from dictate.config import Settings
    from dictate.ui.dialogs import SettingsDialog

    settings = Settings()
    dialog = SettingsDialog(settings, window)
    assert dialog.history.isChecked() and dialog.history_days.value() == 30
    dialog.history.setChecked(False)
    assert not dialog.history_days.isEnabled()
    dialog.history_days.setValue(7)
    dialog.history_mb.setValue(2)
    dialog.apply_to(settings)
    assert (settings.history, settings.history_days, settings.history_max_mb) == (False, 7, 2)
    window.settings.history_days, window.settings.history_max_mb = 7, 2
    store = window.history.store()
    assert (store.keep_days, store.max_bytes) == (7, 2 * 2**20)


@pytest.fixture
def dialog(qtbot: Any, tmp_path: Any) -> tuple[HistoryDialog, History, list[str]]:
    clock = iter(range(1_800_000_000, 1_800_001_000))
    history = History(tmp_path / "history.jsonl", clock=lambda: next(clock))
    history.add("The cat sat on the mat.", WINDOW)
    history.add("Dear Sam, thanks.", "Mail — Thunderbird")
    history.add("Lost in typing.", OTHER_APP, FAILED)
    typed: list[str] = []

    def type_again(text: str) -> str:
        typed.append(text)
        return "Typed."

    shown = HistoryDialog(lambda: history, type_again)
    qtbot.addWidget(shown)
    shown.reload()
    return shown, history, typed


def select_row(dialog: HistoryDialog, row: int) -> None:
    """Select one row only (``selectRow`` adds to the selection when the application believes a
    modifier key is held, which an earlier test in the same process may have left so)."""
    from PySide6.QtCore import QItemSelectionModel

    flags = (
        QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
    )
    dialog.table.selectionModel().select(dialog.table.model().index(row, 0), flags)


def column(dialog: HistoryDialog, number: int) -> list[str]:
    items = [dialog.table.item(row, number) for row in range(dialog.table.rowCount())]
    return [item.text() if item is not None else "" for item in items]


def test_the_dialog_lists_newest_first_and_searches(dialog: Any) -> None:
    shown, _, _ = dialog
    assert column(shown, 2) == ["Lost in typing.", "Dear Sam, thanks.", "The cat sat on the mat."]
    assert column(shown, 1) == [
        "other application (failed: put in this window)",
        "Mail — Thunderbird",
        "this window",
    ]
    assert column(shown, 0)[0].startswith("20")  # a local date and time
    shown.search.setText("SAT ON")
    assert column(shown, 2) == ["The cat sat on the mat."]
    shown.search.setText("thunderbird")
    assert column(shown, 2) == ["Dear Sam, thanks."]
    shown.search.setText("")
    assert shown.table.rowCount() == 3


def test_the_dialog_copies_types_again_deletes_and_clears(
    dialog: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from PySide6.QtGui import QGuiApplication

    shown, history, typed = dialog
    select_row(shown, 1)
    shown.copy_button.click()
    assert QGuiApplication.clipboard().text() == "Dear Sam, thanks."
    shown.type_button.click()
    assert typed == ["Dear Sam, thanks."] and shown.status.text() == "Typed."
    shown.delete_button.click()
    assert [e.text for e in history.entries()] == ["The cat sat on the mat.", "Lost in typing."]
    assert column(shown, 2) == ["Lost in typing.", "The cat sat on the mat."]
    answers = iter([False, True])
    monkeypatch.setattr(shown, "confirm", lambda question: next(answers))
    shown.clear_button.click()  # "No": nothing goes
    assert len(history.entries()) == 2
    shown.clear_button.click()
    assert history.entries() == [] and shown.table.rowCount() == 0
    assert not history.path.exists()


def test_view_history_opens_the_dialog_and_type_again_puts_the_text_at_the_cursor(
    window: Any,
) -> None:
    window.editor.set_text("Before. After.")
    window.editor.move_cursor(len("Before."))
    window.events.dispatch(Finalized(0.1, 1, ["Again."], pending=""))
    window.editor.move_cursor(len("Before."))
    window.history_action.trigger()
    shown = window.history.dialog
    assert shown.isVisible() and column(shown, 2)[0] == "Again."
    select_row(shown, 0)
    shown.type_button.click()
    assert "at the cursor" in shown.status.text()
    assert window.editor.text.count("Again.") == 2
    shown.close()


def test_type_again_types_through_the_typist_when_dictating_into_other_applications(
    window: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    backend = Recorder()
    window.settings.target = "apps"
    window.typing.start_run(Typist(backend))
    monkeypatch.setattr(history_keeper, "TYPE_AGAIN_DELAY_MS", 0)
    said = window.history.type_again("Once more.")
    assert "Click into the window to type into" in said
    # The focus stayed in dictate: nothing is typed, and the status bar says why.
    monkeypatch.setattr(history_keeper.QApplication, "activeWindow", staticmethod(lambda: window))
    qtbot.waitUntil(lambda: "still in dictate" in window.statusBar().currentMessage())
    assert backend.text == ""
    monkeypatch.setattr(history_keeper.QApplication, "activeWindow", staticmethod(lambda: None))
    window.history.type_again("Once more.")
    qtbot.waitUntil(lambda: backend.text == "Once more.")


@pytest.mark.slow
def test_a_wayland_typing_failure_is_told_in_the_window_and_the_overlay_and_kept(
    window: Any, qtbot: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real wtype against a Wayland compositor without the virtual keyboard (as GNOME and
    KDE are; a socket that lists their interfaces, tests/wayland.py): the window and the
    overlay say what failed and what to choose, and the words are kept, marked failed."""
    import shutil

    from pulse import need
    from wayland import FakeCompositor

    from dictate.output.backends.wtype import WtypeBackend

    need(shutil.which("wtype") is not None, "wtype is not installed")
    fake = FakeCompositor(tmp_path, ("wl_compositor", "wl_seat", "xdg_wm_base"))
    try:
        monkeypatch.setenv("WAYLAND_DISPLAY", str(fake.path))
        window.typing.start_run(Typist(WtypeBackend()))
        window.feedback.show_overlay(window.typing.typist.typist.backend.name)
        window.events.dispatch(Finalized(0.1, 1, ["Said on Wayland."], pending=""))
        qtbot.waitUntil(lambda: window.typing.typist is None, timeout=10000)
    finally:
        fake.close()
    message = window.messages.label.text()
    assert "does not support the virtual keyboard protocol" in message, message
    assert "View > History" in message
    assert "Typing failed" in window.feedback.overlay.notice_shown()
    assert window.editor.text == "Said on Wayland."
    assert texts(window.history.store()) == [("Said on Wayland.", OTHER_APP, FAILED)]
