"""The document journal: every change to the text, appended and fsynced, for crash recovery.

Format 2 (written since dictate 0.2): one record per line, ``<crc32> <json>``, where ``crc32`` is
eight hexadecimal digits of the CRC-32 of the JSON bytes, and every JSON object carries ``seq``,
counting up from 1 in each file. Positions count code points (Python string indices), never
Qt's UTF-16 units. Records:

* ``{"op": "reset", "size": N, "piece": P, "text": ...}`` the document became exactly this
  text (start, New, Open, a compaction snapshot, or a rewrite after a failed write), of ``size``
  code points: the record holds the first ``piece`` (:data:`SNAPSHOT_PIECE`) of them, and
  ``{"op": "more", "at": N, "text": ...}`` records right after it the rest, a piece each
  (journals before 0.3 held the whole text in the one record, without ``size``);
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
rebuilds the document. Damage (a flipped byte, a line cut off by a crash or a full disk, a block
of zeros) is found by the checksum and the sequence numbers. One changed byte in a record, or
one byte replaced by a line end that split the record in two, is put back exactly: the
checksum says which byte it was and what it held (:mod:`dictate.editing.crc_repair`). Damage
it cannot undo is handled so:

* in the snapshot (the text as it was at the start of the file), a damaged piece is read as far
  as it can be, around the bad bytes; a piece that cannot be read at all leaves a gap of
  :data:`LOST` characters of its size, and the replay goes on. Since every recovery, Open and
  compaction puts the whole document there, one bad byte no longer costs the document;
* in a change after it, the replay ends there: the intact text before it is recovered (what
  follows depends on the damaged change). After damage was read around, a change may remove
  text that differs from the salvaged text in a few characters (:data:`LENIENT_CHARS`).

:class:`Recovered` says what could not be read. Format 1 journals (plain JSON lines, positions
as the old editor counted them) still replay; a line without a checksum in a format-2 journal is
damage.

A write that fails raises :class:`OSError` and leaves the journal *broken*: nothing more is
appended (a half-written line may be on disk) until :meth:`Journal.reset` has rewritten the
whole state, atomically, into a new file.

Size: one file format. The writer and the replay must agree on every record, and the replay's
damage handling on what a cut-off or corrupted line can hold; this docstring specifies them all.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from dictate.editing.crc_repair import repair_byte, repair_split
from dictate.editing.text import fit_to_context
from dictate.fileio import (
    UnreadableFile,
    atomic_write,
    check_json_depth,
    open_private,
    open_regular,
    private_dir,
)
from dictate.paths import user_data_dir

log = logging.getLogger("dictate.editing.journal")

COMPACT_AFTER = 2000
"""Records after which the journal is rewritten as a single snapshot."""
COMPACT_BYTES = 4 * 1024 * 1024
"""Bytes of records after which the journal is rewritten, if they outweigh its snapshot."""


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


class _Damaged(ValueError):
    pass


SNAPSHOT_PIECE = 16_384
"""Code points of the document per snapshot record: a damaged byte costs at most this much of the
text (and is read around), never the whole document."""

MAX_REPAIR_BYTES = 256 * 1024
"""Longest damaged record the checksum repairs (linear time in it; a snapshot piece is far
shorter)."""
MAX_RECORD_DEPTH = 4
"""Records are flat objects; a line nested deeper is damage (and would crash the JSON parser)."""

_PIECE = 4096
LOST = "\ufffd"
"""Shown for characters that could not be read where text follows them (positions after them
must stay right for the records that follow)."""


class _Text:
    """The document being rebuilt, as a list of pieces of up to 2 x :data:`_PIECE` characters,
    with a Fenwick tree of their lengths to find the piece of a position in log time: an edit
    costs its piece, never a copy of the whole document. With one string, replaying 2,000 edits
    of a 100 MB document copied it 2,000 times (161 s, 4.4 GB)."""

    def __init__(self) -> None:
        self._pieces: list[str] = []
        self._tree: list[int] | None = None  # None: to be built (after appends or a split)
        self.length = 0

    def __len__(self) -> int:
        return self.length

    def __str__(self) -> str:
        return "".join(self._pieces)

    def set(self, text: str) -> None:
        self._pieces, self.length = [], 0
        self.append(text)

    def append(self, text: str) -> None:
        self._pieces += [text[i : i + _PIECE] for i in range(0, len(text), _PIECE)]
        self.length += len(text)
        self._tree = None

    def truncate(self, size: int) -> None:
        if size < self.length:
            self.set(str(self)[:size])

    def _built(self) -> list[int]:
        if self._tree is None:
            tree = [0] * (len(self._pieces) + 1)
            for i, piece in enumerate(self._pieces, start=1):
                tree[i] += len(piece)
                parent = i + (i & -i)
                if parent < len(tree):
                    tree[parent] += tree[i]
            self._tree = tree
        return self._tree

    def _grow(self, index: int, delta: int) -> None:
        tree = self._built()
        i = index + 1
        while i < len(tree):
            tree[i] += delta
            i += i & -i

    def _locate(self, pos: int) -> tuple[int, int]:
        """The piece holding ``pos`` (the last one for the end) and where it starts."""
        tree = self._built()
        index, start = 0, 0
        step = 1 << (len(tree).bit_length() - 1)
        while step:  # the last piece whose start is at most pos, by descending the tree
            nxt = index + step
            if nxt < len(tree) and start + tree[nxt] <= pos:
                index, start = nxt, start + tree[nxt]
            step >>= 1
        if index == len(self._pieces):  # pos is the end: in the last piece
            index -= 1
            start -= len(self._pieces[index])
        return index, start

    def replace(self, pos: int, removed: str, inserted: str, lenient: bool) -> None:
        """Replace ``removed`` at ``pos`` with ``inserted``; ``lenient``: damage was read around,
        and ``removed`` may differ a little from the text (:func:`_matches`)."""
        if not 0 <= pos <= self.length or pos + len(removed) > self.length:
            raise _Damaged(f"edit at {pos} does not match the document")
        if not self._pieces:
            self._pieces.append("")
            self._tree = None
        i, start = self._locate(pos)
        j, end = i, start + len(self._pieces[i])
        while end < pos + len(removed):
            j += 1
            end += len(self._pieces[j])
        joined = "".join(self._pieces[i : j + 1])
        at = pos - start
        current = joined[at : at + len(removed)]
        if current != removed and not (lenient and _matches(current, removed)):
            raise _Damaged(f"edit at {pos} does not match the document")
        new = joined[:at] + inserted + joined[at + len(removed) :]
        delta = len(inserted) - len(removed)
        if i == j and len(new) <= 2 * _PIECE:
            self._pieces[i] = new
            self._grow(i, delta)
        else:
            self._pieces[i : j + 1] = [new[k : k + _PIECE] for k in range(0, len(new), _PIECE)] or [
                ""
            ]
            self._tree = None
        self.length += delta


LENIENT_CHARS = 2
"""After damage was read around, the characters a change's removed text may differ in from the
document (the salvaged text may hold a changed character the user later deleted)."""


def _matches(current: str, removed: str) -> bool:
    """Whether ``removed`` may be taken out where ``current`` is, after damage was read around:
    the same length, equal but for characters that could not be read (:data:`LOST`) and at most
    :data:`LENIENT_CHARS` others (a damaged byte read as another character)."""
    if len(current) != len(removed):
        return False
    wrong = sum(a != b and a != LOST for a, b in zip(current, removed, strict=True))
    return wrong <= LENIENT_CHARS


def encode_record(record: dict[str, Any]) -> bytes:
    body = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"%08x " % zlib.crc32(body) + body + b"\n"


def snapshot_records(text: str) -> list[dict[str, Any]]:
    """The document as records of at most :data:`SNAPSHOT_PIECE` code points, the text last in
    each (so it can be read up to a damaged byte): ``reset`` with the whole ``size``, then
    ``more`` with where each piece goes (so a piece that cannot be read leaves a gap of the right
    size, and the records after it still apply)."""
    records: list[dict[str, Any]] = [
        {"op": "reset", "size": len(text), "piece": SNAPSHOT_PIECE, "text": text[:SNAPSHOT_PIECE]}
    ]
    records += [
        {"op": "more", "at": at, "text": text[at : at + SNAPSHOT_PIECE]}
        for at in range(SNAPSHOT_PIECE, len(text), SNAPSHOT_PIECE)
    ]
    return records


def _parse(body: bytes) -> Any:
    """JSON of one record, its nesting checked first (bytes.count is fast; the exact depth is
    counted only when there are brackets enough to matter)."""
    if body.count(b"{") + body.count(b"[") > MAX_RECORD_DEPTH:
        try:
            check_json_depth(body.decode("utf-8"), MAX_RECORD_DEPTH, "the record")
        except (UnicodeDecodeError, UnreadableFile) as exc:
            raise _Damaged(str(exc)) from None
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise _Damaged(f"unreadable record ({exc})") from None


def _decode_v2(line: bytes) -> dict[str, Any]:
    if len(line) < 10 or line[8:9] != b" " or not _CRC.fullmatch(line[:8]):
        raise _Damaged("not a record")
    crc = int(line[:8], 16)
    body = line[9:]
    if zlib.crc32(body) != crc:
        raise _Damaged("checksum mismatch")
    record = _parse(body)
    if not isinstance(record, dict):
        raise _Damaged("not a record")
    return record


def decode_record(line: bytes) -> dict[str, Any]:
    """One record written by :func:`encode_record` (without its line end), its checksum checked.

    Raises:
        ValueError: The line is damaged: no checksum, a checksum that does not match, or not a
            JSON object.
    """
    return _decode_v2(line)


# A damaged snapshot record, read as far as it goes: the text field is last, and its name has
# four letters (one of them may be the damaged byte).
_TEXT_FIELD = re.compile(rb'"(?!size)[^"]{4}":"')  # not "size" with its colon's quote lost
_AT_FIELD = re.compile(rb'"at":(\d{1,15})[,}]')
_SIZE_FIELD = re.compile(rb'"size":(\d{1,15})[,}]')
_PIECE_FIELD = re.compile(rb'"piece":(\d{1,15})[,}]')
_SNAPSHOT_OP = re.compile(rb'"op":"(?:more|reset)"')
_ZEROS = re.compile(rb"\x00+")
_DAMAGE_SLACK = 8
"""Characters by which a damaged byte can change a piece's decoded length (an escape broken,
undecodable bytes replaced)."""
_LOST_UTF8 = LOST.encode("utf-8")
_ZEROS_BEFORE_RECORD = re.compile(rb"\x00+(?=[0-9a-f]{8} \{)")
_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))', re.DOTALL)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass
class _Salvage:
    text: str
    at: int | None
    size: int | None
    piece: int | None
    snapshot: bool
    """The record says it is part of a snapshot (its op could be read)."""


def _salvage(line: bytes) -> _Salvage | None:
    """The text of a damaged record, as far as it can be read: zero bytes (a block the
    filesystem lost) and undecodable bytes as :data:`LOST`. None if it holds none."""
    raw, line = line, _ZEROS.sub(lambda zeros: _LOST_UTF8 * len(zeros.group()), line)
    head = line[:120]
    at, size, piece = _AT_FIELD.search(head), _SIZE_FIELD.search(head), _PIECE_FIELD.search(head)
    snapshot = _SNAPSHOT_OP.search(head) is not None
    brace = line.find(b"{")
    if brace >= 0:  # a changed letter may leave valid JSON: only the checksum caught it
        try:
            record = _parse(line[brace:])
        except _Damaged:
            record = None
        if isinstance(record, dict) and isinstance(record.get("text"), str):
            fields = [record.get(name) for name in ("at", "size", "piece")]
            at_value, size_value, piece_value = (v if isinstance(v, int) else None for v in fields)
            return _Salvage(
                record["text"],
                at_value,
                size_value,
                piece_value,
                record.get("op") in ("more", "reset"),
            )
    field = _TEXT_FIELD.search(head)
    if field is not None:
        rest = line[field.end() :]
    else:
        # The damage is in the field's name or its quotes: it is still the 8 bytes after the
        # last field read before it, its comma included (counted in the bytes as they are: a
        # zero byte there stands for one byte of the name).
        raw_head = raw[:120]
        found_fields = (
            pattern.search(raw_head) for pattern in (_AT_FIELD, _SIZE_FIELD, _PIECE_FIELD)
        )
        ends = [m.end() for m in found_fields if m is not None]
        start = max(ends, default=len(raw)) + len(b'"text":"')
        if start > len(raw):
            return None
        rest = _ZEROS.sub(lambda zeros: _LOST_UTF8 * len(zeros.group()), raw[start:])
    rest = rest[:-2] if rest.endswith(b'"}') else rest.rstrip(b"\\")
    text = _ESCAPE.sub(_unescape, rest.decode("utf-8", errors="replace"))
    return _Salvage(
        text,
        int(at.group(1)) if at else None,
        int(size.group(1)) if size else None,
        int(piece.group(1)) if piece else None,
        snapshot,
    )


def _fit(text: str, length: int) -> str:
    """A piece read around damage, made its known length: damaged bytes decode to more or fewer
    characters than they were. The difference is taken or given where the damage is (the first
    :data:`LOST`), so the rest of the piece stays in place; at its end if none shows."""
    at = text.find(LOST)
    if len(text) > length:
        extra = len(text) - length
        if at >= 0:  # the LOST characters near the damage (a few bytes apart) are the extra ones
            window = text[at : at + extra + 8]
            kept = []
            for char in window:
                if char == LOST and extra:
                    extra -= 1
                else:
                    kept.append(char)
            text = text[:at] + "".join(kept) + text[at + len(window) :]
        return text[:length]
    if len(text) < length:
        gap = LOST * (length - len(text))
        return text + gap if at < 0 else text[:at] + gap + text[at:]
    return text


def _unescape(match: re.Match[str]) -> str:
    if match.group(1):
        return chr(int(match.group(1), 16))
    if match.group(2):
        return _ESCAPES.get(match.group(2), match.group(2))
    return LOST + match.group(3)  # not an escape: the backslash is the damage


class _State:
    def __init__(self) -> None:
        self.text = _Text()
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
            op = _parse(line)
            if not isinstance(op, dict):
                raise _Damaged("not a record")
            return op, 1
        if line.startswith(b"{"):
            raise _Damaged("a record without a checksum in a journal of format 2")
        op = _decode_v2(line)
        seq = op.get("seq")
        if self.resync and isinstance(seq, int) and seq >= self.expected_seq:
            self.expected_seq, self.resync = seq, False
        if seq != self.expected_seq:
            raise _Damaged(f"record {seq} where {self.expected_seq} was expected")
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
                raise _Damaged("a piece of a snapshot after the snapshot")
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
            raise _Damaged(f"unknown record {kind!r}")
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

    def _header_fits(self, found: _Salvage) -> bool:
        """Whether the first record's size and piece agree with the length of its text (a
        damaged byte changes that length by a few characters at most)."""
        if self.size is None:
            return True
        want = self.size if self.piece is None else min(self.piece, self.size)
        return abs(len(found.text) - want) <= _DAMAGE_SLACK

    def _fitted(self, found: _Salvage, at: int, cut: bool) -> str:
        """The text of a salvaged piece at ``at``, at its length where the header tells it (a
        piece cut off by the end of the file keeps what it has)."""
        if cut or self.size is None or self.piece is None or at >= self.size:
            return found.text
        return _fit(found.text, min(self.piece, self.size - at))

    def salvage(self, line: bytes, why: str, cut: bool) -> bool:
        """Read a damaged record of the snapshot around its damage; False if it is not one (a
        damaged change ends the replay: what comes after it depends on it)."""
        first = self.expected_seq == 1 and not self.in_snapshot
        if self.version == 1 or not (first or self.in_snapshot):
            return False
        if not first and self.size is not None and len(self.text) >= self.size:
            return False  # the snapshot is whole: this was a change
        found = _salvage(line)
        if first:  # the record that holds the start of the text (all of it, written by 0.2)
            self.header_damaged = True
            self.size = found.size if found else None
            self.piece = found.piece if found else None
            if found is not None and not cut and not self._header_fits(found):
                # A damaged digit or a brace in the size or piece field: what the text itself
                # shows wins (the pieces after it place themselves by their own "at").
                whole = self.piece is None or len(found.text) < self.piece - _DAMAGE_SLACK
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
        raise _Damaged("a text field is not text")
    return value


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Damaged("a position is not a number")
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
    a line at a time, and the document is kept in pieces (:class:`_Text`).

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
                    raise _Damaged("empty line")
                if not complete:
                    raise _Damaged("the last record was cut off")
                try:
                    if b"\x00" in line:
                        raise _Damaged(
                            "zero bytes where a record was (a block of the file was lost)"
                        )
                    op, version = state.decode(line)
                except _Damaged as exc:
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


def _intact(line: bytes) -> bool:
    """A record of format 2 whose checksum matches."""
    if len(line) < 10 or line[8:9] != b" " or not _CRC.fullmatch(line[:8]):
        return False
    return zlib.crc32(line[9:]) == int(line[:8], 16)


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
    if state.version == 1 or len(line) < 10 or line[8:9] != b" " or not _CRC.fullmatch(line[:8]):
        return None
    crc, body = int(line[:8], 16), line[9:]
    if len(body) > MAX_REPAIR_BYTES:
        return None
    fixed = repair_byte(body, crc)
    if fixed is not None and fixed != body:
        return line[:9] + fixed, 0
    following = lines.peek()
    if following is None or not following[2] or following[3] or _intact(following[1]):
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
        try:
            now = os.stat(self.path)
        except FileNotFoundError:
            raise FileNotFoundError(
                errno.ENOENT, "the autosave file was deleted while dictate ran", str(self.path)
            ) from None
        opened = os.fstat(self._fh.fileno())
        if (now.st_dev, now.st_ino) != (opened.st_dev, opened.st_ino) or opened.st_nlink == 0:
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
