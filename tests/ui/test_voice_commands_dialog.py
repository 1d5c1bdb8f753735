"""Help > Voice commands and "what can I say" (issue 27): a list of every voice command that
does not stop dictation (not modal), one dialog raised again, with a filter."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from dictate.commands.help import command_rows
from dictate.ui.dialogs import VoiceCommandsDialog
from dictate.ui.main_window import MainWindow
from dictate.ui.run_states import State


def _dialogs(window: MainWindow) -> list[VoiceCommandsDialog]:
    return window.findChildren(VoiceCommandsDialog)


def test_help_menu_opens_the_list_without_a_modal_dialog(window: MainWindow) -> None:
    menus = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()}
    help_menu = menus["Help"]
    assert isinstance(help_menu, QMenu)
    entries = [a.text().replace("&", "") for a in help_menu.actions()]
    assert entries.index("Voice commands…") < entries.index("About dictate")
    window.voice_commands_action.trigger()
    (dialog,) = _dialogs(window)
    assert dialog.isVisible() and not dialog.isModal()
    assert QApplication.activeModalWidget() is None
    assert window.dictation.start_refused() is None  # dictation may start with the list open
    texts = dialog.row_texts()
    assert len(texts) == len(command_rows())
    commands = {command for command, _, _ in texts}
    assert "new paragraph / next paragraph" in commands
    assert "select WORDS" in commands and "what can I say" in commands
    assert all(does and example for _, does, example in texts)
    assert dialog.table.accessibleName() and dialog.filter_box.accessibleName()
    assert window.dictation.dictate_action in dialog.actions()  # F9 works with the list in front


def test_a_second_call_raises_the_same_dialog(window: MainWindow) -> None:
    window.show_voice_commands()
    (dialog,) = _dialogs(window)
    QTest.keyClick(dialog, Qt.Key.Key_Escape)  # Escape closes it
    assert not dialog.isVisible()
    window.show_voice_commands()
    window.show_voice_commands()
    assert _dialogs(window) == [dialog] and dialog.isVisible()


def test_the_filter_shows_the_matching_rows_and_their_groups(window: MainWindow) -> None:
    window.show_voice_commands()
    (dialog,) = _dialogs(window)
    dialog.filter_box.setText("Next Paragraph")
    assert [command for command, _, _ in dialog.row_texts()] == ["new paragraph / next paragraph"]
    shown = [
        dialog.table.model().index(row, 0).data()
        for row in range(dialog.table.rowCount())
        if not dialog.table.isRowHidden(row)
    ]
    assert shown == ["Lines and paragraphs", "new paragraph / next paragraph"]
    dialog.filter_box.setText("dictation point delete")  # every word, in any column
    assert [c for c, _, _ in dialog.row_texts()] == ["delete last word", "delete last sentence"]
    dialog.filter_box.setText("moving")  # a group's name shows its rows
    assert len(dialog.row_texts()) >= 4
    dialog.filter_box.setText("xyzzy")
    assert dialog.row_texts() == [] and not dialog.none_label.isHidden()
    dialog.filter_box.clear()
    assert len(dialog.row_texts()) == len(command_rows()) and dialog.none_label.isHidden()


def test_said_while_typing_into_another_application_it_leaves_the_focus_there(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "What can I say" while dictation types into another application: the list is shown
    without taking the focus, or the next words would be typed into it."""
    monkeypatch.setattr(window.settings, "target", "apps")
    monkeypatch.setattr(window.controller, "state", State.LISTENING)
    window.show_voice_commands()
    (dialog,) = _dialogs(window)
    assert dialog.isVisible()
    assert dialog.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
    monkeypatch.setattr(window.controller, "state", State.IDLE)
    window.voice_commands_action.trigger()  # from the menu: the user wants it in front
    assert not dialog.testAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
