"""One damaged byte found and put back by a CRC-32.

A record of the journal carries the CRC-32 of its bytes. When one byte of it changed (a flipped
bit, a stray byte written over it), the checksum says which byte and what it was: CRC-32 is
linear, so the difference between the checksum written and the checksum of the damaged bytes
depends only on where the damage is and what it changed, and CRC-32 tells every change of one
byte in a record of a journal's size apart from every other (a burst of up to 32 bits is never
missed; two changes farther apart give the same difference about once in 2**32).
"""

from __future__ import annotations

import re
import zlib

_CHECKSUM = re.compile(rb"[0-9a-f]{8}")
_POLY = 0xEDB88320  # CRC-32 (IEEE 802.3), as zlib computes it, bit-reflected


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLY if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _table()
_BY_TOP = {value >> 24: index for index, value in enumerate(_TABLE)}
"""The table's top bytes are all different: a step over a byte can be undone."""
_CHANGE = {value: index for index, value in enumerate(_TABLE) if index}
"""What a change of the last byte by ``index`` (xor) does to the checksum."""


def _back(register: int) -> int:
    """The register before one zero byte was fed in: the inverse of
    ``register -> TABLE[register & 0xff] ^ (register >> 8)``."""
    index = _BY_TOP[register >> 24]
    return (((register ^ _TABLE[index]) << 8) & 0xFFFFFFFF) | index


def repair_byte(data: bytes, crc: int) -> bytes | None:
    """``data`` with the one byte put back whose change made its CRC-32 differ from ``crc``;
    None where no change of one byte explains it, or more than one does (``data`` is then left
    as it is). Linear in ``len(data)``."""
    syndrome = zlib.crc32(data) ^ crc
    if not syndrome:
        return data
    found = []
    for behind in range(len(data)):  # the damaged byte has ``behind`` bytes after it
        change = _CHANGE.get(syndrome)
        if change is not None:
            found.append((len(data) - 1 - behind, change))
            if len(found) > 1:
                return None
        syndrome = _back(syndrome)
    if len(found) != 1:
        return None
    at, change = found[0]
    repaired = bytearray(data)
    repaired[at] ^= change
    return bytes(repaired) if zlib.crc32(repaired) == crc else None


def repair_line(line: bytes) -> bytes | None:
    """A line ``<crc32 in 8 hex digits> <bytes>`` (the journal's and the history's records) with
    one damaged byte of its bytes put back; None where its checksum field cannot be read or no
    single byte explains the damage."""
    if len(line) < 10 or line[8:9] != b" " or not _CHECKSUM.fullmatch(line[:8]):
        return None
    repaired = repair_byte(line[9:], int(line[:8], 16))
    return None if repaired is None else line[:9] + repaired


def repair_split(first: bytes, second: bytes, crc: int) -> bytes | None:
    """The record that a line end written over one of its bytes split into ``first`` and
    ``second``: ``first``, the byte it was, and ``second``, where exactly one byte value gives
    ``crc``; else None."""
    found = [
        joined for byte in range(256) if zlib.crc32(joined := first + bytes([byte]) + second) == crc
    ]
    return found[0] if len(found) == 1 else None
