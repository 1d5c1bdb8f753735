"""Replaying the journal (:mod:`dictate.editing.journal_records`): the document rebuilt from it
after a crash, with what could not be read.

:func:`replay` rebuilds the document. Damage (a flipped byte, a line cut off by a crash or a full
disk, a block of zeros) is found by the checksum and the sequence numbers. One changed byte in a
record, or one byte replaced by a line end that split the record in two, is put back exactly:
the checksum says which byte it was and what it held (:mod:`dictate.editing.crc_repair`). Damage
it cannot undo is handled so:

* in the snapshot (the text as it was at the start of the file), a damaged piece is read as far
  as it can be, around the bad bytes (:mod:`dictate.editing.journal_salvage`); a piece that
  cannot be read at all leaves a gap of :data:`~dictate.editing.journal_text.LOST` characters
  of its size, and the replay goes on. Since every recovery, Open and compaction puts the whole
  document there, one bad byte no longer costs the document;
* in a change after it, the replay ends there: the intact text before it is recovered (what
  follows depends on the damaged change). After damage was read around, a change may remove
  text that differs from the salvaged text in a few characters
  (:data:`~dictate.editing.journal_text.LENIENT_CHARS`).

:class:`Recovered` says what could not be read. Format 1 journals (plain JSON lines, positions
as the old editor counted them) still replay; a line without a checksum in a format-2 journal is
damage.
"""

from __future__ import annotations

import errno
import logging
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from dictate.editing.crc_repair import repair_byte, repair_split
from dictate.editing.journal_records import (
    DamagedRecord,
    checksum_of,
    decode_record,
    is_intact,
    parse_record,
)
from dictate.editing.journal_salvage import DAMAGE_SLACK, Salvage, fit, salvage
from dictate.editing.journal_text import LOST, PieceText
from dictate.editing.text import fit_to_context
from dictate.fileio import UnreadableFile, open_regular

log = logging.getLogger("dictate.editing.journal")

MAX_REPAIR_BYTES = 256 * 1024
"""Longest damaged record the checksum repairs (linear time in it; a snapshot piece is far
shorter)."""
_ZEROS_BEFORE_RECORD = re.compile(rb"\x00+(?=[0-9a-f]{8} \{)")


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
    """What was wrong with the records that could not be read (empty when all were read)."""
    salvaged_records: int = 0
    """Damaged records of the saved text that were read around their damage."""
    missing_chars: int = 0
    """Characters of the saved text that could not be read at all (shown as U+FFFD where
    text follows them)."""
    gaps: int = 0
    """Places where zero bytes stood between two records instead of a line end (part of the
    file was lost or overwritten); the records on both sides were read."""
    repaired_records: int = 0
    """Damaged records read exactly all the same: one byte of each was changed, or replaced by
    a line end, and the checksum said which and what it was."""

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
        return (
            self.unread_records > 0
            or self.salvaged_records > 0
            or self.missing_chars > 0
            or self.gaps > 0
            or self.repaired_records > 0
        )


class _State:
    def __init__(self) -> None:
        self.text = PieceText()
        self.pending = ""
        self.pending_at: int | None = None
        self.path: str | None = None
        self.closed = False
        self.version: int | None = None
        self.expected_seq = 1
        self.resync = False
        """A damaged snapshot record was read around: its sequence number is not known."""
        self.in_snapshot = False
        self.size: int | None = None
        self.piece: int | None = None
        self.header_damaged = False
        """The first record was read around damage: its size may be wrong."""
        self.salvaged = 0
        self.repaired = 0
        """Records whose one damaged byte the checksum put back."""
        self.gaps = 0  # zero bytes instead of a line end, read around
        self.missing = 0
        self.problems: list[str] = []

    @property
    def lenient(self) -> bool:
        return self.salvaged > 0 or self.missing > 0

    def decode(self, line: bytes) -> tuple[dict[str, Any], int]:
        if self.version is None:  # format 2 has its checksum first, even if its first byte is lost
            self.version = 1 if line.startswith(b"{") and line[8:10] != b" {" else 2
        if self.version == 1:  # format 1: no checksum, no sequence number
            op = parse_record(line)
            if not isinstance(op, dict):
                raise DamagedRecord("not a record")
            return op, 1
        if line.startswith(b"{"):
            raise DamagedRecord("a record without a checksum in a journal of format 2")
        op = decode_record(line)
        seq = op.get("seq")
        if self.resync and isinstance(seq, int) and seq >= self.expected_seq:
            self.expected_seq, self.resync = seq, False
        if seq != self.expected_seq:
            raise DamagedRecord(f"record {seq} where {self.expected_seq} was expected")
        self.expected_seq += 1
        return op, 2

    def apply(self, op: dict[str, Any], version: int) -> None:
        kind = op["op"]
        if kind == "reset":
            self.text.set(_str(op["text"]))
            self.pending, self.pending_at = "", None
            size = op.get("size")  # written since 0.3; before, the record held all the text
            self.size = _int(size) if size is not None else len(self.text)
            piece = op.get("piece")
            self.piece = _int(piece) if piece is not None else None
            self.in_snapshot = True
        elif kind == "more":
            if not self.in_snapshot:
                raise DamagedRecord("a piece of a snapshot after the snapshot")
            self._place(_int(op["at"]))
            self.text.append(_str(op["text"]))
            if self.header_damaged and self.piece and len(_str(op["text"])) < self.piece:
                self.size = len(self.text)  # an intact last piece: the text's true end
        else:
            self._end_snapshot()
            self._apply_change(kind, op, version)
            return
        self.closed = False

    def _apply_change(self, kind: str, op: dict[str, Any], version: int) -> None:
        if kind == "edit":
            self.text.replace(
                _int(op["pos"]), _str(op.get("del", "")), _str(op.get("ins", "")), self.lenient
            )
            if version >= 2 and "at" in op:
                self.pending_at = _at(op)
        elif kind == "final":
            self.text.replace(_int(op["pos"]), "", _str(op["ins"]), self.lenient)
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
            raise DamagedRecord(f"unknown record {kind!r}")
        self.closed = False

    def _place(self, at: int) -> None:
        """Put the next snapshot piece at ``at``: a gap left by a piece that could not be read
        is filled with :data:`LOST`; a piece read too long (damaged bytes decoded as several
        characters) is cut back."""
        if at > len(self.text):
            self.missing += at - len(self.text)
            self.text.append(LOST * (at - len(self.text)))
        elif at < len(self.text):
            self.text.truncate(at)

    def _end_snapshot(self) -> None:
        if self.in_snapshot and self.size is not None and self.lenient:
            self._place(self.size)  # the records after it count positions in the whole text
        self.in_snapshot = False

    def finish(self) -> None:
        """The end of the file: a snapshot cut short is kept as far as it goes (nothing follows
        whose positions need the rest)."""
        if self.in_snapshot and self.size is not None and len(self.text) < self.size:
            self.missing += self.size - len(self.text)
            self.problems.append("the end of the saved text is missing")
        self.in_snapshot = False

    def _header_fits(self, found: Salvage) -> bool:
        """Whether the first record's size and piece agree with the length of its text (a
        damaged byte changes that length by a few characters at most)."""
        if self.size is None:
            return True
        want = self.size if self.piece is None else min(self.piece, self.size)
        return abs(len(found.text) - want) <= DAMAGE_SLACK

    def _fitted(self, found: Salvage, at: int, cut: bool) -> str:
        """The text of a salvaged piece at ``at``, at its length where the header tells it (a
        piece cut off by the end of the file keeps what it has)."""
        if cut or self.size is None or self.piece is None or at >= self.size:
            return found.text
        return fit(found.text, min(self.piece, self.size - at))

    def salvage(self, line: bytes, why: str, cut: bool) -> bool:
        """Read a damaged record of the snapshot around its damage; False if it is not one (a
        damaged change ends the replay: what comes after it depends on it)."""
        first = self.expected_seq == 1 and not self.in_snapshot
        if self.version == 1 or not (first or self.in_snapshot):
            return False
        if not first and self.size is not None and len(self.text) >= self.size:
            return False  # the snapshot is whole: this was a change
        found = salvage(line)
        if first:  # the record that holds the start of the text (all of it, written by 0.2)
            self.header_damaged = True
            self.size = found.size if found else None
            self.piece = found.piece if found else None
            if found is not None and not cut and not self._header_fits(found):
                # A damaged digit or a brace in the size or piece field: what the text itself
                # shows wins (the pieces after it place themselves by their own "at").
                whole = self.piece is None or len(found.text) < self.piece - DAMAGE_SLACK
                self.size, self.piece = None, (None if whole else self.piece)
            self.text.set(self._fitted(found, 0, cut) if found else "")
            self.in_snapshot = True
        elif found is None or (self.size is None and not found.snapshot):
            if self.size is None:
                return False  # nothing says this was a piece of the text
            # A piece that cannot be read at all: the next one's place leaves its gap.
        else:
            at = found.at
            if at is not None and self.piece and len(self.text) % self.piece == 0:
                at = len(self.text)  # whole pieces so far: this one's place, whatever it says
            if at is not None:
                self._place(at)
            self.text.append(self._fitted(found, len(self.text), cut))
        self.salvaged += 1
        self.expected_seq += 1
        self.resync = True
        self.problems.append(why)
        return True


def _str(value: Any) -> str:
    if not isinstance(value, str):
        raise DamagedRecord("a text field is not text")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise DamagedRecord("a position is not a number")
    return value


def _at(op: dict[str, Any]) -> int | None:
    at = op.get("at")
    return None if at is None else _int(at)


def _open_journal(path: Path) -> BinaryIO | None:
    """The journal, open for reading, if it is a regular file (a named pipe would hang the
    start); None if there is none."""
    try:
        return open_regular(path)
    except FileNotFoundError:
        return None
    except UnreadableFile as exc:  # the callers handle OSError: an unusable journal file
        raise OSError(errno.EINVAL, str(exc), str(path)) from None


def _lines(fh: BinaryIO) -> Iterator[tuple[int, bytes, bool, bool]]:
    """The records of the file: (bytes it took, the line, whether a line end followed it,
    whether zero bytes stood before it instead of a line end).

    A journal copied through a tool that wrote CRLF line ends: records never hold a raw CR
    (JSON escapes it), so it is only the line end. Zeros where a line end was (a lost block)
    would join two records: where a record starts right after zeros, it is a line of its own.
    """
    for raw in fh:
        complete = raw.endswith(b"\n")
        line = raw[:-1].removesuffix(b"\r") if complete else raw
        if b"\x00" not in line:
            yield len(raw), line, complete, False
            continue
        parts = _ZEROS_BEFORE_RECORD.split(line)
        for number, part in enumerate(parts[:-1]):
            yield 0, part, True, number > 0
        yield len(raw), parts[-1], complete, len(parts) > 1


def replay(path: Path) -> Recovered | None:
    """Rebuild the document from the journal at ``path``; None if there is none.

    Linear in the journal's size, with memory for the document and one record: the file is read
    a line at a time, and the document is kept in pieces (:class:`PieceText`).

    Raises:
        OSError: The journal cannot be read, or is not a regular file.
    """
    fh = _open_journal(path)
    if fh is None:
        return None
    with fh:
        total = os.fstat(fh.fileno()).st_size
        state = _State()
        offset = 0
        lines = _Lookahead(_lines(fh))
        for index, (size, line, complete, after_zeros) in enumerate(lines):
            if after_zeros:  # a line end was lost: the file is damaged, though this reads
                state.gaps += 1
                state.problems.append("zero bytes where a line end was")
            try:
                if not line.strip():
                    if not complete:
                        break  # the end of the file
                    raise DamagedRecord("empty line")
                if not complete:
                    raise DamagedRecord("the last record was cut off")
                try:
                    if b"\x00" in line:
                        raise DamagedRecord(
                            "zero bytes where a record was (a block of the file was lost)"
                        )
                    op, version = state.decode(line)
                except DamagedRecord as exc:
                    repaired = _repair(line, lines, state)
                    if repaired is None:
                        raise
                    line, taken = repaired
                    size += taken
                    op, version = state.decode(line)
                    state.repaired += 1
                    state.problems.append(f"{exc}: one byte put back by the checksum")
                    log.warning("journal %s: line %d damaged (%s), repaired", path, index + 1, exc)
                state.apply(op, version)
            except (ValueError, KeyError, TypeError) as exc:
                if state.salvage(line, str(exc), cut=not complete):
                    log.warning(
                        "journal %s: line %d damaged (%s), read around", path, index + 1, exc
                    )
                    offset += size
                    continue
                log.warning("journal %s: damaged at line %d (%s)", path, index + 1, exc)
                unread = 1 + lines.left() + sum(1 for rest in fh if rest.strip())
                return _recovered(state, unread, total - offset, total, str(exc))
            offset += size
    return _recovered(state, 0, 0, total, "")


class _Lookahead:
    """The journal's lines, with the next one in view (:func:`_repair` may join it)."""

    def __init__(self, lines: Iterator[tuple[int, bytes, bool, bool]]) -> None:
        self._lines = lines
        self._next: tuple[int, bytes, bool, bool] | None = None

    def __iter__(self) -> Iterator[tuple[int, bytes, bool, bool]]:
        return self

    def __next__(self) -> tuple[int, bytes, bool, bool]:
        if self._next is not None:
            line, self._next = self._next, None
            return line
        return next(self._lines)

    def peek(self) -> tuple[int, bytes, bool, bool] | None:
        if self._next is None:
            self._next = next(self._lines, None)
        return self._next

    def take(self) -> int:
        """Take the line in view; the bytes it took."""
        taken = self.peek()
        self._next = None
        return taken[0] if taken is not None else 0

    def left(self) -> int:
        """1 if a line is in view and not empty (it is not read again), else 0."""
        return int(self._next is not None and bool(self._next[1].strip()))


def _repair(line: bytes, lines: _Lookahead, state: _State) -> tuple[bytes, int] | None:
    """``line`` as it was written where one of its bytes was changed, or replaced by a line end
    that split it from the next line (which is then taken): its checksum says which byte and
    what it was (:mod:`dictate.editing.crc_repair`). The line and the bytes of the next line
    taken with it; None where no single byte explains the damage (then it is read around)."""
    crc, body = checksum_of(line), line[9:]
    if state.version == 1 or crc is None or len(body) > MAX_REPAIR_BYTES:
        return None
    fixed = repair_byte(body, crc)
    if fixed is not None and fixed != body:
        return line[:9] + fixed, 0
    following = lines.peek()
    if following is None or not following[2] or following[3] or is_intact(following[1]):
        return None
    joined = repair_split(body, following[1], crc)
    if joined is None:
        return None
    return line[:9] + joined, lines.take()


def _recovered(
    state: _State, unread: int, unread_bytes: int, total: int, problem: str
) -> Recovered:
    state.finish()
    problems = [*state.problems, *([problem] if problem else [])]
    return Recovered(
        str(state.text),
        state.pending,
        state.path,
        state.closed and not unread,
        state.pending_at,
        unread_records=unread,
        unread_bytes=unread_bytes,
        total_bytes=total,
        problem="; ".join(dict.fromkeys(problems)),
        salvaged_records=state.salvaged,
        missing_chars=state.missing,
        gaps=state.gaps,
        repaired_records=state.repaired,
    )
