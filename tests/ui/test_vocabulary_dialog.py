"""Dictation > Your words: the vocabulary in a table, offscreen; what OK writes is read back
from the file, as the next run reads it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import QTableWidgetItem

from dictate.ui.dialogs.vocabulary import VocabularyDialog
from dictate.writing.vocabulary import VocabularyFile, parse_entry


def _dialog(qtbot: Any, path: Path) -> VocabularyDialog:
    dialog = VocabularyDialog(None, path)
    qtbot.addWidget(dialog)
    return dialog


def test_the_table_shows_the_entries_and_ok_writes_what_was_edited(
    qtbot: Any, tmp_path: Path
) -> None:
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add([parse_entry("TensorRT = tensor r t"), parse_entry("metoprolol")])
    dialog = _dialog(qtbot, path)
    assert dialog.table.rows() == [("TensorRT", "tensor r t", ""), ("metoprolol", "", "")]
    dialog.table.add_and_edit()
    row = dialog.table.rowCount() - 1
    dialog.table.setItem(row, 0, QTableWidgetItem("Dr. Nguyen"))
    dialog.table.setItem(row, 1, QTableWidgetItem("Doctor  Win"))
    dialog.table.selectRow(1)
    dialog.table.remove_selected()
    dialog.table.add()  # an empty row is dropped, not refused
    dialog.accept()
    assert dialog.result() == dialog.DialogCode.Accepted
    assert [e.line() for e in VocabularyFile(path).entries] == [
        "TensorRT = tensor r t",
        "Dr. Nguyen = doctor win",
    ]


def test_a_row_that_is_no_entry_is_said_and_nothing_is_written(qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add([parse_entry("metoprolol")])
    dialog = _dialog(qtbot, path)
    dialog.table.add("...", "")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "row 2" in dialog.problem.text() and "letter or digit" in dialog.problem.text()
    assert [e.written for e in VocabularyFile(path).entries] == ["metoprolol"]
    assert dialog.table.rows()[-1] == ("...", "", "")  # what was typed stays


def test_import_and_export_a_plain_text_file(qtbot: Any, tmp_path: Path) -> None:
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add([parse_entry("Kubernetes = cooper netties")])
    words = tmp_path / "words.txt"
    words.write_text("# mine\nKubernetes\nmetoprolol\n = nothing\n", encoding="utf-8")
    dialog = _dialog(qtbot, path)
    dialog.import_file(str(words))
    assert dialog.table.rows() == [("Kubernetes", "", ""), ("metoprolol", "", "")]  # the file's
    assert "2 entries imported" in dialog.problem.text() and "line 4" in dialog.problem.text()
    out = tmp_path / "out.txt"
    dialog.export_file(str(out))
    assert out.read_text(encoding="utf-8") == "Kubernetes\nmetoprolol\n"
    dialog.import_file(str(tmp_path / "missing.txt"))
    assert "cannot be read" in dialog.problem.text()


def test_a_vocabulary_that_cannot_be_read_or_written_is_said(qtbot: Any, tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    dialog = _dialog(qtbot, folder / "vocabulary.jsonl")
    folder.rmdir()
    folder.write_text("", encoding="utf-8")  # the data folder is now a file: no write works
    dialog.table.add("metoprolol", "")
    dialog.accept()
    assert dialog.result() != dialog.DialogCode.Accepted
    assert "cannot be written" in dialog.problem.text()
    unreadable = _dialog(qtbot, folder / "vocabulary.jsonl")
    assert "cannot be read" in unreadable.problem.text()
    unreadable.accept()  # OK is disabled; nothing happens
    assert unreadable.result() != unreadable.DialogCode.Accepted


def test_the_window_offers_it_in_the_dictation_menu(window: Any) -> None:
    menus = {a.text(): a.menu() for a in window.menuBar().actions()}
    assert window.vocabulary_action in menus["D&ictation"].actions()


def test_exact_rules_are_shown_edited_and_kept_by_ok(qtbot: Any, tmp_path: Path) -> None:
    """An entry's "when you hear" rules are a column of their own: OK with nothing changed
    keeps them (they were lost when the table had two columns), and a rule typed is saved."""
    path = tmp_path / "vocabulary.jsonl"
    VocabularyFile(path).add([parse_entry("Xochitl = so cheel <- so chill | social")])
    dialog = _dialog(qtbot, path)
    assert dialog.table.rows() == [("Xochitl", "so cheel", "so chill | social")]
    dialog.table.add()
    dialog.table.setItem(1, 0, QTableWidgetItem("Tadhg"))
    dialog.table.setItem(1, 2, QTableWidgetItem("tiger |  tie g"))
    dialog.accept()
    assert [e.line() for e in VocabularyFile(path).entries] == [
        "Xochitl = so cheel <- so chill | social",
        "Tadhg <- tiger | tie g",
    ]
    dialog = _dialog(qtbot, path)
    dialog.table.setItem(1, 2, QTableWidgetItem(" | "))
    dialog.accept()
    assert "each rule after '<-'" in dialog.problem.text()
