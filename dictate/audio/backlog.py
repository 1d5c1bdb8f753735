"""The audio captured but not recognised yet: a queue that is never full.

When the machine is busy, recognition falls behind the microphone. Dropping what it cannot take
loses speech for good, so the capture thread puts every block here and the recogniser takes
them in order when it has time. The newest blocks are kept in memory up to
:data:`MEMORY_SECONDS` of audio (16 kHz int16: 32 kB a second); past that, blocks go to a
temporary file (unlinked at once, this user's only) and are read back in their turn, so an hour
behind costs 115 MB of disk, not of memory. Where even that file cannot be written (a full
disk), the block is kept in memory after all: only a failure to store it anywhere loses it, and
that is counted (:attr:`Backlog.lost_blocks`) for the window to say at once.
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE

log = logging.getLogger("dictate.audio")

MEMORY_SECONDS = 120.0
"""Audio held in memory before the backlog spills to disk (3.8 MB)."""


@dataclass(frozen=True)
class AudioBlock:
    """A block of 16 kHz mono int16 samples and the time of its first sample."""

    samples: np.ndarray
    start: float
    """Seconds since the source started (by sample count, so it never drifts)."""

    @property
    def end(self) -> float:
        """Time just after the last sample."""
        return self.start + len(self.samples) / SAMPLE_RATE


@dataclass(frozen=True)
class _Spilled:
    """A block in the spill file: its time and where its samples are."""

    start: float
    offset: int
    samples: int


class Backlog:
    """Blocks from one producer to one consumer, in order, never refused.

    Args:
        memory_seconds: Audio kept in memory; the rest goes to a temporary file.
        spill_dir: Where the temporary file is made (None: the system's temporary folder).
    """

    def __init__(self, memory_seconds: float = MEMORY_SECONDS, spill_dir: Path | None = None):
        self.memory_samples = max(0, round(memory_seconds * SAMPLE_RATE))
        self.spill_dir = spill_dir
        self._cond = threading.Condition()
        self._queue: deque[Any] = deque()  # AudioBlock or _Spilled, oldest first
        self._in_memory = 0  # samples of the queued blocks held in memory
        self._queued = 0  # samples queued in all
        self._file: Any = None
        self._write_at = 0
        self._closed = False
        self.largest_samples = 0
        """The most audio ever queued at once (samples): how far behind it fell."""
        self.spilled_blocks = 0
        """Blocks that went through the spill file."""
        self.lost_blocks = 0
        """Blocks that could not be stored anywhere (lost)."""
        self.spill_error: OSError | None = None
        """Why the spill file could not be written (the blocks were kept in memory instead)."""

    @property
    def seconds(self) -> float:
        """Audio queued now."""
        return self._queued / SAMPLE_RATE

    @property
    def largest_seconds(self) -> float:
        return self.largest_samples / SAMPLE_RATE

    def put(self, block: Any) -> bool:
        """Queue ``block`` (an :class:`AudioBlock`); never blocks on the
        consumer. False only if it could not be stored anywhere (then counted as lost)."""
        samples = np.ascontiguousarray(block.samples, dtype=np.int16)
        count = len(samples)
        with self._cond:
            if self._closed:
                raise RuntimeError("put after close")
            try:
                item: Any = block
                if self._in_memory + count > self.memory_samples and self.spill_error is None:
                    item = self._spill(block.start, samples)
                self._queue.append(item)
            except MemoryError:
                self.lost_blocks += 1
                return False
            if item is block:
                self._in_memory += count
            self._queued += count
            self.largest_samples = max(self.largest_samples, self._queued)
            self._cond.notify()
        return True

    def _spill(self, start: float, samples: np.ndarray) -> Any:
        """``samples`` written to the spill file (a :class:`_Spilled`), or, where the file
        cannot be written, the block itself (kept in memory; logged once)."""
        try:
            if self._file is None:
                # Unlinked at once, 0600; closed once drained at the end (or discarded).
                self._file = tempfile.TemporaryFile(  # noqa: SIM115
                    prefix="dictate-backlog-", dir=self.spill_dir
                )
            data = samples.tobytes()
            written = os.pwrite(self._file.fileno(), data, self._write_at)
            if written != len(data):
                raise OSError(f"short write to the backlog file ({written} of {len(data)} bytes)")
        except OSError as exc:
            self.spill_error = exc
            log.warning("the audio backlog is kept in memory: its file cannot be written: %s", exc)
            return AudioBlock(samples, start)
        spilled = _Spilled(start, self._write_at, len(samples))
        self._write_at += len(data)
        self.spilled_blocks += 1
        return spilled

    def get(self, timeout: float | None = None) -> Any:
        """The oldest block; None once the backlog is closed and empty. Raises ``TimeoutError``
        after ``timeout`` seconds with nothing queued."""
        with self._cond:
            while not self._queue:
                if self._closed:
                    if self._file is not None:
                        self._file.close()
                        self._file = None
                    return None
                if not self._cond.wait(timeout):
                    raise TimeoutError("no audio")
            item = self._queue.popleft()
            if isinstance(item, _Spilled):
                data = os.pread(self._file.fileno(), item.samples * 2, item.offset)
                block = AudioBlock(np.frombuffer(data, dtype=np.int16).copy(), item.start)
            else:
                block = item
                self._in_memory -= len(block.samples)
            self._queued -= len(block.samples)
            if not self._queue and self._write_at:
                self._write_at = 0  # drained: the file is written from its start again
                self._file.truncate(0)
            return block

    def close(self) -> None:
        """No more blocks will come; what is queued is still delivered."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def discard(self) -> None:
        """Drop what is queued and the spill file (the consumer has gone)."""
        with self._cond:
            self._queue.clear()
            self._in_memory = self._queued = 0
            self._closed = True
            if self._file is not None:
                self._file.close()
                self._file = None
            self._cond.notify_all()
