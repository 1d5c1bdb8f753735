"""Audio sources: a microphone and an audio file, both yielding 16 kHz mono int16 blocks.

A source is iterated on one thread (the pipeline's) and stopped from any other. The microphone's
PortAudio callback only copies the block into a bounded queue: it never resamples, logs or
blocks, because anything slow there makes PortAudio drop audio. When the queue is full the block
is dropped and counted (:attr:`MicrophoneSource.dropped_blocks`) rather than stalling the
callback; the consumer logs the count.

Stopping a source ends its iteration *after* what was already captured has been delivered, so
nothing said before Stop is lost.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dictate.audio.audiofile import iter_audio_blocks, read_audio_info
from dictate.audio.devices import (
    InputDevice,
    find_input_device,
    sounddevice_module,
    stream_closed,
    stream_opened,
)
from dictate.audio.format import SAMPLE_RATE
from dictate.audio.resample import Resampler
from dictate.errors import AudioDeviceError

log = logging.getLogger("dictate.audio")


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


class AudioSource(Protocol):
    """What the pipeline reads audio from."""

    name: str
    dropped_blocks: int

    def blocks(self) -> Iterator[AudioBlock]:
        """Open the source and yield blocks until it ends or :meth:`stop` has been called."""
        ...

    def stop(self) -> None:
        """Ask the source to end; thread-safe; already captured audio is still delivered."""
        ...


class _Clock:
    """Turns resampled blocks into :class:`AudioBlock` with sample-exact start times."""

    def __init__(self) -> None:
        self.samples = 0

    def block(self, samples: np.ndarray) -> AudioBlock:
        block = AudioBlock(samples, self.samples / SAMPLE_RATE)
        self.samples += len(samples)
        return block


class FileSource:
    """An audio file (WAV, FLAC, OGG, MP3, ...) of any rate, channel count and sample width.

    Args:
        path: The audio file; its header is checked here, so a bad file fails before anything
            starts.
        block_ms: Block length in the file's own time.
        realtime: Deliver blocks no faster than real time (to stand in for a microphone).
    """

    dropped_blocks = 0

    def __init__(self, path: str | Path, block_ms: int = 100, realtime: bool = False) -> None:
        self.info = read_audio_info(path)
        self.name = str(self.info.path)
        self.block_frames = max(1, self.info.sample_rate * block_ms // 1000)
        self.realtime = realtime
        self._stop = threading.Event()

    def blocks(self) -> Iterator[AudioBlock]:
        resampler = Resampler(self.info.sample_rate)
        clock = _Clock()
        began = time.monotonic()
        for raw in iter_audio_blocks(self.info, self.block_frames):
            if self._stop.is_set():
                break
            samples = resampler.process(raw)
            if samples.size:
                block = clock.block(samples)
                if self.realtime:
                    delay = block.start - (time.monotonic() - began)
                    if delay > 0 and self._stop.wait(delay):
                        yield block
                        break
                yield block
        tail = resampler.flush()
        if tail.size:
            yield clock.block(tail)

    def stop(self) -> None:
        self._stop.set()


@contextlib.contextmanager
def _pulse_source(source: str | None) -> Iterator[None]:
    """While a stream opens: ``PULSE_SOURCE`` names the sound server's source to record from
    (the ALSA ``pulse`` device connects to the server then, and records from that source for
    the stream's life); the environment is put back afterwards."""
    if source is None:
        yield
        return
    before = os.environ.get("PULSE_SOURCE")
    os.environ["PULSE_SOURCE"] = source
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("PULSE_SOURCE", None)
        else:
            os.environ["PULSE_SOURCE"] = before


class MicrophoneSource:
    """A PortAudio input device, opened at its default rate and resampled to 16 kHz mono.

    Args:
        device: Index, name or part of a name (see :func:`find_input_device`); None for the
            system default.
        block_ms: Length of one PortAudio block.
        queue_blocks: Capacity of the queue between the callback and the consumer; at 30 ms
            blocks the default holds about 15 s, far more than any hiccup of the consumer.
        stall_timeout: Seconds without a block from a running stream after which the device is
            taken as lost (at least 5 s for the first block: some devices start slowly).

    Raises:
        PortAudioMissing: No PortAudio library (message says what to install).
        AudioDeviceError: No such device.
    """

    def __init__(
        self,
        device: str | int | None = None,
        block_ms: int = 30,
        queue_blocks: int = 500,
        stall_timeout: float = 2.0,
    ) -> None:
        self._sd = sounddevice_module()
        self.device: InputDevice = find_input_device(device)
        self.name = (
            f"{self.device.name} ({self.device.key})"
            if self.device.pulse_source
            else (self.device.name)
        )
        self.block_ms = block_ms
        self.stall_timeout = stall_timeout
        self.dropped_blocks = 0
        self.overflows = 0  # blocks PortAudio itself reported as overflowed
        self._queue: queue.Queue[np.ndarray] = queue.Queue(maxsize=queue_blocks)
        self._stop = threading.Event()
        self._finished = threading.Event()

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        # PortAudio's thread: copy and enqueue, nothing else.
        if status.input_overflow:
            self.overflows += 1
        try:
            self._queue.put_nowait(indata.copy())
        except queue.Full:
            self.dropped_blocks += 1

    def _open(self) -> Any:
        with _pulse_source(self.device.pulse_source):
            return self._open_stream()

    def _open_stream(self) -> Any:
        sd = self._sd
        rate = self.device.default_rate
        try:
            sd.check_input_settings(
                device=self.device.index, channels=1, samplerate=rate, dtype="float32"
            )
            channels = 1
        except sd.PortAudioError:
            channels = min(2, self.device.channels)
        stream = None
        try:
            stream = sd.InputStream(
                device=self.device.index,
                samplerate=rate,
                channels=channels,
                dtype="float32",
                blocksize=int(rate * self.block_ms / 1000),
                callback=self._callback,
                finished_callback=self._finished.set,
            )
            stream_opened(stream, self.device.name)
            stream.start()
        except (sd.PortAudioError, ValueError) as exc:
            if stream is not None:
                # Opened but not started: close it now. Left open, PortAudio closed it at its
                # next shutdown (a device rescan), and with the sound server gone by then that
                # close never returned: the window hung (seen once in a test run).
                self._close(stream)
            raise AudioDeviceError(
                f"cannot open microphone {self.device.name!r} at {rate:g} Hz: {exc}; choose "
                "another input device or check that no other program holds it exclusively"
            ) from None
        return stream

    def blocks(self) -> Iterator[AudioBlock]:
        resampler = Resampler(self.device.default_rate)
        clock = _Clock()
        reported_drops = 0
        self._finished.clear()
        stream = self._open()
        log.info("recording from %s at %g Hz", self.device.key, self.device.default_rate)
        last_block = time.monotonic()
        limit = max(self.stall_timeout, 5.0)
        try:
            while True:
                try:
                    raw = self._queue.get(timeout=0.1)
                except queue.Empty:
                    if self._stop.is_set():
                        break
                    lost = self._finished.is_set() or stream.closed or not stream.active
                    if lost or time.monotonic() - last_block > limit:
                        raise AudioDeviceError(
                            f"microphone {self.device.name!r} stopped delivering audio "
                            "(disconnected or taken by the system?); what was recognised so far "
                            "is kept; start dictation again on this or another device"
                        ) from None
                    continue
                last_block = time.monotonic()
                limit = self.stall_timeout
                samples = resampler.process(raw)
                if samples.size:
                    yield clock.block(samples)
                if self.dropped_blocks + self.overflows != reported_drops:
                    reported_drops = self.dropped_blocks + self.overflows
                    log.warning(
                        "audio lost so far: %d blocks dropped (the recogniser could not keep "
                        "up), %d overflows reported by the device",
                        self.dropped_blocks,
                        self.overflows,
                    )
                if self._stop.is_set() and not stream.closed:
                    # Stop the device now; the loop then drains what is already queued.
                    self._close(stream)
        finally:
            self._close(stream)
        tail = resampler.flush()
        if tail.size:
            yield clock.block(tail)

    def _close(self, stream: Any) -> None:
        try:
            if not stream.closed:
                stream.stop()
                stream.close()
        except self._sd.PortAudioError as exc:
            log.warning("closing %s: %s", self.device.name, exc)
        if stream.closed:
            stream_closed(stream)

    def stop(self) -> None:
        self._stop.set()
