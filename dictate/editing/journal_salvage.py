"""Reading a damaged snapshot record of the journal as far as it goes, around its damage.

A snapshot record holds its text last (:func:`dictate.editing.journal_records.snapshot_records`),
so the text of a record whose checksum fails, or that a crash cut off, can still be read up to
the damaged bytes and past them: zero bytes and undecodable bytes become :data:`LOST`, a broken
escape is read as its characters. :func:`fit` then makes such a piece its known length, so the
pieces and changes after it keep their places (:mod:`dictate.editing.journal_replay`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from dictate.editing.journal_records import DamagedRecord, parse_record
from dictate.editing.journal_text import LOST

# A damaged snapshot record, read as far as it goes: the text field is last, and its name has
# four letters (one of them may be the damaged byte).
_TEXT_FIELD = re.compile(rb'"(?!size)[^"]{4}":"')  # not "size" with its colon's quote lost
_AT_FIELD = re.compile(rb'"at":(\d{1,15})[,}]')
_SIZE_FIELD = re.compile(rb'"size":(\d{1,15})[,}]')
_PIECE_FIELD = re.compile(rb'"piece":(\d{1,15})[,}]')
_SNAPSHOT_OP = re.compile(rb'"op":"(?:more|reset)"')
_ZEROS = re.compile(rb"\x00+")
DAMAGE_SLACK = 8
"""Characters by which a damaged byte can change a piece's decoded length (an escape broken,
undecodable bytes replaced)."""
_LOST_UTF8 = LOST.encode("utf-8")
_ESCAPE = re.compile(r'\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt])|(.?))', re.DOTALL)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


@dataclass
class Salvage:
    """What a damaged record holds as far as it can be read: its text, and its fields where
    they could be read (None where not)."""

    text: str
    at: int | None
    size: int | None
    piece: int | None
    snapshot: bool
    """The record says it is part of a snapshot (its op could be read)."""


def salvage(line: bytes) -> Salvage | None:
    """The text of a damaged record, as far as it can be read: zero bytes (a block the
    filesystem lost) and undecodable bytes as :data:`LOST`. None if it holds none."""
    raw, line = line, _ZEROS.sub(lambda zeros: _LOST_UTF8 * len(zeros.group()), line)
    head = line[:120]
    at, size, piece = _AT_FIELD.search(head), _SIZE_FIELD.search(head), _PIECE_FIELD.search(head)
    snapshot = _SNAPSHOT_OP.search(head) is not None
    brace = line.find(b"{")
    if brace >= 0:  # a changed letter may leave valid JSON: only the checksum caught it
        try:
            record = parse_record(line[brace:])
        except DamagedRecord:
            record = None
        if isinstance(record, dict) and isinstance(record.get("text"), str):
            fields = [record.get(name) for name in ("at", "size", "piece")]
            at_value, size_value, piece_value = (v if isinstance(v, int) else None for v in fields)
            return Salvage(
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
    return Salvage(
        text,
        int(at.group(1)) if at else None,
        int(size.group(1)) if size else None,
        int(piece.group(1)) if piece else None,
        snapshot,
    )


def fit(text: str, length: int) -> str:
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
