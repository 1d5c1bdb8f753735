"""The checksum puts back one damaged byte (dictate/editing/crc_repair.py)."""

from __future__ import annotations

import random
import zlib

from dictate.editing.crc_repair import repair_byte, repair_split


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
