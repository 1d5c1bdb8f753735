"""The checksum puts back one damaged byte (dictate/editing/crc_repair.py)."""

from __future__ import annotations

import random
import zlib
from pathlib import Path

from dictate.editing.crc_repair import repair_byte, repair_line, repair_split


def test_any_one_changed_byte_is_found_and_put_back() -> None:
    rng = random.Random(7)
    for _ in range(200):
        data = rng.randbytes(rng.randrange(1, 5_000))
        damaged = bytearray(data)
        at = rng.randrange(len(data))
        damaged[at] ^= rng.randrange(1, 256)
        assert repair_byte(bytes(damaged), zlib.crc32(data)) == data


def test_intact_data_is_returned_as_it_is() -> None:
    assert repair_byte(b"intact", zlib.crc32(b"intact")) == b"intact"


def test_damage_of_more_than_one_byte_is_not_mistaken_for_one() -> None:
    rng = random.Random(8)
    for _ in range(100):
        data = rng.randbytes(2_000)
        damaged = bytearray(data)
        for at in rng.sample(range(len(data)), 2):
            damaged[at] ^= rng.randrange(1, 256)
        repaired = repair_byte(bytes(damaged), zlib.crc32(data))
        assert repaired is None or repaired == data  # never some third text


def test_a_record_split_by_a_line_end_is_joined_with_the_byte_it_lost() -> None:
    data = b'{"seq":1,"op":"reset","text":"Sentence one says hello."}'
    at = data.index(b"hello")
    assert repair_split(data[:at], data[at + 1 :], zlib.crc32(data)) == data
    assert repair_split(data[:at], data[at + 2 :], zlib.crc32(data)) is None  # two bytes lost


def test_a_history_line_with_one_changed_byte_is_read(tmp_path: Path) -> None:
    from dictate.editing.history import History, read_history

    path = tmp_path / "history.jsonl"
    history = History(path)
    for text in ("First sentence.", "Second sentence.", "Third sentence."):
        history.add(text)
    raw = bytearray(path.read_bytes())
    raw[raw.index(b"Second") + 2] ^= 0x20  # "SeCond"
    third = raw.index(b"Third")
    raw[third + 1] ^= 0x20
    raw[third + 3] ^= 0x20  # two bytes in one line: skipped as before
    path.write_bytes(bytes(raw))
    read = read_history(path)
    assert [e.text for e in read.entries] == ["First sentence.", "Second sentence."]
    assert read.repaired == 1 and read.damaged == 1


def test_a_line_whose_checksum_field_is_unreadable_is_not_repaired() -> None:
    assert repair_line(b"zzzzzzzz {}") is None
    assert repair_line(b"short") is None
