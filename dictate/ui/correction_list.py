"""The list of alternatives shown right under words being corrected by voice ("correct
that"): numbered, so "choose N" picks one; a click picks one too. It never takes the keyboard
focus (dictation and typing go on where they were)."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt, Signal
from PySide6.QtWidgets import QListWidget, QListWidgetItem, QWidget


class CorrectionList(QListWidget):
    """Alternatives 1 to N for the selected words; :attr:`chosen` says which was clicked."""

    chosen = Signal(int)
    """The number (from 1) of the alternative clicked."""

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setAccessibleName("Alternatives: say choose and a number")
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.itemClicked.connect(lambda item: self.chosen.emit(self.row(item) + 1))
        self.options: list[str] = []
        self.hide()

    def offer(self, options: list[str], at: QPoint) -> None:
        """Show ``options`` numbered from 1, their top left corner at ``at`` (in the parent)."""
        self.clear()
        self.options = list(options)
        for number, text in enumerate(self.options, start=1):
            item = QListWidgetItem(f"{number}  {text}")
            item.setToolTip(f'Say "choose {number}"')
            self.addItem(item)
        rows = max(1, self.count())
        width = max(self.sizeHintForColumn(0), 120) + 2 * self.frameWidth() + 8
        height = self.sizeHintForRow(0) * rows + 2 * self.frameWidth()
        parent = self.parentWidget()
        x = min(at.x(), max(0, parent.width() - width)) if parent is not None else at.x()
        self.setGeometry(x, at.y(), width, height)
        self.show()
        self.raise_()

    def option(self, number: int) -> str | None:
        """Alternative ``number`` (from 1), or None if there is no such one."""
        return self.options[number - 1] if 1 <= number <= len(self.options) else None
