"""The document journal: every change to the text, appended and fsynced, for crash recovery.

The journal is one file format, in five modules: its records, which it specifies
(:mod:`dictate.editing.journal_records`), the writer here (:class:`Journal`), and the replay that
rebuilds the document after a crash (:func:`dictate.editing.journal_replay.replay`), reading
damaged records around their damage (:mod:`dictate.editing.journal_salvage`) into a document
kept in pieces (:mod:`dictate.editing.journal_text`).

:meth:`Journal.append` writes the line, flushes and fsyncs before it returns. A write that fails
raises :class:`OSError` and leaves the journal *broken*: nothing more is appended (a half-written
line may be on disk) until :meth:`Journal.reset` has rewritten the whole state, atomically, into
a new file.
"""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path
from typing import Any

from dictate.editing.journal_records import encode_record, snapshot_records
from dictate.fileio import atomic_write, names_open_file, open_private, private_dir
from dictate.paths import user_data_dir

COMPACT_AFTER = 2000
"""Records after which the journal is rewritten as a single snapshot."""
COMPACT_BYTES = 4 * 1024 * 1024
"""Bytes of records after which the journal is rewritten, if they outweigh its snapshot."""


def default_journal_path() -> Path:
    """Where the app keeps its journal: ``journal/document.jsonl`` in the user data folder."""
    return user_data_dir() / "journal" / "document.jsonl"


class Journal:
    """Appends records to the journal file, each one durable when :meth:`append` returns.

    Nothing touches the disk until the first :meth:`reset` (the window calls it when it loads a
    document), so a journal that cannot be written never stops the window from opening. The
    folder and the file are this user's only (0700, 0600): they hold what the user said.

    Before each record, the open file is compared with the path: if the file was deleted or
    replaced (the data folder removed, its filesystem unmounted), the append fails with an
    :class:`OSError` (``ENOENT`` or ``ESTALE``), as a failed write does, instead of writing to a
    file nobody will read; :meth:`reset` then makes the folder and the file again.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_journal_path()
        self._fh: Any = None
        self._seq = 0
        self._ops = 0
        self._bytes = 0
        self._snapshot_bytes = 0
        self.broken = False
        """A write failed; appends raise until :meth:`reset` succeeds."""

    def append(self, record: dict[str, Any]) -> None:
        if self.broken or self._fh is None:
            raise OSError(f"the journal {self.path} must be rewritten before it is appended to")
        line = encode_record({"seq": self._seq + 1, **record})
        try:
            self._check_same_file()
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError:
            self.broken = True
            raise
        self._seq += 1
        self._ops += 1
        self._bytes += len(line)

    def _check_same_file(self) -> None:
        """Raise if the path no longer names the open file (one stat: cheap beside the fsync)."""
        if names_open_file(self.path, self._fh):
            return
        if not self.path.exists():
            raise FileNotFoundError(
                errno.ENOENT, "the autosave file was deleted while dictate ran", str(self.path)
            )
        raise OSError(
            errno.ESTALE, "the autosave file was replaced while dictate ran", str(self.path)
        )

    def reset(
        self, text: str, path: str | None = None, pending: str = "", at: int | None = None
    ) -> None:
        """Rewrite the file as exactly this state (New, Open, recovery, compaction, repair); the
        text in pieces (:func:`snapshot_records`), so damage costs a piece of it, not all."""
        records = [*snapshot_records(text), {"op": "path", "path": path}]
        if pending:
            records.append({"op": "pending", "text": pending, "at": at})
        data = b"".join(
            encode_record({"seq": i, **record}) for i, record in enumerate(records, start=1)
        )
        self.broken = True  # until the new file is in place and open
        if self._fh is not None:
            with contextlib.suppress(OSError):
                self._fh.close()
            self._fh = None
        private_dir(self.path.parent)
        # The app's own file: a strict umask may have made it read-only; it is private either way.
        atomic_write(self.path, data, keep_read_only=False, private=True)
        self._fh = open_private(self.path)
        self._seq = len(records)
        self._ops = 0
        self._bytes = 0
        self._snapshot_bytes = len(data)
        self.broken = False

    def edit(self, pos: int, removed: str, inserted: str) -> None:
        self.append({"op": "edit", "pos": pos, "del": removed, "ins": inserted})

    def final(self, pos: int, inserted: str, pending: str, at: int) -> None:
        self.append({"op": "final", "pos": pos, "ins": inserted, "pending": pending, "at": at})

    def pending(self, text: str, at: int | None = None) -> None:
        self.append({"op": "pending", "text": text, "at": at})

    def set_path(self, path: str | None) -> None:
        self.append({"op": "path", "path": path})

    @property
    def needs_compaction(self) -> bool:
        """After :data:`COMPACT_AFTER` records, or sooner when the records appended outweigh
        the snapshot (:data:`COMPACT_BYTES` at least): replay reads every byte, so the journal is
        kept within a few times the document's size."""
        return self._ops >= COMPACT_AFTER or self._bytes > max(COMPACT_BYTES, self._snapshot_bytes)

    def close(self, clean: bool = True) -> None:
        """Close the file; ``clean`` marks a normal exit (nothing to recover next time)."""
        if self._fh is None:
            return
        try:
            if clean and not self.broken:
                self.append({"op": "closed"})
        finally:
            try:
                self._fh.close()
            finally:
                self._fh = None
