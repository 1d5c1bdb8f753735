"""The Edit menu's actions, a part of the main window: undo and redo of the editor's own
history, cut, copy, paste, select all, and find (:mod:`dictate.ui.find_bar`). Also
:func:`make_action`, which every menu action of the window is made with."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QWidget

from dictate.ui.editor import DictationEditor
from dictate.ui.find_bar import FindBar

Keys = QKeySequence.StandardKey


def make_action(
    window: QWidget, text: str, shortcut: QKeySequence | Keys | str | None, slot: Any
) -> QAction:
    """An action of ``window`` (its shortcut works wherever the focus is in it), its tooltip
    naming the shortcut. QAction.triggered(bool) would arrive as the first argument of a
    ``slot`` that takes arguments: give those as lambdas."""
    action = QAction(text, window)
    if shortcut is not None:
        action.setShortcut(QKeySequence(shortcut))
        keys = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        action.setToolTip(f"{text.replace('&', '').rstrip('…')} ({keys})")
    action.triggered.connect(slot)
    window.addAction(action)
    return action


class EditActions(QObject):
    """The Edit menu's actions of ``window`` over ``editor`` and its ``find_bar``; Undo and
    Redo are enabled as the editor's history allows, Cut and Copy while text is selected."""

    def __init__(self, window: QWidget, editor: DictationEditor, find_bar: FindBar) -> None:
        super().__init__(window)
        self._editor = editor
        self.undo_action = make_action(window, "&Undo", Keys.Undo, editor.edits.undo)
        self.redo_action = make_action(window, "&Redo", Keys.Redo, editor.edits.redo)
        self.cut_action = make_action(window, "Cu&t", Keys.Cut, editor.cut)
        self.copy_action = make_action(window, "&Copy", Keys.Copy, editor.copy)
        self.paste_action = make_action(window, "&Paste", Keys.Paste, editor.paste)
        self.select_all_action = make_action(
            window, "Select &All", Keys.SelectAll, editor.selectAll
        )
        self.find_action = make_action(window, "&Find…", Keys.Find, find_bar.open)
        self.find_next_action = make_action(
            window, "Find &Next", Keys.FindNext, lambda: find_bar.find_next()
        )
        self.find_previous_action = make_action(
            window, "Find Pre&vious", Keys.FindPrevious, lambda: find_bar.find_next(backward=True)
        )
        for action in (self.cut_action, self.copy_action, self.paste_action):
            action.setShortcutContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        # Cut and Copy only with something selected, as in the right-click menu.
        for action in (self.cut_action, self.copy_action):
            action.setEnabled(False)
            editor.copyAvailable.connect(action.setEnabled)
        editor.textEdited.connect(self._on_text_edited)

    def menu(self) -> list[QAction | None]:
        """The Edit menu's entries, None for a separator."""
        return [
            self.undo_action,
            self.redo_action,
            None,
            self.cut_action,
            self.copy_action,
            self.paste_action,
            self.select_all_action,
            None,
            self.find_action,
            self.find_next_action,
            self.find_previous_action,
        ]

    def _on_text_edited(self) -> None:
        self.undo_action.setEnabled(self._editor.edits.can_undo())
        self.redo_action.setEnabled(self._editor.edits.can_redo())
