"""Voice commands in the real window: the events the pipeline emits for them, applied to the
editor, journaled so recovery is exact, and the settings that turn them off."""

from __future__ import annotations

from typing import Any

from dictate.config import Settings
from dictate.editing.journal_replay import replay
from dictate.events import Command, Finalized, Partial, Pending


def test_a_paragraph_break_between_sentences_is_in_the_editor_and_the_journal(
    window: Any,
) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["We went home."], pending=""))
    window.events.dispatch(Pending(0.1, 1, ""))
    window.events.dispatch(Command(0.2, 2, "new_paragraph", "new paragraph"))
    window.events.dispatch(Finalized(0.3, 3, ["It cost $25."], pending="", spoken=["It cost..."]))
    window.events.dispatch(Command(0.4, 4, "new_line", "new line"))
    window.events.dispatch(Pending(0.5, 5, "And then"))
    assert window.editor.text == "We went home.\n\nIt cost $25.\n"
    recovered = replay(window.journal.path)
    assert recovered is not None
    assert recovered.text == window.editor.text and recovered.pending == "And then"


def test_scratch_removes_what_the_pipeline_says_even_with_words_in_flight(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["First one.", "Second one."], pending="and more"))
    window.events.dispatch(Pending(0.1, 1, "and more"))
    window.events.dispatch(Partial(0.2, 2, ["scratch", "that"]))
    # The punctuator dropped its pending words: only they go.
    window.events.dispatch(Command(0.3, 2, "scratch", "scratch that", "pending"))
    window.events.dispatch(Pending(0.3, 2, ""))
    assert window.editor.text == "First one. Second one."
    assert "and more" not in window.editor.toPlainText()
    # Nothing was pending: the last sentence goes, though the next segment's partial words
    # are already on screen.
    window.events.dispatch(Partial(0.4, 3, ["scratch"]))
    window.events.dispatch(Command(0.5, 3, "scratch", "scratch that", "sentence"))
    assert window.editor.text == "First one."
    assert "Ctrl+Z" in window.statusBar().currentMessage()
    window.events.dispatch(Command(0.6, 4, "undo", "undo that"))
    assert window.editor.text == "First one. Second one."
    recovered = replay(window.journal.path)
    assert recovered is not None and recovered.text == "First one. Second one."


def test_the_settings_dialog_turns_commands_and_written_forms_off_and_edits_replacements(
    qtbot: Any,
) -> None:
    from dictate.ui.dialogs import SettingsDialog

    settings = Settings(replacements=[{"spoken": "jay ess", "written": "JS"}])
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    assert dialog.written_forms.isChecked() and dialog.voice_commands.isChecked()
    assert dialog.replacements.entries() == [{"spoken": "jay ess", "written": "JS"}]
    dialog.written_forms.setChecked(False)
    dialog.voice_commands.setChecked(False)
    dialog.replacements.add("  dictate  ", "Dictate")
    dialog.replacements.add("   ", "ignored: no spoken phrase")
    dialog.apply_to(settings)
    assert not settings.written_forms and not settings.voice_commands
    assert settings.replacements == [
        {"spoken": "jay ess", "written": "JS"},
        {"spoken": "dictate", "written": "Dictate"},
    ]
    assert Settings.from_dict(settings.to_dict()) == settings


def test_bad_replacements_in_the_settings_file_cost_only_themselves() -> None:
    good = {"spoken": "k8s", "written": "Kubernetes"}
    settings = Settings.from_dict(
        {"replacements": [good, {"spoken": ""}, "text", {"spoken": 5, "written": "x"}]}
    )
    assert settings.replacements == [good]
    assert len(settings.problems) == 3
    assert Settings.from_dict({"replacements": "nope"}).replacements == []


def test_the_settings_dialog_refuses_what_the_app_would_leave_out(qtbot: Any) -> None:
    """Found by trying the app under Xvfb: a written form with no spoken phrase was dropped,
    a phrase given twice was saved and ignored, and a global shortcut of "A" alone was saved
    (losing the working one), all without a word."""
    from PySide6.QtGui import QKeySequence

    from dictate.ui.dialogs import SettingsDialog

    settings = Settings(replacements=[{"spoken": "jay ess", "written": "JS"}])
    dialog = SettingsDialog(settings)
    qtbot.addWidget(dialog)
    dialog.replacements.add("", "")  # an empty row left by Add: no problem, it goes
    dialog.replacements.add("", "ORPHAN")
    dialog.replacements.add("Jay  Ess", "again")
    dialog.hotkey.setKeySequence(QKeySequence("A"))
    dialog.show()
    dialog.accept()
    assert dialog.isVisible() and dialog.result() == 0  # not accepted
    text = dialog.problem.text()
    assert '"spoken" is empty' in text and "already replaced" in text and "no modifier" in text
    assert dialog.replacements.rowCount() == 3
    dialog.replacements.removeRow(2)
    dialog.replacements.removeRow(1)
    dialog.hotkey.setKeySequence(QKeySequence("Ctrl+Alt+D"))
    dialog.accept()
    assert not dialog.isVisible() and dialog.result() == 1
    dialog.hotkey.setKeySequence(QKeySequence("F8"))  # a function key alone is fine
    assert dialog.problems() == []


def test_the_settings_dialog_refuses_a_font_that_is_not_installed(qtbot: Any) -> None:
    """Found by trying the app under Xvfb: an editor font typed by hand that is not installed
    was saved as typed, then shown as the font Qt fell back to, so the dialog and the file
    disagreed."""
    from PySide6.QtGui import QFontDatabase

    from dictate.ui.dialogs import SettingsDialog

    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    dialog.font_family.setEditText("NoSuchFontXYZ")
    assert dialog.problems() == ["the editor font: no font named 'NoSuchFontXYZ' is installed"]
    installed = QFontDatabase.families()[0]
    dialog.font_family.setEditText(installed)
    assert dialog.problems() == []


def test_the_settings_dialog_has_no_two_controls_on_one_mnemonic(qtbot: Any) -> None:
    """Found under Xvfb: Alt+M went to "Microphone" and "Punctuation mode", Alt+O to the
    overlay box and OK."""
    import re

    from PySide6.QtWidgets import QAbstractButton, QLabel

    from dictate.ui.dialogs import SettingsDialog

    dialog = SettingsDialog(Settings())
    qtbot.addWidget(dialog)
    texts = [w.text() for w in dialog.findChildren(QLabel) + dialog.findChildren(QAbstractButton)]
    keys = [m.lower() for text in texts for m in re.findall(r"&([^&\s])", text)]
    assert sorted(keys) == sorted(set(keys)), texts


def test_a_number_out_of_range_in_settings_becomes_the_nearest_allowed(qtbot: Any) -> None:
    """Found under Xvfb: 0 typed as the maximum segment silently brought the old value back."""
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest

    from dictate.ui.dialogs import SettingsDialog

    dialog = SettingsDialog(Settings(max_segment_s=40.0))
    qtbot.addWidget(dialog)
    box = dialog.max_segment
    box.lineEdit().selectAll()
    QTest.keyClicks(box, "0")
    QTest.keyClick(box, Qt.Key.Key_Return)
    assert box.value() == box.minimum() == 2.0
    assert box.toolTip() == "2 to 120"


# ---------------------------------------------------------------------- correcting by voice


def _journal_matches(window: Any) -> None:
    recovered = replay(window.journal.path)
    assert recovered is not None and not recovered.damaged
    assert recovered.text == window.editor.text


def test_select_shows_the_words_selected_and_words_said_replace_them(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["The cat sat on the mat."], pending=""))
    window.events.dispatch(Pending(0.1, 1, ""))
    window.events.dispatch(Command(0.2, 2, "select", "select cat", "cat"))
    editor = window.editor
    assert editor.selection() == (4, 7) and editor.textCursor().selectedText() == "cat"
    # The words said next are greyed after the selection until final; the text is unchanged.
    window.events.dispatch(Pending(0.3, 3, "dog"))
    assert editor.text == "The cat sat on the mat." and "dog" in editor.toPlainText()
    window.events.dispatch(Finalized(0.4, 3, ["Dog."], pending=""))
    window.events.dispatch(Pending(0.4, 3, ""))
    assert editor.text == "The dog sat on the mat."
    assert not editor.textCursor().hasSelection()
    _journal_matches(window)
    editor.edits.undo()  # one step
    assert editor.text == "The cat sat on the mat."


def test_delete_that_and_cap_that_act_on_the_selection(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["We met in paris last year."], pending=""))
    window.events.dispatch(Command(0.2, 2, "select", "select paris", "paris"))
    window.events.dispatch(Command(0.3, 3, "recase", "cap that", "cap"))
    assert window.editor.text == "We met in Paris last year."
    assert window.editor.textCursor().selectedText() == "Paris"  # still selected
    window.events.dispatch(Command(0.4, 4, "select", "select last year", "last year"))
    window.events.dispatch(Command(0.5, 5, "scratch", "delete that", "sentence"))
    assert window.editor.text == "We met in Paris."
    _journal_matches(window)
    # Words that are not in the text: the phrase was dictation after all, and is kept.
    window.events.dispatch(Command(0.6, 6, "select", "select london", "london"))
    assert "not in the text" in window.statusBar().currentMessage()
    assert window.editor.text == "We met in Paris select london."  # at the dictation point


def test_insert_before_go_back_and_delete_last_word(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["The cat sat."], pending=""))
    window.events.dispatch(Command(0.2, 2, "insert_before", "insert before cat", "cat"))
    window.events.dispatch(Finalized(0.3, 3, ["Black."], pending=""))
    assert window.editor.text == "The black cat sat."
    window.events.dispatch(Command(0.4, 4, "go", "go back", "back"))
    window.events.dispatch(Finalized(0.5, 5, ["It purred."], pending=""))
    assert window.editor.text == "The black cat sat. It purred."
    window.events.dispatch(Command(0.6, 6, "delete_last", "delete last word", "word"))
    assert window.editor.text == "The black cat sat. It"
    window.events.dispatch(Command(0.7, 7, "key", "press tab", "tab"))
    window.events.dispatch(Command(0.8, 8, "go", "go to start", "start"))
    window.events.dispatch(Finalized(0.9, 9, ["Today."], pending=""))
    assert window.editor.text == "Today. The black cat sat. It\t"
    _journal_matches(window)


def test_asleep_the_window_says_so_and_shows_no_words_heard(window: Any) -> None:
    window.events.dispatch(Command(0.1, 1, "sleep", "go to sleep"))
    assert "wake up" in window.statusBar().currentMessage()
    window.events.dispatch(Partial(0.2, 2, ["words", "not", "for", "dictation"]))
    assert "dictation" not in window.editor.toPlainText()
    window.events.dispatch(Command(0.3, 3, "wake", "wake up"))
    window.events.dispatch(Partial(0.4, 4, ["listening", "again"]))
    assert "listening again" in window.editor.toPlainText().lower()


def test_what_can_i_say_opens_the_list_without_stopping_dictation(window: Any) -> None:
    from dictate.ui.dialogs import VoiceCommandsDialog

    window.events.dispatch(Command(0.1, 1, "help", "what can I say"))
    dialogs = window.findChildren(VoiceCommandsDialog)
    assert len(dialogs) == 1 and dialogs[0].isVisible() and not dialogs[0].isModal()
    assert (
        window.dictation.start_refused() is None
    )  # a modal dialog would keep dictation from starting


def test_correct_that_lists_what_else_was_heard_and_choose_puts_it_in(window: Any) -> None:
    from dictate.asr.engine import Word
    from dictate.events import Segment

    said = [Word(w, i / 2, i / 2 + 0.4) for i, w in enumerate("we met in paris".split())]
    window.events.dispatch(
        Segment(0.1, 1, 0.0, 2.0, "pause", said, None, [["we", "met", "in", "peru"]])
    )
    window.events.dispatch(Finalized(0.2, 1, ["We met in Paris."], pending=""))
    window.events.dispatch(Command(0.3, 2, "correct", "correct paris", "paris"))
    from dictate.ui.correction_list import CorrectionList

    options = window.editor.viewport().findChild(CorrectionList)
    assert options.isVisible() and not options.hasFocus()
    assert [options.item(i).text() for i in range(options.count())] == [
        "1  peru",
        "2  paris",
        "3  PARIS",
    ]
    assert window.editor.textCursor().selectedText() == "Paris"
    window.events.dispatch(Command(0.4, 3, "choose", "choose one", "1"))
    assert window.editor.text == "We met in Peru." and not options.isVisible()
    _journal_matches(window)
    # "correct that" with the selection still there; a click picks as "choose" does.
    window.events.dispatch(Command(0.5, 4, "correct", "correct that", ""))
    options.chosen.emit(2)
    assert window.editor.text == "We met in PERU."
    window.events.dispatch(Command(0.6, 5, "choose", "choose nine", "9"))
    assert "no alternative 9" in window.statusBar().currentMessage()


def test_spell_that_writes_the_letters_as_one_word(window: Any) -> None:
    window.events.dispatch(Finalized(0.1, 1, ["My name is"], pending="", committed=True))
    window.events.dispatch(Command(0.2, 2, "spell", "spell that"))
    assert "Spell it" in window.statusBar().currentMessage()
    window.events.dispatch(Finalized(0.3, 3, ["Mary"], False, "", None, True))
    assert window.editor.text == "My name is Mary"
