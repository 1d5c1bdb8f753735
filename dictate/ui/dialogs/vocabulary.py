"""Dictation > Your words: the vocabulary (:mod:`dictate.writing.vocabulary`) in a table of
written forms and how they sound; add, remove, import and export a plain-text file (one entry a
line). OK checks every row and writes the file; a row that is not an entry, or a file that
cannot be written, is said in the dialog, which stays open with everything typed in it."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from dictate.ui.dialogs.replacements_table import ReplacementsTable
from dictate.writing.vocabulary import (
    RULE_SEPARATOR,
    RULES,
    SEPARATOR,
    VocabularyEntry,
    VocabularyFile,
    format_text,
    parse_entry,
    parse_text,
)


class VocabularyTable(ReplacementsTable):
    """Rows of (written, sounds like, exact rules: the words heard that are always written as
    it, separated by " | ")."""

    def __init__(self, entries: list[VocabularyEntry]) -> None:
        super().__init__([])
        self.setColumnCount(3)
        self.setHorizontalHeaderLabels(
            ["Written", "Sounds like (if not as written)", "When you hear (a | b)"]
        )
        self.setAccessibleName("Your words")
        for entry in entries:
            self.add(entry.written, entry.sounds, RULE_SEPARATOR.join(entry.heard))

    def add(self, written: str = "", sounds: str = "", heard: str = "") -> int:  # type: ignore[override]
        index = super().add(written, sounds)
        self.setItem(index, 2, QTableWidgetItem(heard))
        return index

    def rows(self) -> list[tuple[str, ...]]:  # type: ignore[override]
        """(written, sounds like, exact rules) of every row."""
        out = []
        for index in range(self.rowCount()):
            cells = [self.item(index, c) for c in (0, 1, 2)]
            out.append(tuple(cell.text() if cell is not None else "" for cell in cells))
        return out

    def drop_empty_rows(self) -> None:
        for index, row in reversed(list(enumerate(self.rows()))):
            if not any(cell.strip() for cell in row):
                self.removeRow(index)


class VocabularyDialog(QDialog):
    """The vocabulary of ``path`` (None: the user's) in a table."""

    def __init__(self, parent: QWidget | None = None, path: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Your words")
        self.resize(520, 440)
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.hide()
        try:
            self.file: VocabularyFile | None = VocabularyFile(path)
            entries = self.file.entries
        except OSError as exc:
            self.file, entries = None, []
            self._say(f"The vocabulary cannot be read: {exc}. Move it out of the way to start one.")
        self.table = VocabularyTable(entries)
        intro = QLabel(
            "Names, terms and spellings written exactly as you give them. A near miss of one "
            "in what is recognised is written as the entry; “correct that” still offers what "
            "was heard. Words under “When you hear” are always written as the entry. Used "
            "from the next dictation; how the recogniser mishears each new entry is heard in "
            "the background."
        )
        intro.setWordWrap(True)
        buttons = QHBoxLayout()
        for text, slot in (
            ("&Add", self.table.add_and_edit),
            ("&Remove", self.table.remove_selected),
            ("&Import…", self.import_file),
            ("E&xport…", self.export_file),
        ):
            button = QPushButton(text)
            button.clicked.connect(slot)
            buttons.addWidget(button)
        buttons.addStretch()
        box = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        box.accepted.connect(self.accept)
        box.rejected.connect(self.reject)
        box.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.file is not None)
        layout = QVBoxLayout(self)
        for widget in (intro, self.table):
            layout.addWidget(widget)
        layout.addLayout(buttons)
        layout.addWidget(self.problem)
        layout.addWidget(box)

    def _say(self, text: str) -> None:
        self.problem.setText(text)
        self.problem.setVisible(bool(text))

    def entries(self) -> tuple[list[VocabularyEntry], list[str]]:
        """The rows as entries, and one problem for each row that is not one."""
        entries, problems = [], []
        self.table.drop_empty_rows()
        for number, (written, sounds, heard) in enumerate(self.table.rows(), 1):
            line = f"{written}{SEPARATOR}{sounds}" if sounds.strip() else written
            try:
                entries.append(parse_entry(f"{line}{RULES}{heard}" if heard.strip() else line))
            except ValueError as exc:
                problems.append(f"row {number}: {exc}")
        return entries, problems

    def accept(self) -> None:
        entries, problems = self.entries()
        if problems:
            self._say("Not saved: " + "; ".join(problems) + ".")
            return
        if self.file is None:
            return  # it could not be read: OK is disabled, the reason is shown
        try:
            self.file.replace_all(entries)
        except OSError as exc:
            self._say(f"Not saved: {self.file.path} cannot be written ({exc.strerror or exc}).")
            return
        super().accept()

    def import_file(self, path: str | None = None) -> None:
        """Add the entries of a text file (one a line) to the table; rows already there with
        the same written form take the file's."""
        if not path:
            path, _ = QFileDialog.getOpenFileName(
                self, "Import words", "", "Text files (*.txt);;All files (*)"
            )
        if not path:
            return
        try:
            read, problems = parse_text(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            self._say(f"{path} cannot be read: {getattr(exc, 'strerror', None) or exc}.")
            return
        rows = {row[0]: index for index, row in enumerate(self.table.rows())}
        for entry in read:
            if entry.written in rows:
                self.table.removeRow(rows.pop(entry.written))
                rows = {row[0]: i for i, row in enumerate(self.table.rows())}
            self.table.add(entry.written, entry.sounds, RULE_SEPARATOR.join(entry.heard))
        skipped = f"; skipped {'; '.join(problems)}" if problems else ""
        self._say(f"{len(read)} entries imported from {Path(path).name}{skipped}.")

    def export_file(self, path: str | None = None) -> None:
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self, "Export words", "words.txt", "Text files (*.txt)"
            )
        if not path:
            return
        entries, problems = self.entries()
        try:
            Path(path).write_text(format_text(entries), encoding="utf-8")
        except OSError as exc:
            self._say(f"{path} cannot be written: {exc.strerror or exc}.")
            return
        rows = f" ({'; '.join(problems)} not exported)" if problems else ""
        self._say(f"{len(entries)} entries exported to {Path(path).name}{rows}.")
