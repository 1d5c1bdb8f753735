"""Defects a new user met on a first start from the installer: where Open and Save As start, the
first-run model dialog (its place, the models it offers). Each test failed before its fix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QFileDialog

from dictate.store.catalog import CATALOG, RECOMMENDED, format_size
from dictate.ui.dialogs import ModelDialog
from dictate.ui.main_window import MainWindow


@pytest.fixture
def checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The installer started the app in a source checkout (the working directory), and the
    user's home is a folder of the test's own."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    monkeypatch.chdir(folder)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    return folder


def save_as_folder(window: MainWindow) -> str:
    """The folder the real Save As dialog (a widget dialog offscreen) shows; then cancelled."""
    seen: list[str] = []

    def look() -> None:
        dialog = next(
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, QFileDialog) and w.isVisible()
        )
        seen.append(dialog.directory().absolutePath())
        dialog.reject()

    QTimer.singleShot(0, look)
    assert not window.document.save_as()
    return seen[0]


def open_folder(window: MainWindow, monkeypatch: pytest.MonkeyPatch) -> str:
    """The folder Open starts in. The static QFileDialog.getOpenFileName runs a modal dialog of
    its own that a test cannot reach offscreen, so it is replaced by one that records the folder
    it was given and is cancelled."""
    seen: list[str] = []

    def fake_open(parent: Any, caption: str, folder: str, filters: str) -> tuple[str, str]:
        seen.append(folder)
        return "", ""

    monkeypatch.setattr(QFileDialog, "getOpenFileName", staticmethod(fake_open))
    window.document.open()
    return seen[0]


def test_open_and_save_as_start_in_the_documents_folder_not_the_working_directory(
    window: MainWindow, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    documents = checkout.parent / "home" / "Documents"
    documents.mkdir()
    assert save_as_folder(window) == str(documents)
    assert open_folder(window, monkeypatch) == str(documents)


def test_without_a_documents_folder_they_start_at_home(
    window: MainWindow, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = checkout.parent / "home"
    assert save_as_folder(window) == str(home)
    assert open_folder(window, monkeypatch) == str(home)


def test_with_a_document_they_start_in_its_folder(
    window: MainWindow, checkout: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (checkout.parent / "home" / "Documents").mkdir()
    notes = checkout.parent / "notes"
    notes.mkdir()
    (notes / "letter.txt").write_text("Dear Sam.\n", encoding="utf-8")
    window.document.open(notes / "letter.txt")
    assert window.document.path == notes / "letter.txt"
    assert save_as_folder(window) == str(notes)
    assert open_folder(window, monkeypatch) == str(notes)


def assert_centred(dialog: ModelDialog, window: MainWindow) -> None:
    centre, expected = dialog.geometry().center(), window.geometry().center()
    assert abs(centre.x() - expected.x()) <= 1 and abs(centre.y() - expected.y()) <= 1, (
        centre,
        expected,
    )


def test_the_first_run_dialog_is_a_child_centred_over_the_window(
    window: MainWindow, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At the first start the dialog comes up right after the window is shown, before a window
    manager has placed the window; it must follow the window to where it is placed (a move of
    the window while the dialog is up stands for that offscreen)."""
    window.setGeometry(60, 80, 700, 600)  # inside the offscreen screen (800 x 800)
    seen: list[ModelDialog] = []

    def look(dialog: ModelDialog) -> int:  # the dialog, shown without its modal loop
        dialog.show()
        QApplication.processEvents()
        assert dialog.parentWidget() is window and dialog.isWindow()
        assert_centred(dialog, window)
        window.setGeometry(20, 150, 600, 500)  # placed by the window manager
        QApplication.processEvents()
        assert_centred(dialog, window)
        seen.append(dialog)
        dialog.reject()
        return 0

    monkeypatch.setattr(ModelDialog, "exec", look)
    window.offer_model()
    assert len(seen) == 1


def test_the_model_dialog_offers_every_catalogue_model_with_its_size(qtbot: Any) -> None:
    dialog = ModelDialog()
    qtbot.addWidget(dialog)
    assert dialog.models.count() == len(CATALOG)
    for row, entry in enumerate(CATALOG):
        text = dialog.models.item(row).text()
        assert entry.name in text and format_size(entry.approx_bytes) in text, text
        assert entry.description in text, text
    assert dialog.entry.name == RECOMMENDED
    chosen = dialog.models.currentItem().text()
    assert RECOMMENDED in chosen and "recommended" in chosen
    dialog.models.setCurrentRow(len(CATALOG) - 1)
    assert dialog.entry == CATALOG[-1]


def test_the_model_lines_are_wrapped_not_cut_at_the_dialogs_edge(qtbot: Any) -> None:
    """Seen under Xvfb: the descriptions ran past the list behind a horizontal scroll bar."""
    dialog = ModelDialog()
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitExposed(dialog)
    assert dialog.models.wordWrap()
    assert dialog.models.horizontalScrollBar().maximum() == 0
