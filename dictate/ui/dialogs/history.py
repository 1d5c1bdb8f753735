"""View > History: the dictation history (:mod:`dictate.editing.history`), newest first, with
its time, where it went and the text; search, copy, type again, delete one, clear all."""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dictate.editing.history import FAILED, WINDOW, Entry, History, search


def when(entry: Entry) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.time))


def where(entry: Entry) -> str:
    target = "this window" if entry.target == WINDOW else entry.target
    return f"{target} (failed: put in this window)" if entry.status == FAILED else target


class HistoryDialog(QDialog):
    """The history's entries in a table; ``store()`` gives the history (with the limits of
    the settings now), ``type_again(text)`` puts a text in again and says what it did."""

    def __init__(
        self,
        store: Callable[[], History],
        type_again: Callable[[str], str],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._store = store
        self._type_again = type_again
        self._shown: list[Entry] = []
        self.setWindowTitle("Dictation history")
        self.setAccessibleName("Dictation history")
        self.resize(760, 460)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search the history")
        self.search.setAccessibleName("Search the history")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(lambda _text: self._fill())
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Time", "Where", "Text"])
        self.table.setAccessibleName("Dictated sentences")
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setTabKeyNavigation(False)
        self.table.setWordWrap(True)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        self.table.doubleClicked.connect(lambda _index: self.copy())
        self.status = QLabel()
        self.status.setWordWrap(True)
        buttons = QHBoxLayout()
        self.copy_button = QPushButton("&Copy")
        self.type_button = QPushButton("&Type again")
        self.delete_button = QPushButton("&Delete")
        self.clear_button = QPushButton("C&lear all…")
        close = QPushButton("Close")
        for button, slot in (
            (self.copy_button, self.copy),
            (self.type_button, self.type_again),
            (self.delete_button, self.delete),
            (self.clear_button, self.clear_all),
            (close, self.close),
        ):
            button.setAutoDefault(False)
            button.clicked.connect(lambda _checked=False, slot=slot: slot())
            buttons.addWidget(button)
        self.delete_button.setShortcut(QKeySequence(QKeySequence.StandardKey.Delete))
        search_label = QLabel("&Search:")
        search_label.setBuddy(self.search)
        top = QHBoxLayout()
        top.addWidget(search_label)
        top.addWidget(self.search, 1)
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.status)
        layout.addLayout(buttons)

    def reload(self) -> None:
        """Read the history again and show what the search finds."""
        self._fill()

    def _fill(self) -> None:
        try:
            entries = self._store().entries()
        except OSError as exc:
            entries = []
            self.status.setText(f"The history could not be read ({exc.strerror or exc}).")
        self._shown = list(reversed(list(search(entries, self.search.text()))))
        self.table.setRowCount(len(self._shown))
        for row, entry in enumerate(self._shown):
            for column, text in enumerate((when(entry), where(entry), entry.text)):
                item = QTableWidgetItem(text)
                if column == 2 and entry.heard:  # your words rewrote some of what was heard
                    item.setToolTip(f"{text}\n\nAs heard: {entry.heard}")
                else:
                    item.setToolTip(text)
                if column == 0:
                    item.setData(Qt.ItemDataRole.UserRole, entry.id)
                self.table.setItem(row, column, item)
        self.table.resizeRowsToContents()
        if self._shown and not self.table.selectedIndexes():
            self.table.selectRow(0)

    def selected(self) -> list[Entry]:
        """The entries of the selected rows (the current row if none is selected)."""
        rows = sorted({index.row() for index in self.table.selectedIndexes()})
        if not rows and self.table.currentRow() >= 0:
            rows = [self.table.currentRow()]
        return [self._shown[row] for row in rows if row < len(self._shown)]

    def copy(self) -> None:
        chosen = self.selected()
        if chosen:
            QGuiApplication.clipboard().setText("\n".join(e.text for e in chosen))
            self.status.setText("Copied.")

    def type_again(self) -> None:
        chosen = self.selected()
        if chosen:
            self.status.setText(self._type_again(" ".join(e.text for e in chosen)))

    def delete(self) -> None:
        chosen = self.selected()
        if not chosen:
            return
        self._write(lambda history: history.delete({e.id for e in chosen}))
        self.status.setText("Deleted." if len(chosen) == 1 else f"Deleted {len(chosen)}.")

    def clear_all(self) -> None:
        if not self.confirm("Delete the whole dictation history? This cannot be undone."):
            return
        self._write(lambda history: history.clear())
        self.status.setText("The history is empty.")

    def _write(self, change: Callable[[History], object]) -> None:
        try:
            change(self._store())
        except OSError as exc:
            self.status.setText(f"The history could not be changed ({exc.strerror or exc}).")
            return
        self.reload()

    def confirm(self, question: str) -> bool:
        buttons = QMessageBox.StandardButton
        answer = QMessageBox.question(
            self, "Dictation history", question, buttons.Yes | buttons.No, buttons.No
        )
        return bool(answer == buttons.Yes)
