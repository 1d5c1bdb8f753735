"""Keyboard and help (issue 12, part 7): Tab leaves the editor, Ctrl+Tab types a tab, every
message action has a mnemonic, the model manager is in a menu, Help > About says what runs."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QMenu

from dictate import __version__
from dictate.events import Error, Pending
from dictate.ui.main_window import MainWindow


def test_tab_moves_focus_and_ctrl_tab_types_a_tab(window: MainWindow) -> None:
    editor = window.editor
    window.activateWindow()
    editor.setFocus()
    QTest.keyClicks(editor, "ab")
    window.events.dispatch(Pending(0.1, 1, "greyed"))
    QTest.keyClick(editor, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert editor.text == "ab\t" and editor.pending_text == "greyed"
    assert editor.shown_text() == editor.buffer.display()
    QTest.keyClick(editor, Qt.Key.Key_Tab)
    assert editor.text == "ab\t"  # Tab did not type
    focused = QApplication.focusWidget()
    assert focused is not None and focused is not editor


def test_message_actions_have_mnemonics(window: MainWindow) -> None:
    window.events.dispatch(Error(0.1, "microphone 'USB' stopped delivering audio", True))
    buttons = [*window.messages.buttons, window.messages.close_button]
    assert all("&" in b.text() for b in buttons)
    keys = [b.text()[b.text().index("&") + 1].lower() for b in buttons]
    assert len(set(keys)) == len(keys)


def test_get_a_model_is_in_a_menu_and_about_says_what_runs(window: MainWindow) -> None:
    menus = {a.text().replace("&", ""): a.menu() for a in window.menuBar().actions()}
    menu = menus["Dictation"]
    assert isinstance(menu, QMenu)
    dictation = [a.text().replace("&", "") for a in menu.actions()]
    assert "Get a speech model…" in dictation
    assert "Help" in menus
    about = window.about_text()
    assert f"dictate {__version__}" in about and "minilm-l6-mixed" in about
    assert "CC BY-NC-ND 4.0" in about and "Apache 2.0" in about
    assert "code of dictate is under the MIT licence" in about
