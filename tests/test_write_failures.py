"""Write failures never drop text: a full disk (a real, small tmpfs where the test may mount one)
and injected I/O errors (a fault-injecting layer, where said) for the journal, saving and
settings. The finalized sentence is still shown and kept, one persistent message says what
failed and what to do, the journal is rewritten once it can be, and no temporary file is left."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtTest import QTest

from dictate.config import Settings, save_settings
from dictate.editing.journal import Journal
from dictate.editing.journal_replay import replay
from dictate.events import Finalized, Pending
from dictate.fileio import atomic_write
from dictate.ui.main_window import MainWindow


@contextlib.contextmanager
def small_tmpfs(where: Path, size: str = "160k") -> Iterator[Path]:
    """A real filesystem that fills up: a tmpfs (root only; skipped where it cannot be mounted)."""
    where.mkdir()
    try:
        subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
            check=True,
            capture_output=True,
        )
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"cannot mount a tmpfs here ({exc}); the injected-failure tests cover this")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False, capture_output=True)


def fill(disk: Path) -> Path:
    """Fill ``disk`` until the kernel says ENOSPC; returns the filler to delete later."""
    filler = disk / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"\0" * 4096)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


@pytest.fixture
def make_window(qtbot) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    windows: list[MainWindow] = []

    def make(journal: Journal) -> MainWindow:
        win = MainWindow(Settings(engine="sphinx"), journal, False)
        win.document.load_text("", None)
        win.show()
        windows.append(win)
        return win

    yield make
    for win in windows:
        win.document.modified = False
        win.document.retry_timer.stop()
        win.editor.buffer.journal = None  # the disk may be gone already
        win.close()
        win.deleteLater()


def test_a_full_disk_keeps_every_word_and_says_so(tmp_path: Path, make_window: Any) -> None:
    with small_tmpfs(tmp_path / "disk") as disk:
        window = make_window(Journal(disk / "journal.jsonl"))
        editor = window.editor
        window.events.dispatch(Finalized(0.1, 1, ["Before the disk filled."], pending=""))
        filler = fill(disk)

        # The journal's last page may still have room: dictate until the kernel refuses.
        sentences = []
        for n in range(1, 60):
            sentence = f"Sentence {n} while the disk is full " + "and it goes on " * 20 + "end."
            sentences.append(sentence)
            window.events.dispatch(Pending(0.2, n, "still pending"))
            window.events.dispatch(Finalized(0.3, n, [sentence], pending="and"))
            if editor.buffer.journal_error is not None:
                break
        QTest.keyClicks(editor, " Typed too.")
        assert editor.text == " ".join(["Before the disk filled.", *sentences]) + " Typed too."
        assert editor.buffer.journal_error is not None
        assert editor.buffer.journal_error.errno == errno.ENOSPC
        assert not window.write_problem.isHidden()
        message = window.write_problem.label.text()
        assert "Autosave failed" in message and str(disk / "journal.jsonl") in message
        assert "free some space" in message and "Save As" in message
        assert window.document.retry_timer.isActive()

        assert not window.document.save_as(disk / "document.txt")  # saving fails too, and says so
        assert "Could not save" in window.write_problem.label.text()
        assert not window.document.retry_journal()  # still full

        assert sorted(p.name for p in disk.iterdir()) == ["filler", "journal.jsonl"]
        filler.unlink()
        assert window.document.retry_journal()
        assert editor.buffer.journal_error is None
        got = replay(disk / "journal.jsonl")
        assert got is not None and got.text == editor.text and got.pending == "and"
        assert window.document.save_as(disk / "document.txt")
        assert window.write_problem.isHidden()
        assert (disk / "document.txt").read_text(encoding="utf-8") == editor.text + "\n"


class FailingJournal(Journal):
    """Fault injection (an I/O error on every write while ``failing``), for what a tmpfs cannot
    show on every machine: an error that is not ENOSPC, and the retry timer's own path."""

    failing = False

    def append(self, record: dict[str, Any]) -> None:
        if self.failing:
            self.broken = True
            raise OSError(errno.EIO, "Input/output error (injected)")
        super().append(record)

    def reset(self, *args: Any, **kwargs: Any) -> None:
        if self.failing:
            raise OSError(errno.EIO, "Input/output error (injected)")
        super().reset(*args, **kwargs)


def test_an_io_error_keeps_the_sentence_and_the_timer_repairs_the_journal(
    tmp_path: Path, make_window: Any, qtbot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = FailingJournal(tmp_path / "j.jsonl")
    window = make_window(journal)
    window.document.retry_timer.setInterval(20)
    journal.failing = True
    window.events.dispatch(Finalized(0.1, 1, ["Kept in memory."], pending=""))
    assert window.editor.text == "Kept in memory."
    assert "Input/output error" in window.write_problem.label.text()
    labels = [b.text() for b in window.write_problem.buttons]
    assert labels == ["Save &As…", "Retry &now"]
    assert not window.write_problem.close_button.isVisible()  # persistent: no Dismiss
    journal.failing = False
    qtbot.waitUntil(lambda: window.editor.buffer.journal_error is None, timeout=2000)
    assert window.write_problem.isHidden() and not window.document.retry_timer.isActive()
    got = replay(tmp_path / "j.jsonl")
    assert got is not None and got.text == "Kept in memory."


def test_atomic_write_leaves_no_temporary_file_and_keeps_the_old_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "doc.txt"
    atomic_write(target, b"old\n")
    os.chmod(target, 0o640)

    def broken_replace(src: str, dst: str) -> None:  # fault injection: the rename fails
        raise OSError(errno.EROFS, "Read-only file system (injected)")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        atomic_write(target, b"new\n")
    monkeypatch.undo()
    assert target.read_bytes() == b"old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["doc.txt"]
    atomic_write(target, b"new\n")
    assert target.read_bytes() == b"new\n" and (target.stat().st_mode & 0o777) == 0o640
    fresh = tmp_path / "fresh.txt"
    atomic_write(fresh, b"x")
    umask = os.umask(0)
    os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask


def test_saving_through_a_symbolic_link_writes_the_file_it_points_to(tmp_path: Path) -> None:
    """Found in review: the rename used to replace the link itself, so the real file (a synced
    or version-controlled one) kept its old text while Save said it had saved."""
    real = tmp_path / "real" / "notes.txt"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write(link, b"new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert sorted(p.name for p in real.parent.iterdir()) == ["notes.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.txt", "real"]


def test_settings_that_cannot_be_written_say_so_and_keep_applying(
    tmp_path: Path, make_window: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    window = make_window(Journal(tmp_path / "j.jsonl"))
    window.save_settings_on_change = True

    def full(*args: Any, **kwargs: Any) -> None:  # fault injection: the disk is full
        raise OSError(errno.ENOSPC, "No space left on device (injected)")

    monkeypatch.setattr("dictate.ui.main_window.save_settings", full)
    window.bigger_action.trigger()  # View > Larger text: the font size is saved
    assert "Could not save the settings" in window.messages.label.text()
    assert window.settings.font_size == Settings().font_size + 1
    monkeypatch.undo()
    path = save_settings(window.settings, tmp_path / "settings.json")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []
    assert path.read_text(encoding="utf-8").endswith("\n")


def test_new_document_after_a_failure_clears_the_message_once_the_journal_works(
    tmp_path: Path, make_window: Any
) -> None:
    """File > New rewrites the journal: if that works, the message and the retries stop."""
    journal = FailingJournal(tmp_path / "j.jsonl")
    window = make_window(journal)
    journal.failing = True
    window.events.dispatch(Finalized(0.1, 1, ["Kept."], pending=""))
    assert window.document.retry_timer.isActive() and not window.write_problem.isHidden()
    window.document.load_text("", None)  # still failing: the message stays
    assert not window.write_problem.isHidden() and window.document.retry_timer.isActive()
    journal.failing = False
    window.document.load_text("Fresh.", None)
    assert window.write_problem.isHidden() and not window.document.retry_timer.isActive()
    got = replay(tmp_path / "j.jsonl")
    assert got is not None and got.text == "Fresh."


def test_a_save_failure_message_goes_with_its_document(tmp_path: Path, make_window: Any) -> None:
    """Found in review: after a failed save, File > New kept the banner "Could not save ...
    Your text is still here" above the new, empty document."""
    window = make_window(Journal(tmp_path / "j.jsonl"))
    QTest.keyClicks(window.editor, "Some text.")
    assert not window.document.save_as(tmp_path / "no-such-folder" / "notes.txt")
    assert not window.write_problem.isHidden()
    assert "Could not save" in window.write_problem.label.text()
    window.document.load_text("", None)  # what New does once the user chose to discard
    assert window.write_problem.isHidden()


def test_a_read_only_file_is_not_replaced(tmp_path: Path) -> None:
    """Found in review: the rename in a writable folder replaced a file its owner had made
    read-only. Mode 0444 refuses even root (who may write anything, as these tests run)."""
    target = tmp_path / "protected.txt"
    target.write_text("keep me\n")
    os.chmod(target, 0o444)
    with pytest.raises(PermissionError) as caught:
        atomic_write(target, b"new\n")
    assert caught.value.errno == errno.EACCES and caught.value.filename == str(target)
    assert target.read_text() == "keep me\n"
    assert [p.name for p in tmp_path.iterdir()] == ["protected.txt"]


def test_a_file_this_user_may_not_write_is_not_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Someone else's 0644 file in a shared writable folder. The tests run as root, for whom
    access() always says yes, so access() is faked to answer as it would for another user."""
    target = tmp_path / "theirs.txt"
    target.write_text("theirs\n")
    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode, **kw: False if Path(p) == target else real_access(p, mode)
    )
    with pytest.raises(PermissionError):
        atomic_write(target, b"mine\n")
    assert target.read_text() == "theirs\n"
    atomic_write(tmp_path / "mine.txt", b"mine\n")  # a new file in the same folder is fine


def test_ctrl_s_over_a_read_only_file_keeps_it_and_the_text(
    tmp_path: Path, make_window: Any
) -> None:
    window = make_window(Journal(tmp_path / "j.jsonl"))
    doc = tmp_path / "notes.txt"
    doc.write_text("Old text.\n")
    os.chmod(doc, 0o444)
    window.document.load_text("Old text.", doc)
    QTest.keyClicks(window.editor, " New words.")
    assert not window.document.save()
    assert doc.read_text() == "Old text.\n"
    message = window.write_problem.label.text()
    assert "Could not save" in message and "Save As" in message and "free some space" not in message
    assert window.editor.text == "Old text. New words." and window.document.modified
    copy = tmp_path / "notes-copy.txt"
    assert window.document.save_as(copy)
    assert copy.read_text() == "Old text. New words.\n" and window.write_problem.isHidden()


def test_the_journal_is_rewritten_even_when_a_strict_umask_made_it_read_only(
    tmp_path: Path,
) -> None:
    """The read-only guard is for the user's documents: under umask 0277 the journal used to be
    created 0400 (now it is 0600, private and writable, whatever the umask), and a journal left
    read-only by an older version must still be rewritten (File > New)."""
    old = os.umask(0o277)
    try:
        journal = Journal(tmp_path / "j.jsonl")
        journal.reset("first")
        assert (tmp_path / "j.jsonl").stat().st_mode & 0o777 == 0o600
        os.chmod(tmp_path / "j.jsonl", 0o400)
        journal.reset("second")
    finally:
        os.umask(old)
    got = replay(tmp_path / "j.jsonl")
    assert got is not None and got.text == "second"
