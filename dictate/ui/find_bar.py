"""Find (Ctrl+F): a bar above the editor that searches the real text, never the greyed words."""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QPushButton, QWidget

from dictate.ui.editor import DictationEditor


def find_text(
    editor: DictationEditor, needle: str, backward: bool = False, wrap: bool = True
) -> bool:
    """Select the next (or previous) match of ``needle`` in ``editor``'s real text, ignoring
    case; the greyed words are never searched. False if there is none."""
    if not needle:
        return False
    pattern = re.compile(re.escape(needle), re.IGNORECASE)
    text = editor.text
    anchor, position = editor.selection()
    lo, hi = min(anchor, position), max(anchor, position)
    if backward:
        before = [m for m in pattern.finditer(text) if m.start() < lo]
        match = before[-1] if before else None
        if match is None and wrap:
            every = list(pattern.finditer(text))
            match = every[-1] if every else None
    else:
        match = pattern.search(text, hi)
        if match is None and wrap:
            match = pattern.search(text)
    if match is None:
        return False
    editor.set_selection(match.start(), match.end())
    editor.ensureCursorVisible()
    return True


class _FindField(QLineEdit):
    def __init__(self, bar: FindBar) -> None:
        super().__init__()
        self._bar = bar

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self._bar.find_next(
                backward=bool(event.modifiers() & Qt.KeyboardModifier.ShiftModifier)
            )
            return
        if event.key() == Qt.Key.Key_Escape:
            self._bar.close_bar()
            return
        super().keyPressEvent(event)


class FindBar(QWidget):
    """Enter finds the next match, Shift+Enter the previous one, Escape closes the bar."""

    def __init__(self, editor: DictationEditor, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editor = editor
        self.setAccessibleName("Find")
        self.field = _FindField(self)
        self.field.setAccessibleName("Find text")
        self.field.setPlaceholderText("Find in your text")
        self.status = QLabel("")
        previous = QPushButton("Previous")
        previous.clicked.connect(lambda: self.find_next(backward=True))
        following = QPushButton("Next")
        following.clicked.connect(lambda: self.find_next())
        close = QPushButton("Close")
        close.clicked.connect(self.close_bar)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Find:"))
        row.addWidget(self.field, 1)
        for widget in (previous, following, self.status, close):
            row.addWidget(widget)
        self.hide()

    def open(self) -> None:
        selected = self.editor.selected_text()
        if selected and "\n" not in selected:
            self.field.setText(selected)
        self.show()
        self.field.setFocus()
        self.field.selectAll()

    def find_next(self, backward: bool = False) -> bool:
        if not self.field.text():
            self.open()
            return False
        found = find_text(self.editor, self.field.text(), backward=backward)
        self.status.setText("" if found else "Not found")
        return found

    def close_bar(self) -> None:
        self.hide()
        self.editor.setFocus()
