"""The list of voice commands (Help > Voice commands, or say "what can I say"): every command
with what it does and an example, from :func:`dictate.commands.help.command_rows`.

The dialog is not modal: dictation starts and goes on while it is open (it refuses to start
behind a modal dialog), so it can stay beside the text while the user tries the commands.
"""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, QSize, Qt, QTimer
from PySide6.QtGui import QAction, QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dictate.commands.help import HOW_TO_SAY, CommandRow, command_rows

COLUMNS = ("Command", "What it does", "Example")
_PAD = 6  # pixels left and right of a cell's text


class _WrappingDelegate(QStyledItemDelegate):
    """Measures a wrapped cell in the width its text is painted in: the style measures it in
    the whole column, the padding left out, and a row one line too short ends in "…"."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        narrower = QStyleOptionViewItem(option)
        narrower.rect = option.rect.adjusted(0, 0, -2 * _PAD - 4, 0)
        return super().sizeHint(narrower, index)


class VoiceCommandsDialog(QDialog):
    """A read-only table of the voice commands, a heading row per group, with a filter box.

    Attributes:
        table: The table; a group's heading row spans the three columns.
        filter_box: Typing here shows only the rows that contain every word typed (in any
            column or the group's name); a group with none left loses its heading too.
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Voice commands")
        self.setModal(False)
        self.setSizeGripEnabled(True)
        self.resize(960, 620)
        layout = QVBoxLayout(self)

        intro = QLabel(HOW_TO_SAY)
        intro.setWordWrap(True)
        layout.addWidget(intro)

        self.filter_box = QLineEdit()
        self.filter_box.setPlaceholderText("Filter: type a word, e.g. comma, select, line")
        self.filter_box.setAccessibleName("Filter voice commands")
        self.filter_box.setClearButtonEnabled(True)
        self.filter_box.textChanged.connect(self.apply_filter)
        layout.addWidget(self.filter_box)

        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setAccessibleName("Voice commands")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setWordWrap(True)
        self.table.setShowGrid(False)
        self.table.setAlternatingRowColors(True)
        self.table.setStyleSheet(f"QTableView::item {{ padding: 3px {_PAD}px; }}")
        self.table.setItemDelegate(_WrappingDelegate(self.table))
        self.table.verticalHeader().setVisible(False)
        self.table.setVerticalScrollMode(QAbstractItemView.ScrollMode.ScrollPerPixel)
        self.table.setTabKeyNavigation(False)  # Tab goes on to the Close button
        header = self.table.horizontalHeader()
        header.setDefaultAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.table.setColumnWidth(0, 250)
        # Wrapped rows take their heights again once the columns have settled (resizing one
        # stretched column resizes the other after it: heights taken between are wrong).
        self._fit_rows = QTimer(self)
        self._fit_rows.setSingleShot(True)
        self._fit_rows.setInterval(0)
        self._fit_rows.timeout.connect(self.table.resizeRowsToContents)
        header.sectionResized.connect(lambda *_: self._fit_rows.start())
        self._groups: dict[int, list[int]] = {}  # a heading row -> its command rows
        self._fill(command_rows())
        layout.addWidget(self.table, 1)

        self.none_label = QLabel("No command matches the filter.")
        self.none_label.hide()
        layout.addWidget(self.none_label)

        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)  # Close and Escape hide it; it is shown again
        layout.addWidget(buttons)
        self.filter_box.setFocus()

    @classmethod
    def show_for(
        cls, parent: QWidget, activate: bool = True, *actions: QAction
    ) -> VoiceCommandsDialog:
        """Show ``parent``'s list, made the first time (one per parent), and raise it.

        Args:
            parent: The main window.
            activate: Give it the keyboard focus; not while dictation types into another
                application, which must keep the focus.
            actions: The parent's actions whose shortcuts work in the list too (F9, Dictate).
        """
        dialog = parent.findChild(cls, options=Qt.FindChildOption.FindDirectChildrenOnly)
        if dialog is None:
            dialog = cls(parent)
            dialog.addActions(list(actions))
        dialog.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, not activate)
        dialog.show()
        dialog.raise_()
        if activate:
            dialog.activateWindow()
        return dialog

    def _fill(self, rows: list[CommandRow]) -> None:
        bold = QFont(self.font())
        bold.setBold(True)
        group, heading = "", -1
        for row in rows:
            if row.group != group:
                group, heading = row.group, self.table.rowCount()
                self.table.insertRow(heading)
                item = QTableWidgetItem(group)
                item.setFont(bold)
                item.setFlags(Qt.ItemFlag.ItemIsEnabled)
                self.table.setItem(heading, 0, item)
                self.table.setSpan(heading, 0, 1, len(COLUMNS))
                self._groups[heading] = []
            index = self.table.rowCount()
            self.table.insertRow(index)
            for column, text in enumerate((row.said, row.does, row.example)):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.table.setItem(index, column, item)
            self._groups[heading].append(index)
        self.table.resizeRowsToContents()

    def row_texts(self, visible_only: bool = True) -> list[tuple[str, str, str]]:
        """(command, what it does, example) of each command row, shown ones only by default."""
        return [
            (self._text(row, 0), self._text(row, 1), self._text(row, 2))
            for rows in self._groups.values()
            for row in rows
            if not (visible_only and self.table.isRowHidden(row))
        ]

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return item.text() if item is not None else ""

    def apply_filter(self, text: str) -> None:
        """Show the rows that contain every word of ``text`` (case ignored), with the headings
        of their groups; all of them when ``text`` is blank."""
        words = text.casefold().split()
        shown = 0
        for heading, rows in self._groups.items():
            group_matches = False
            for row in rows:
                haystack = " ".join(
                    [self._text(heading, 0), *(self._text(row, c) for c in range(len(COLUMNS)))]
                ).casefold()
                match = all(word in haystack for word in words)
                self.table.setRowHidden(row, not match)
                group_matches |= match
                shown += match
            self.table.setRowHidden(heading, not group_matches)
        self.none_label.setVisible(shown == 0)
