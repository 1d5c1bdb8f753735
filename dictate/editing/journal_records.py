"""The journal's records: how one is written to a line and read back, its checksum checked.

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

Format 1 journals (plain JSON lines, positions as the old editor counted them) still replay
(:mod:`dictate.editing.journal_replay`); a line without a checksum in a format-2 journal is
damage. The same line format serves the other append-only files (history, audio links,
vocabulary), which read it with :func:`decode_record`.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from dictate.fileio import UnreadableFile, check_json_depth

_CRC = re.compile(rb"[0-9a-f]{8}")

SNAPSHOT_PIECE = 16_384
"""Code points of the document per snapshot record: a damaged byte costs at most this much of the
text (and is read around), never the whole document."""

MAX_RECORD_DEPTH = 4
"""Records are flat objects; a line nested deeper is damage (and would crash the JSON parser)."""


class DamagedRecord(ValueError):
    """A line that is no intact record: what was wrong with it is the message."""


def encode_record(record: dict[str, Any]) -> bytes:
    """``record`` as one line: its checksum, a space, its JSON (UTF-8), a line end."""
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


def parse_record(body: bytes) -> Any:
    """JSON of one record, its nesting checked first (bytes.count is fast; the exact depth is
    counted only when there are brackets enough to matter)."""
    if body.count(b"{") + body.count(b"[") > MAX_RECORD_DEPTH:
        try:
            check_json_depth(body.decode("utf-8"), MAX_RECORD_DEPTH, "the record")
        except (UnicodeDecodeError, UnreadableFile) as exc:
            raise DamagedRecord(str(exc)) from None
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise DamagedRecord(f"unreadable record ({exc})") from None


def checksum_of(line: bytes) -> int | None:
    """The CRC-32 a format-2 line starts with; None if it starts with none."""
    if len(line) < 10 or line[8:9] != b" " or not _CRC.fullmatch(line[:8]):
        return None
    return int(line[:8], 16)


def is_intact(line: bytes) -> bool:
    """A record of format 2 whose checksum matches."""
    crc = checksum_of(line)
    return crc is not None and zlib.crc32(line[9:]) == crc


def decode_record(line: bytes) -> dict[str, Any]:
    """One record written by :func:`encode_record` (without its line end), its checksum checked.

    Raises:
        ValueError: The line is damaged (:class:`DamagedRecord`): no checksum, a checksum that
            does not match, or not a JSON object.
    """
    crc = checksum_of(line)
    if crc is None:
        raise DamagedRecord("not a record")
    body = line[9:]
    if zlib.crc32(body) != crc:
        raise DamagedRecord("checksum mismatch")
    record = parse_record(body)
    if not isinstance(record, dict):
        raise DamagedRecord("not a record")
    return record
