"""The dictation history: every finalized sentence, with its time and where it went (this
window, or the application typed into), and whether it arrived.

One record per line in the journal's format (:func:`dictate.editing.journal_records.encode_record`:
``<crc32> <json>``, the CRC-32 of the JSON bytes in eight hexadecimal digits)::

    {"op": "add", "id": "3f9a0c1b2d4e", "t": 1795000000.25, "to": "window", "status": "ok",
     "text": "We met at 9:30 a.m."}

``to`` is :data:`WINDOW`, the title of the window typed into, or :data:`OTHER_APP` where it
cannot be known; ``status`` is ``"ok"`` or ``"failed"`` (typing failed: the words were put in
this window instead).

Guarantees, as the autosave journal's:

* an entry is appended, flushed and fsynced before :meth:`History.add` returns;
* a record that is damaged (a flipped byte, a line cut off by a crash or a full disk) fails its
  checksum and is skipped; every other record is read. A line cut off at the end of the file is
  ended before the next record is appended, so it never damages that record;
* every rewrite (deleting an entry, clearing, dropping the oldest) writes the whole new file
  beside the old one and renames it over it (:func:`dictate.fileio.atomic_write`): a crash
  leaves the old history or the new one. Deleting an entry removes its words from the disk at
  once (no tombstone that would keep them until a later compaction);
* it is limited: entries older than ``keep_days`` and, past ``max_bytes``, the oldest are
  dropped (down to three quarters of it, so a full history is not rewritten at every sentence);
* the folder and the file are this user's only (0700, 0600): they hold what the user said.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dictate.editing.crc_repair import repair_line
from dictate.editing.journal_records import decode_record, encode_record
from dictate.fileio import (
    atomic_write,
    bounded_lines,
    open_private,
    open_regular,
    private_dir,
    seek_tail,
)
from dictate.paths import user_data_dir

WINDOW = "window"
"""Where a sentence went when it went into dictate's own editor."""
OTHER_APP = "other application"
"""Where a sentence typed into another application went when its window's title is unknown."""
OK, FAILED = "ok", "failed"


def default_history_path() -> Path:
    """``<user data folder>/history/history.jsonl``: on Linux
    ``~/.local/share/dictate/history/history.jsonl`` (``$XDG_DATA_HOME`` if set)."""
    return user_data_dir() / "history" / "history.jsonl"


@dataclass(frozen=True)
class Entry:
    """One finalized sentence (or several finalized at once)."""

    id: str
    time: float
    """When it was finalized: seconds since the epoch (UTC)."""
    target: str
    """:data:`WINDOW`, a window's title, or :data:`OTHER_APP`."""
    text: str
    status: str = OK
    """:data:`OK`, or :data:`FAILED`: typing it failed (it was put in the window instead)."""
    heard: str = ""
    """The text as recognised where the user's vocabulary rewrote words of it ("" : the same
    as ``text``)."""

    def record(self) -> dict[str, Any]:
        record = {
            "op": "add",
            "id": self.id,
            "t": self.time,
            "to": self.target,
            "status": self.status,
            "text": self.text,
        }
        if self.heard:
            record["heard"] = self.heard
        return record

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Entry:
        """Raises ValueError for a record that is not a well-formed entry."""
        values = [record.get(name) for name in ("id", "t", "to", "text", "status")]
        ident, when, target, text, status = values
        if record.get("op") != "add" or not all(
            isinstance(v, str) for v in (ident, target, text, status)
        ):
            raise ValueError("not a history entry")
        if not isinstance(when, (int, float)) or isinstance(when, bool):
            raise ValueError("not a history entry")
        heard = record.get("heard", "")
        if not isinstance(heard, str):
            raise ValueError("not a history entry")
        return cls(str(ident), float(when), str(target), str(text), str(status), heard)


@dataclass
class Read:
    """What a history file holds: its entries, oldest first, and the lines that were damaged."""

    entries: list[Entry]
    damaged: int = 0
    repaired: int = 0
    """Damaged lines read all the same: one byte of each was changed, and its checksum said
    which and what it held."""
    skipped_bytes: int = 0
    """Older history that was not read (past the reader's bound)."""


def read_history(path: Path, max_bytes: int | None = None) -> Read:
    """The entries of the history at ``path`` (none if there is no file), oldest first; damaged
    lines are skipped and counted, and a line cut off at the end (a crash while it was written)
    is dropped, unless only its line end is missing. Only the entries in its last ``max_bytes``
    bytes are read (None: all), and :attr:`Read.skipped_bytes` says how much older history was
    not.

    Raises:
        OSError: The file cannot be read, or is not a regular file.
    """
    try:
        fh = open_regular(path)
    except FileNotFoundError:
        return Read([])
    except ValueError as exc:  # UnreadableFile: a folder, a named pipe...
        raise OSError(str(exc)) from None
    read = Read([])
    with fh:
        read.skipped_bytes = seek_tail(fh, max_bytes)
        for raw in bounded_lines(fh):
            if raw is None:  # a line no record makes: damage
                read.damaged += 1
                continue
            if not raw.endswith(b"\n"):
                # Cut off while it was written: dropped, unless only its line end is missing
                # (its checksum holds: the whole record is there; the next add ends the line).
                try:
                    read.entries.append(Entry.from_record(decode_record(raw)))
                except ValueError:
                    read.damaged += bool(raw.strip())
                break
            line = raw[:-1].removesuffix(b"\r")
            if not line.strip():
                continue
            try:
                read.entries.append(Entry.from_record(decode_record(line)))
            except ValueError:
                entry = _repaired(line)
                if entry is None:
                    read.damaged += 1
                else:
                    read.entries.append(entry)
                    read.repaired += 1
    return read


def _repaired(line: bytes) -> Entry | None:
    """The entry of a damaged line whose one changed byte its checksum puts back, else None."""
    repaired = repair_line(line)
    if repaired is None:
        return None
    try:
        return Entry.from_record(decode_record(repaired))
    except ValueError:
        return None


class History:
    """The history file at ``path``: appended to, read, and rewritten atomically.

    Args:
        path: The file (default: :func:`default_history_path`).
        keep_days: Entries older than this are dropped (None: kept for ever).
        max_bytes: The file is kept under this size, the oldest entries dropped (None: no limit).
        clock: The time now, in seconds since the epoch (tests set it).
    """

    def __init__(
        self,
        path: Path | None = None,
        keep_days: float | None = 30,
        max_bytes: int | None = 10 * 2**20,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.path = path or default_history_path()
        self.keep_days = keep_days
        self.max_bytes = max_bytes
        self.clock = clock

    def entries(self) -> list[Entry]:
        """Every entry, oldest first (damaged records skipped); of a file far over
        ``max_bytes`` (written by something else, or the limit lowered), only the newest
        twice ``max_bytes``: the rest is past the limit, and the next compaction drops it."""
        bound = None if self.max_bytes is None else 2 * self.max_bytes
        return read_history(self.path, bound).entries

    def add(self, text: str, target: str = WINDOW, status: str = OK, heard: str = "") -> Entry:
        """Append an entry, durably; the history is compacted first if it is over its limits.
        ``heard``: the text as recognised, where the vocabulary rewrote words of it.

        Raises:
            OSError: It could not be written (the history holds what it held before, and at
                most a cut-off line that reading skips).
        """
        entry = Entry(
            secrets.token_hex(6),
            self.clock(),
            target or OTHER_APP,
            text,
            status,
            heard if heard != text else "",
        )
        line = encode_record(entry.record())
        private_dir(self.path.parent)
        self._end_cut_off_line()
        with open_private(self.path) as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        if self.max_bytes is not None and self._size() > self.max_bytes:
            self.compact()
        return entry

    def delete(self, ids: set[str] | str) -> int:
        """Remove entries by id, from the disk at once (an atomic rewrite); how many went."""
        gone = {ids} if isinstance(ids, str) else set(ids)
        entries = self.entries()
        kept = [e for e in entries if e.id not in gone]
        if len(kept) != len(entries):
            self._rewrite(kept)
        return len(entries) - len(kept)

    def clear(self) -> None:
        """Remove every entry: the file is deleted."""
        with contextlib.suppress(FileNotFoundError):
            os.unlink(self.path)

    def compact(self) -> None:
        """Drop the entries past the limits (and the damaged lines), atomically."""
        self._rewrite(self._within_limits(self.entries()))

    def prune(self) -> None:
        """:meth:`compact` if any entry is older than ``keep_days`` (the app calls it at start)."""
        entries = self.entries()
        if len(self._within_limits(entries)) != len(entries):
            self._rewrite(self._within_limits(entries))

    def _within_limits(self, entries: list[Entry]) -> list[Entry]:
        if self.keep_days is not None:
            oldest = self.clock() - self.keep_days * 86400
            entries = [e for e in entries if e.time >= oldest]
        if self.max_bytes is not None:
            sizes = [len(encode_record(e.record())) for e in entries]
            total, target, start = sum(sizes), self.max_bytes * 3 // 4, 0
            if total > self.max_bytes:
                while start < len(entries) and total > target:
                    total -= sizes[start]
                    start += 1
            entries = entries[start:]
        return entries

    def _rewrite(self, entries: list[Entry]) -> None:
        private_dir(self.path.parent)
        data = b"".join(encode_record(e.record()) for e in entries)
        atomic_write(self.path, data, keep_read_only=False, private=True)

    def _size(self) -> int:
        try:
            return self.path.stat().st_size
        except FileNotFoundError:
            return 0

    def _end_cut_off_line(self) -> None:
        """A record cut off by a crash at the end of the file gets its line end, so the next
        record starts a line of its own (and is read)."""
        size = self._size()
        if not size:
            return
        with open_regular(self.path) as fh:
            fh.seek(size - 1)
            last = fh.read(1)
        if last != b"\n":
            with open_private(self.path) as out:
                out.write(b"\n")


def search(entries: list[Entry], words: str) -> Iterator[Entry]:
    """The entries whose text or target holds ``words`` (case-insensitive; all of them)."""
    needle = words.casefold().strip()
    for entry in entries:
        if not needle or needle in entry.text.casefold() or needle in entry.target.casefold():
            yield entry
