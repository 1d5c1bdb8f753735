"""The settings dialog's table of replacements (spoken phrase -> written form)."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QTableWidget, QTableWidgetItem


class ReplacementsTable(QTableWidget):
    """Rows of (spoken, written); Tab leaves the table, as everywhere."""

    def __init__(self, entries: list[dict[str, str]]) -> None:
        super().__init__(0, 2)
        self.setHorizontalHeaderLabels(["Spoken", "Written"])
        self.horizontalHeader().setStretchLastSection(True)
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setTabKeyNavigation(False)
        self.setAccessibleName("Replacements")
        for entry in entries:
            self.add(entry.get("spoken", ""), entry.get("written", ""))
        self.setMinimumHeight(self.verticalHeader().defaultSectionSize() * 6)  # five rows shown

    def add(self, spoken: str = "", written: str = "") -> int:
        """Append a row; its index."""
        index = self.rowCount()
        self.insertRow(index)
        self.setItem(index, 0, QTableWidgetItem(spoken))
        self.setItem(index, 1, QTableWidgetItem(written))
        return index

    def add_and_edit(self) -> None:
        """Append an empty row and start editing its spoken phrase (the Add button)."""
        index = self.add()
        self.setCurrentCell(index, 0)
        item = self.item(index, 0)
        if item is not None:
            self.editItem(item)

    def remove_selected(self) -> None:
        """Remove the selected rows, else the current one (the Delete button)."""
        rows = sorted({i.row() for i in self.selectedIndexes()}, reverse=True)
        if not rows and self.currentRow() >= 0:
            rows = [self.currentRow()]
        for index in rows:
            self.removeRow(index)

    def rows(self) -> list[tuple[str, str]]:
        """(spoken, written) of every row."""
        rows = []
        for index in range(self.rowCount()):
            cells = [self.item(index, c) for c in (0, 1)]
            spoken, written = (cell.text() if cell is not None else "" for cell in cells)
            rows.append((spoken, written))
        return rows

    def drop_empty_rows(self) -> None:
        for index, (spoken, written) in reversed(list(enumerate(self.rows()))):
            if not spoken.strip() and not written.strip():
                self.removeRow(index)

    def entries(self) -> list[dict[str, str]]:
        """The rows with a spoken phrase, as the settings file stores them."""
        return [
            {"spoken": spoken.strip(), "written": written}
            for spoken, written in self.rows()
            if spoken.strip()
        ]
