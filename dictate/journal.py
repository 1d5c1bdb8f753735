"""The document journal: every change to the text, appended and fsynced, for crash recovery.

Format 2 (written since dictate 0.2): one record per line, ``<crc32> <json>``, where ``crc32`` is
eight hexadecimal digits of the CRC-32 of the JSON bytes, and every JSON object carries ``seq``,
counting up from 1 in each file. Positions count code points (Python string indices), never
Qt's UTF-16 units. Records:

* ``{"op": "reset", "text": ...}`` the document became exactly this text (start, New, Open, a
  compaction snapshot, or a rewrite after a failed write);
* ``{"op": "edit", "pos": N, "del": "...", "ins": "..."}`` at ``pos``, ``del`` was replaced by
  ``ins`` (a user edit, undo or redo);
* ``{"op": "final", "pos": N, "ins": "...", "pending": "...", "at": N}`` a finalized sentence was
  inserted at ``pos`` and *in the same record* the pending words became ``pending`` (shown at
  ``at``): a crash can fall before the record or after it, never between the sentence and the
  pending words that replace it, so recovery never repeats words;
* ``{"op": "pending", "text": ..., "at": N}`` the dictated words not yet final (shown greyed at
  ``at``), kept so a crash loses none of them;
* ``{"op": "path", "path": ...}`` the document's file, after Open or Save As;
* ``{"op": "closed"}`` the app closed normally: nothing to recover.

:meth:`Journal.append` writes the line, flushes and fsyncs before it returns. :func:`replay`
rebuilds the document. A record whose checksum, sequence number or content is wrong (random
damage, a line cut off by a crash or a full disk) ends the replay: the intact text before it is
recovered, and :class:`Recovered` says how many records and bytes after it could not be read.
Format 1 journals (plain JSON lines, positions as the old editor counted them) still replay.

A write that fails raises :class:`OSError` and leaves the journal *broken*: nothing more is
appended (a half-written line may be on disk) until :meth:`Journal.reset` has rewritten the
whole state, atomically, into a new file.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dictate.editing.text import fit_to_context
from dictate.fileio import atomic_write
from dictate.paths import user_data_dir

log = logging.getLogger("dictate.journal")

COMPACT_AFTER = 2000
"""Records after which the journal is rewritten as a single snapshot."""


_CRC = re.compile(rb"[0-9a-f]{8}")


def default_journal_path() -> Path:
    return user_data_dir() / "journal" / "document.jsonl"


@dataclass
class Recovered:
    """What a journal holds: the document, the pending words, and its file if it had one."""

    text: str
    pending: str
    path: str | None
    closed: bool
    """True if the app closed normally after the last change (nothing to recover)."""
    pending_at: int | None = None
    """Where the pending words were shown (None: at the end, as format 1 assumed)."""
    unread_records: int = 0
    """Records after a damaged one, the damaged one included, that could not be used."""
    unread_bytes: int = 0
    total_bytes: int = 0
    problem: str = ""
    """What was wrong with the first unreadable record (empty when all were read)."""

    @property
    def full_text(self) -> str:
        """The document with the pending words inserted where they were shown, as Stop would."""
        if not self.pending:
            return self.text
        at = (
            len(self.text)
            if self.pending_at is None
            else max(0, min(self.pending_at, len(self.text)))
        )
        before, after = self.text[:at], self.text[at:]
        return before + fit_to_context(self.pending, before, after) + after

    @property
    def damaged(self) -> bool:
        return self.unread_records > 0


class _Damaged(ValueError):
    pass


def _apply_edit(text: str, pos: int, removed: str, inserted: str) -> str:
    if not 0 <= pos <= len(text) or text[pos : pos + len(removed)] != removed:
        raise _Damaged(f"edit at {pos} does not match the document")
    return text[:pos] + inserted + text[pos + len(removed) :]


def encode_record(record: dict[str, Any]) -> bytes:
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"%08x " % zlib.crc32(body) + body + b"\n"


def _decode_v2(line: bytes) -> dict[str, Any]:
    if len(line) < 10 or line[8:9] != b" " or not _CRC.fullmatch(line[:8]):
        raise _Damaged("not a record")
    crc = int(line[:8], 16)
    body = line[9:]
    if zlib.crc32(body) != crc:
        raise _Damaged("checksum mismatch")
    try:
        record = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _Damaged(f"unreadable record ({exc})") from None
    if not isinstance(record, dict):
        raise _Damaged("not a record")
    return record


class _State:
    def __init__(self) -> None:
        self.text = ""
        self.pending = ""
        self.pending_at: int | None = None
        self.path: str | None = None
        self.closed = False

    def apply(self, op: dict[str, Any], version: int) -> None:
        kind = op["op"]
        if kind == "reset":
            self.text, self.pending, self.pending_at = _str(op["text"]), "", None
        elif kind == "edit":
            self.text = _apply_edit(
                self.text, _int(op["pos"]), _str(op.get("del", "")), _str(op.get("ins", ""))
            )
            if version >= 2 and "at" in op:
                self.pending_at = _at(op)
        elif kind == "final":
            self.text = _apply_edit(self.text, _int(op["pos"]), "", _str(op["ins"]))
            self.pending, self.pending_at = _str(op["pending"]), _at(op)
        elif kind == "pending":
            self.pending = _str(op["text"])
            self.pending_at = _at(op) if version >= 2 else None
        elif kind == "path":
            path = op.get("path")
            self.path = None if path is None else _str(path)
        elif kind == "closed":
            self.closed = True
            return
        else:
            raise _Damaged(f"unknown record {kind!r}")
        self.closed = False


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise _Damaged("a text field is not text")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Damaged("a position is not a number")
    return value


def _at(op: dict[str, Any]) -> int | None:
    at = op.get("at")
    return None if at is None else _int(at)


def replay(path: Path) -> Recovered | None:
    """Rebuild the document from the journal at ``path``; None if there is none."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    state = _State()
    lines = raw.split(b"\n")
    complete = raw.endswith(b"\n")
    offset = 0
    expected_seq = 1
    for index, line in enumerate(lines):
        last = index == len(lines) - 1
        if last and complete:
            break  # the empty string after the final newline
        size = len(line) + 1
        # A journal copied through a tool that wrote CRLF line ends: records never hold a raw
        # CR (JSON escapes it), so it is only the line end.
        line = line.removesuffix(b"\r")
        try:
            if not line.strip():
                if last:
                    break
                raise _Damaged("empty line")
            if last and not complete:
                raise _Damaged("the last record was cut off")
            if line.startswith(b"{"):  # format 1: no checksum, no sequence number
                op = json.loads(line)
                if not isinstance(op, dict):
                    raise _Damaged("not a record")
                state.apply(op, 1)
            else:
                op = _decode_v2(line)
                if op.get("seq") != expected_seq:
                    raise _Damaged(f"record {op.get('seq')} where {expected_seq} was expected")
                expected_seq += 1
                state.apply(op, 2)
        except (ValueError, KeyError, TypeError) as exc:
            rest = [x for x in lines[index:] if x.strip()]
            log.warning("journal %s: damaged at line %d (%s)", path, index + 1, exc)
            return Recovered(
                state.text,
                state.pending,
                state.path,
                False,
                state.pending_at,
                unread_records=len(rest),
                unread_bytes=len(raw) - offset,
                total_bytes=len(raw),
                problem=str(exc),
            )
        offset += size
    return Recovered(
        state.text,
        state.pending,
        state.path,
        state.closed,
        state.pending_at,
        total_bytes=len(raw),
    )


class Journal:
    """Appends records to the journal file, each one durable when :meth:`append` returns.

    Nothing touches the disk until the first :meth:`reset` (the window calls it when it loads a
    document), so a journal that cannot be written never stops the window from opening.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_journal_path()
        self._fh: Any = None
        self._seq = 0
        self._ops = 0
        self.broken = False
        """A write failed; appends raise until :meth:`reset` succeeds."""

    def append(self, record: dict[str, Any]) -> None:
        if self.broken or self._fh is None:
            raise OSError(f"the journal {self.path} must be rewritten before it is appended to")
        self._seq += 1
        line = encode_record({"seq": self._seq, **record})
        try:
            self._fh.write(line)
            self._fh.flush()
            os.fsync(self._fh.fileno())
        except OSError:
            self.broken = True
            raise
        self._ops += 1

    def reset(
        self, text: str, path: str | None = None, pending: str = "", at: int | None = None
    ) -> None:
        """Rewrite the file as exactly this state (New, Open, recovery, compaction, repair)."""
        records: list[dict[str, Any]] = [
            {"op": "reset", "text": text},
            {"op": "path", "path": path},
        ]
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
        self.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.path, data, keep_read_only=False)  # the app's own file
        self._fh = self.path.open("ab")
        self._seq = len(records)
        self._ops = 0
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
        return self._ops >= COMPACT_AFTER

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
