"""The backlog between capture and recognition: never full, in order, spilled to disk past its
memory bound, and still whole when the disk refuses the spill."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from dictate.audio.backlog import Backlog
from dictate.audio.capture import AudioBlock
from dictate.audio.format import SAMPLE_RATE

BLOCK = 480  # 30 ms


def blocks(count: int) -> list[AudioBlock]:
    rng = np.random.default_rng(7)
    return [
        AudioBlock(rng.integers(-32768, 32767, BLOCK, dtype=np.int16), i * BLOCK / SAMPLE_RATE)
        for i in range(count)
    ]


def drain(backlog: Backlog) -> list[AudioBlock]:
    out = []
    while (block := backlog.get(timeout=5)) is not None:
        out.append(block)
    return out


def same(got: list[AudioBlock], want: list[AudioBlock]) -> None:
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.start == b.start
        assert np.array_equal(a.samples, b.samples)


def test_everything_comes_out_in_order_past_the_memory_bound(tmp_path: Path) -> None:
    backlog = Backlog(memory_seconds=0.1, spill_dir=tmp_path)  # 3 blocks in memory
    want = blocks(200)
    for block in want:
        assert backlog.put(block)
    assert backlog.seconds == pytest.approx(200 * BLOCK / SAMPLE_RATE)
    assert backlog.spilled_blocks == 197
    assert list(tmp_path.iterdir()) == []  # the spill file is unlinked: nobody else sees it
    backlog.close()
    same(drain(backlog), want)
    assert backlog.seconds == 0
    assert backlog.largest_seconds == pytest.approx(200 * BLOCK / SAMPLE_RATE)
    assert backlog.lost_blocks == 0


def test_interleaved_puts_and_gets_keep_the_order(tmp_path: Path) -> None:
    """The consumer takes blocks while the producer spills: memory first, then the file, and
    after the file is drained memory again: never out of order."""
    backlog = Backlog(memory_seconds=0.1, spill_dir=tmp_path)
    want = blocks(500)
    got: list[AudioBlock] = []

    def consume() -> None:
        got.extend(drain(backlog))

    thread = threading.Thread(target=consume)
    thread.start()
    for i, block in enumerate(want):
        backlog.put(block)
        if i % 50 == 0:
            threading.Event().wait(0.01)
    backlog.close()
    thread.join(30)
    assert not thread.is_alive()
    same(got, want)


def test_a_spill_that_cannot_be_written_keeps_the_audio_in_memory(tmp_path: Path) -> None:
    backlog = Backlog(memory_seconds=0.1, spill_dir=tmp_path / "gone")  # no such folder
    want = blocks(50)
    for block in want:
        assert backlog.put(block)
    assert isinstance(backlog.spill_error, OSError)
    assert backlog.spilled_blocks == 0 and backlog.lost_blocks == 0
    backlog.close()
    same(drain(backlog), want)


def test_get_waits_then_times_out_and_ends_after_close() -> None:
    backlog = Backlog()
    with pytest.raises(TimeoutError):
        backlog.get(timeout=0.01)
    backlog.put(blocks(1)[0])
    backlog.close()
    assert backlog.get() is not None
    assert backlog.get() is None
    with pytest.raises(RuntimeError):
        backlog.put(blocks(1)[0])


def test_discard_drops_the_rest_and_wakes_the_consumer(tmp_path: Path) -> None:
    backlog = Backlog(memory_seconds=0.0, spill_dir=tmp_path)
    for block in blocks(10):
        backlog.put(block)
    backlog.discard()
    assert backlog.get(timeout=1) is None
    assert backlog.seconds == 0
