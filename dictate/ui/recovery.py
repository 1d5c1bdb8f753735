"""Crash recovery at start: asking whether to recover the journal's text, and keeping damaged
journals and text not recovered in ``kept/`` beside the journal (old copies cleaned up)."""

from __future__ import annotations

import contextlib
import logging
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dictate.editing.journal_replay import Recovered
from dictate.editing.journal_text import LOST

if TYPE_CHECKING:
    from dictate.ui.main_window import MainWindow

log = logging.getLogger("dictate.ui")


KEEP_COPIES_DAYS = 30
"""Copies of damaged journals and of text not recovered are deleted after this many days."""


def recovery_message(recovered: Recovered, kept: Path | None = None) -> str:
    """What the recovery question says, including what of a damaged journal could not be read."""
    words = len(recovered.full_text.split())
    counted = f"{words} word{'s' if words != 1 else ''}"
    message = (
        f"The autosave journal of your last session holds {counted}. Recover them?"
        if recovered.closed  # closed normally, but damaged since: what it held is unknown
        else f"dictate did not close normally last time. Recover the text you had ({counted})?"
    )
    if recovered.damaged:
        message += f"\n\nThe autosave journal is damaged ({recovered.problem})."
        if recovered.salvaged_records or recovered.missing_chars:
            n = recovered.salvaged_records
            message += (
                f" {n} damaged piece{'s' if n != 1 else ''} of the saved text "
                f"{'were' if n != 1 else 'was'} read around the damage"
            )
            if recovered.missing_chars:
                message += (
                    f"; {recovered.missing_chars:,} character"
                    f"{'s' if recovered.missing_chars != 1 else ''} could not be read"
                )
            message += f", and characters that could not be read are shown as {LOST}."
        if recovered.repaired_records:
            n = recovered.repaired_records
            message += (
                f" {n} damaged record{'s' if n != 1 else ''} (one changed byte each) "
                f"{'were' if n != 1 else 'was'} put back exactly by {'their' if n != 1 else 'its'}"
                " checksum."
            )
        if recovered.unread_records:
            n = recovered.unread_records
            message += (
                f" The last {n} change{'s' if n != 1 else ''} in it "
                f"({recovered.unread_bytes:,} of {recovered.total_bytes:,} bytes) could not be "
                "read, so the text offered is the text as it was before them."
            )
        if not (recovered.unread_records or recovered.salvaged_records or recovered.missing_chars):
            message += " Every change in it could still be read."
        if kept is not None:
            message += f" The damaged journal is kept as {kept}."
    return message


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _keep(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` as a new private file ``name`` in ``folder``, never over another one (a
    second copy in the same second gets a number)."""
    from dictate.fileio import PRIVATE_FILE, fsync_dir, private_dir

    private_dir(folder)
    stem, dot, suffix = name.partition(".")
    for n in range(1000):
        candidate = folder / (name if n == 0 else f"{stem}-{n}{dot}{suffix}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                candidate.unlink()
            raise
        fsync_dir(folder)
        return candidate
    raise FileExistsError(f"too many copies named {name} in {folder}")


def copies_folder(journal: Path) -> Path:
    """Where copies of damaged journals and of text not recovered are kept (beside it)."""
    return journal.parent / "kept"


def keep_damaged_journal(path: Path, recovered: Recovered | None) -> Path | None:
    """Copy a damaged journal aside before it is rewritten, with the time in its name (a later
    damaged start never overwrites it); None if intact or not copied."""
    if recovered is None or not recovered.damaged:
        return None
    try:
        from dictate.fileio import read_regular

        return _keep(copies_folder(path), f"damaged-{_stamp()}.jsonl", read_regular(path, None))
    except (OSError, ValueError) as exc:
        log.warning("could not keep a copy of the damaged journal %s: %s", path, exc)
        return None


def keep_declined_text(path: Path, recovered: Recovered) -> Path:
    """Keep the text the user chose not to recover ("No"), so that answer loses nothing.

    Raises:
        OSError: It could not be written.
    """
    return _keep(
        copies_folder(path), f"not-recovered-{_stamp()}.txt", recovered.full_text.encode("utf-8")
    )


def clean_up_copies(journal: Path, days: float = KEEP_COPIES_DAYS) -> None:
    """Delete the copies kept beside the journal that are older than ``days``."""
    folder = copies_folder(journal)
    limit = time.time() - days * 86400
    with contextlib.suppress(OSError):  # none yet, or the data folder is unusable (said later)
        for copy in folder.iterdir():
            with contextlib.suppress(OSError):
                if copy.is_file() and copy.stat().st_mtime < limit:
                    copy.unlink()
                    log.info("deleted %s, kept for %s days", copy, days)


def ask_to_recover(parent: object, recovered: Recovered, kept: Path | None = None) -> bool:
    from PySide6.QtWidgets import QMessageBox

    answer = QMessageBox.question(
        parent,  # type: ignore[arg-type]
        "Recover text",
        recovery_message(recovered, kept),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


def open_document_at_start(
    window: MainWindow,
    recovered: Recovered | None,
    ask: Callable[[object, Recovered], bool] = ask_to_recover,
    kept: Path | None = None,
) -> bool:
    """Offer to recover an unfinished document; returns whether it was recovered.

    The question comes whenever the journal held text that was not closed normally, and when it
    was damaged (then its last state is unknown: the text read is offered, or, if none could
    be read, the window says so and where the damaged journal is kept). "No" keeps a copy of
    the text it leaves, and the window says where.
    """
    if recovered is None or (recovered.closed and not recovered.damaged):
        window.document.load_text("", None)
        return False
    if not recovered.full_text.strip():
        window.document.load_text("", None)
        if recovered.damaged:
            where = f" It is kept as {kept}." if kept else ""
            window.messages.add_message(
                f"The autosave journal was damaged ({recovered.problem}) and no text could be "
                f"read from it.{where}"
            )
        return False
    if ask(window, recovered):
        _load_recovered(window, recovered)
        return True
    try:
        copy = keep_declined_text(window.journal.path, recovered)
    except OSError as exc:
        # Starting empty now would rewrite the journal, the only other place the text is.
        log.error("cannot keep the text that was not recovered: %s", exc)
        _load_recovered(window, recovered)
        window.messages.add_message(
            f"The text you did not recover could not be kept aside ({exc.strerror or exc}), so "
            "it is in the window after all: delete it yourself if you do not want it."
        )
        return True
    window.document.load_text("", None)
    window.messages.add_message(
        f"The text you did not recover is kept in {copy} for {KEEP_COPIES_DAYS} days."
    )
    return False


def _load_recovered(window: MainWindow, recovered: Recovered) -> None:
    window.document.load_text(recovered.full_text, Path(recovered.path) if recovered.path else None)
    window.document.modified = True
    window.document.update_title()
