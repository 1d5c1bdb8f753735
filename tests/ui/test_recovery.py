"""Recovery that never comes back empty: the question always comes when the journal held text,
a damaged journal is offered as far as it can be read and kept (never overwritten), and "No"
keeps a copy of what it leaves."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from dictate.config import Settings
from dictate.editing.journal import Journal
from dictate.editing.journal_replay import Recovered, replay
from dictate.ui.main_window import MainWindow
from dictate.ui.recovery import (
    clean_up_copies,
    copies_folder,
    keep_damaged_journal,
    open_document_at_start,
    recovery_message,
)

TEXT = "".join(f"Paragraph {i} of the long document, written by voice. " for i in range(900))


def _crashed_journal(path: Path, text: str = TEXT) -> None:
    journal = Journal(path)
    journal.reset(text, None)
    journal.edit(len(text), "", "The last words.")
    journal.close(clean=False)  # the crash: no "closed" record


def _window(path: Path) -> MainWindow:
    return MainWindow(Settings(engine="sphinx", first_run_done=True), Journal(path), False)


def _close(window: MainWindow) -> None:
    window.document.modified = False
    window.close()


def test_a_bad_byte_in_the_first_record_still_asks_and_offers_the_text(
    tmp_path: Path, qtbot: object
) -> None:
    """The reviewed failure: the next start showed an empty window, no question, no message.
    Two bad bytes: one alone the checksum puts back (below)."""
    path = tmp_path / "journal" / "document.jsonl"
    _crashed_journal(path)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"Paragraph 3 ") + 2] ^= 0x20
    raw[raw.index(b"Paragraph 9 ") + 2] ^= 0x20
    path.write_bytes(bytes(raw))
    recovered = replay(path)
    assert recovered is not None and recovered.damaged
    kept = keep_damaged_journal(path, recovered)
    assert kept is not None and kept.read_bytes() == bytes(raw)
    questions: list[str] = []

    def ask(parent: object, rec: Recovered) -> bool:
        questions.append(recovery_message(rec, kept))
        return True

    window = _window(path)
    assert open_document_at_start(window, recovered, ask, kept)
    assert len(questions) == 1
    assert "damaged" in questions[0] and str(kept) in questions[0]
    assert "read around the damage" in questions[0]
    text = window.editor.text
    assert len(text) == len(TEXT) + len("The last words.") and text.endswith("The last words.")
    assert sum(a != b for a, b in zip(text, TEXT, strict=False)) == 2
    _close(window)


def test_one_bad_byte_in_the_first_record_is_put_back_and_said(
    tmp_path: Path, qtbot: object
) -> None:
    path = tmp_path / "journal" / "document.jsonl"
    _crashed_journal(path)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"Paragraph 3 ") + 2] ^= 0x20
    path.write_bytes(bytes(raw))
    recovered = replay(path)
    assert recovered is not None and recovered.damaged and recovered.repaired_records == 1
    kept = keep_damaged_journal(path, recovered)
    assert kept is not None
    window = _window(path)
    questions: list[str] = []

    def ask(parent: object, rec: Recovered) -> bool:
        questions.append(recovery_message(rec, kept))
        return True

    assert open_document_at_start(window, recovered, ask, kept)
    assert "put back exactly by its checksum" in questions[0]
    assert window.editor.text == TEXT + "The last words."
    _close(window)


def test_a_first_record_of_zeros_is_told_even_when_no_text_can_be_read(
    tmp_path: Path, qtbot: object
) -> None:
    path = tmp_path / "journal" / "document.jsonl"
    _crashed_journal(path, "Short.")
    raw = path.read_bytes()
    path.write_bytes(bytes(len(raw)))  # the whole file zeroed
    recovered = replay(path)
    assert recovered is not None and recovered.damaged and not recovered.full_text.strip()
    kept = keep_damaged_journal(path, recovered)
    window = _window(path)
    assert not open_document_at_start(window, recovered, lambda w, r: True, kept)
    shown = window.messages.label.text()
    assert "damaged" in shown and "no text could be read" in shown and str(kept) in shown
    _close(window)


def test_damaged_copies_are_never_overwritten_and_are_private(tmp_path: Path) -> None:
    path = tmp_path / "journal" / "document.jsonl"
    copies = []
    for n in range(3):
        _crashed_journal(path, f"Version {n}.")
        path.write_bytes(path.read_bytes()[:-5])  # cut off
        recovered = replay(path)
        assert recovered is not None and recovered.damaged
        copies.append(keep_damaged_journal(path, recovered))
    assert all(c is not None for c in copies) and len(set(copies)) == 3
    for n, copy in enumerate(copies):
        assert copy is not None and f"Version {n}.".encode() in copy.read_bytes()
        assert stat.S_IMODE(copy.stat().st_mode) == 0o600
    assert stat.S_IMODE(copies_folder(path).stat().st_mode) == 0o700


def test_copies_are_cleaned_up_by_age(tmp_path: Path) -> None:
    path = tmp_path / "journal" / "document.jsonl"
    folder = copies_folder(path)
    folder.mkdir(parents=True)
    old, new = folder / "damaged-old.jsonl", folder / "not-recovered-new.txt"
    old.write_text("old")
    new.write_text("new")
    month_ago = time.time() - 31 * 86400
    os.utime(old, (month_ago, month_ago))
    clean_up_copies(path)
    assert not old.exists() and new.exists()


def test_no_to_recovery_keeps_a_copy_and_says_where(tmp_path: Path, qtbot: object) -> None:
    """The reviewed failure: answering No deleted the unsaved text with no copy kept."""
    path = tmp_path / "journal" / "document.jsonl"
    _crashed_journal(path, "Unsaved words I may want after all.")
    recovered = replay(path)
    window = _window(path)
    assert not open_document_at_start(window, recovered, lambda w, r: False)
    assert window.editor.text == ""
    copies = list(copies_folder(path).iterdir())
    assert len(copies) == 1
    assert copies[0].read_text() == "Unsaved words I may want after all.The last words."
    assert stat.S_IMODE(copies[0].stat().st_mode) == 0o600
    assert str(copies[0]) in window.messages.label.text()
    _close(window)


def test_no_when_no_copy_can_be_kept_loads_the_text_instead(tmp_path: Path, qtbot: object) -> None:
    path = tmp_path / "journal" / "document.jsonl"
    _crashed_journal(path, "Words that must survive.")
    recovered = replay(path)
    copies_folder(path).write_text("a file where the folder would go")
    window = _window(path)
    assert open_document_at_start(window, recovered, lambda w, r: False)
    assert window.editor.text == "Words that must survive.The last words."
    assert "could not be kept aside" in window.messages.label.text()
    _close(window)


# -- the data folder under the running window ---------------------------------------------------


def test_the_data_folder_removed_while_running_is_made_again_with_all_the_text(
    tmp_path: Path, qtbot: object
) -> None:
    """The reviewed failure: appends went on into the unlinked file; all later text was lost."""
    from PySide6.QtTest import QTest

    path = tmp_path / "data" / "journal" / "document.jsonl"
    window = _window(path)
    window.document.load_text("Before. ", None)
    shutil.rmtree(tmp_path / "data")
    QTest.keyClicks(window.editor, "After")
    qtbot.waitUntil(  # type: ignore[attr-defined]
        lambda: "was removed or replaced" in window.messages.label.text(), timeout=5000
    )
    assert window.editor.buffer.journal_error is None and window.write_problem.isHidden()
    got = replay(path)
    assert got is not None and got.text == window.editor.text == "Before. After"
    _close(window)


@contextlib.contextmanager
def _small_filesystem(folder: Path) -> Iterator[Path]:
    """A real 256 KiB tmpfs (root only: skipped where mounting is not allowed)."""
    folder.mkdir(parents=True)
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(folder)], capture_output=True
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def test_a_read_only_data_folder_says_so_and_not_to_free_space(
    tmp_path: Path, qtbot: object
) -> None:
    """The reviewed failure: the message said "free some space" for a read-only folder."""
    from PySide6.QtTest import QTest

    with _small_filesystem(tmp_path / "fs") as fs:
        (fs / "journal").mkdir()
        subprocess.run(["mount", "-o", "remount,ro", str(fs)], check=True)
        window = _window(fs / "journal" / "document.jsonl")
        window.document.load_text("Text. ", None)
        QTest.keyClicks(window.editor, "More")
        assert not window.write_problem.isHidden()
        shown = window.write_problem.label.text()
        assert "Read-only file system" in shown
        assert "may not be written" in shown and "free some space" not in shown
        assert window.editor.text == "Text. More"  # kept in memory
        window.document.retry_timer.stop()
        _close(window)


def test_a_crash_on_a_full_disk_recovers_in_memory_and_says_where_to_save(
    tmp_path: Path, qtbot: object
) -> None:
    with _small_filesystem(tmp_path / "fs") as fs:
        path = fs / "journal" / "document.jsonl"
        _crashed_journal(path, "Dictated before the disk filled. ")
        with (fs / "filler").open("wb", buffering=0) as fh, contextlib.suppress(OSError):
            while True:
                fh.write(b"x" * 4096)
                fh.flush()
        recovered = replay(path)
        assert recovered is not None and not recovered.closed
        kept = keep_damaged_journal(path, recovered)  # nothing damaged: no copy needed
        window = _window(path)
        assert open_document_at_start(window, recovered, lambda w, r: True, kept)
        assert window.editor.text == "Dictated before the disk filled. The last words."
        assert not window.write_problem.isHidden()
        shown = window.write_problem.label.text()
        assert "free some space" in shown and "Save As" in shown
        window.document.retry_timer.stop()
        _close(window)


def test_a_journal_closed_normally_but_damaged_since_is_offered_without_saying_a_crash(
    tmp_path: Path, qtbot: object
) -> None:
    path = tmp_path / "journal" / "document.jsonl"
    journal = Journal(path)
    journal.reset(TEXT, None)
    journal.close(clean=True)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"Paragraph 5 ") + 1] ^= 0x01
    path.write_bytes(bytes(raw))
    recovered = replay(path)
    assert recovered is not None and recovered.closed and recovered.damaged
    message = recovery_message(recovered)
    assert "did not close normally" not in message and "Recover them?" in message
    window = _window(path)
    assert open_document_at_start(window, recovered, lambda w, r: True)
    assert len(window.editor.text) == len(TEXT)
    _close(window)
