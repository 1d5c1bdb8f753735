"""Audio sources: a microphone and an audio file, both yielding 16 kHz mono int16 blocks.

A source is iterated on one thread (the pipeline's) and stopped from any other. The microphone's
PortAudio callback only appends the block to a queue with no bound: it never resamples, logs or
blocks, because anything slow there makes PortAudio drop audio. The microphone's own capture
thread takes the blocks from there at once, resamples them, hands them to the kept-audio
recorder (:meth:`MicrophoneSource.keep`: on disk within a second of being said, whatever the
recogniser is doing) and queues them in a :class:`~dictate.audio.backlog.Backlog`, which is
never full either: when recognition falls behind, the audio waits there (spilled to disk past a
bound) and is recognised in order when the machine has time. Nothing said is dropped; how far
behind recognition is shows in :attr:`MicrophoneSource.behind`. An audio file said in real time
(``FileSource(realtime=True)``: benchmarks, the crash harness) goes the same way.

Stopping a source ends its iteration *after* what was already captured has been delivered, so
nothing said before Stop is lost.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from dictate.audio.audiofile import iter_audio_blocks, read_audio_info
from dictate.audio.backlog import MEMORY_SECONDS, AudioBlock, Backlog
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

STALL_S = 4.0
"""Seconds without a block from a running stream after which the device is taken as lost (a
busy machine delayed blocks by 2 s: the 2 s this was said a lost device that was not)."""
STARVED_S = 0.25
"""A pause of the capture thread longer than this is the machine's, not the device's."""
CLOSE_WAIT_S = 5.0
"""How long closing a stream is waited for. Closing a stream whose sound server has gone can
wait forever in libpulse (a CI run hung there for 300 s): past this the stream is left to
PortAudio, still counted as open, and the run ends anyway with what it recognised."""


class AudioSource(Protocol):
    """What the pipeline reads audio from."""

    name: str

    @property
    def dropped_blocks(self) -> int:
        """Blocks lost (that could not be stored anywhere)."""
        ...

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


class _LiveSource:
    """What a source said in real time shares: a capture thread of its own delivers each block
    as it is said, to the kept-audio recorder (:meth:`keep`) and to a
    :class:`~dictate.audio.backlog.Backlog` the consumer reads in its own time. Subclasses
    give :meth:`_begin` (open; on the starting thread) and :meth:`_produce` (the capture
    thread: call :meth:`_deliver` for each block until stopped or ended)."""

    name: str

    def __init__(self, memory_seconds: float, spill_dir: Path | None) -> None:
        self.backlog = Backlog(memory_seconds, spill_dir)
        self.recorder: Any = None
        """Where every block is also written, by the capture thread (:meth:`keep`)."""
        self.muted: Callable[[], bool] | None = None
        self.muted_blocks = 0
        """Blocks replaced by silence so far (:meth:`keep`)."""
        self.captured: float | None = 0.0
        """Seconds of audio captured so far (its clock: the time of what is said now)."""
        self.started_at: float | None = None
        """``time.monotonic()`` when capture started (the device was opened)."""
        self._stop = threading.Event()
        self._capture: threading.Thread | None = None
        self._error: BaseException | None = None

    @property
    def dropped_blocks(self) -> int:
        """Blocks lost: they could not be stored anywhere (never because of a slow consumer)."""
        return self.backlog.lost_blocks

    @property
    def origin(self) -> float | None:
        """``time.monotonic()`` of audio time 0, when the first sample captured was said: the
        start, for a source whose first block comes at once (None before it starts)."""
        return self.started_at

    @property
    def behind(self) -> float:
        """Seconds of captured audio the consumer has not taken yet."""
        return self.backlog.seconds

    def keep(self, recorder: Any, muted: Callable[[], bool] | None = None) -> None:
        """Write every block to ``recorder`` (its ``write(samples)``) on the capture thread, as
        it is captured; while ``muted()`` is true the blocks are silence, there and for the
        consumer. Call before :meth:`start`."""
        self.recorder, self.muted = recorder, muted

    def start(self) -> None:
        """Start capturing into the backlog now (before the consumer is ready: models may
        still be loading); idempotent.

        Raises:
            AudioDeviceError: The device cannot be opened.
        """
        if self._capture is not None:
            return
        self._begin()
        self.started_at = time.monotonic()
        self._capture = threading.Thread(target=self._run, name="dictate-capture", daemon=True)
        self._capture.start()

    def _begin(self) -> None:
        pass

    def _produce(self) -> None:
        raise NotImplementedError

    def _run(self) -> None:
        try:
            self._produce()
        except BaseException as exc:  # the consumer raises it after the audio before it
            self._error = exc
        finally:
            self.backlog.close()

    def _keep(self, block: AudioBlock) -> AudioBlock:
        """``block`` muted if the window is playing, and written to the kept audio."""
        if self.muted is not None and self.muted():
            block = AudioBlock(np.zeros_like(block.samples), block.start)
            self.muted_blocks += 1
        if self.recorder is not None:
            self.recorder.write(block.samples)
        return block

    def _deliver(self, block: AudioBlock) -> None:
        self.backlog.put(self._keep(block))
        self.captured = block.end

    def blocks(self) -> Iterator[AudioBlock]:
        self.start()
        ended = False
        try:
            while True:
                block = self.backlog.get()
                if block is None:
                    ended = True
                    break
                yield block
        finally:
            if not ended:  # the consumer gave up (an error): nobody will take the rest
                self.close()
        if self._error is not None:
            raise self._error

    def stop(self) -> None:
        self._stop.set()

    def close(self) -> None:
        """Stop, and drop what nobody will take (the run that was to read it failed to start)."""
        self.stop()
        if self._capture is not None:
            self._capture.join(5)
        self.backlog.discard()


class FileSource(_LiveSource):
    """An audio file (WAV, FLAC, OGG, MP3, ...) of any rate, channel count and sample width.

    Args:
        path: The audio file; its header is checked here, so a bad file fails before anything
            starts.
        block_ms: Block length in the file's own time.
        realtime: Say it no faster than real time, as a microphone would, on a capture thread
            of its own (a consumer that falls behind catches up from the backlog, as it does
            from a microphone); otherwise it is read as fast as the consumer takes it.
        memory_seconds, spill_dir: The backlog's, when ``realtime``.
    """

    def __init__(
        self,
        path: str | Path,
        block_ms: int = 100,
        realtime: bool = False,
        memory_seconds: float = MEMORY_SECONDS,
        spill_dir: Path | None = None,
    ) -> None:
        super().__init__(memory_seconds, spill_dir)
        self.info = read_audio_info(path)
        self.name = str(self.info.path)
        self.block_frames = max(1, self.info.sample_rate * block_ms // 1000)
        self.realtime = realtime
        if not realtime:
            self.captured = None  # read as fast as it is taken: never behind

    def _read(self) -> Iterator[AudioBlock]:
        resampler = Resampler(self.info.sample_rate)
        clock = _Clock()
        for raw in iter_audio_blocks(self.info, self.block_frames):
            if self._stop.is_set():
                return
            samples = resampler.process(raw)
            if samples.size:
                yield clock.block(samples)
        tail = resampler.flush()
        if tail.size:
            yield clock.block(tail)

    def _produce(self) -> None:
        began = time.monotonic()
        for block in self._read():  # each once its last sample has been said, as a microphone's
            delay = block.end - (time.monotonic() - began)
            if delay > 0 and self._stop.wait(delay):
                self._deliver(block)  # said before Stop: still delivered
                break
            self._deliver(block)

    def blocks(self) -> Iterator[AudioBlock]:
        if self.realtime:
            yield from super().blocks()
            return
        for block in self._read():
            yield self._keep(block)


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


class MicrophoneSource(_LiveSource):
    """A PortAudio input device, opened at its default rate and resampled to 16 kHz mono.

    Args:
        device: Index, name or part of a name (see :func:`find_input_device`); None for the
            system default.
        block_ms: Length of one PortAudio block.
        stall_timeout: Seconds without a block from a running stream after which the device is
            taken as lost (at least 5 s for the first block: some devices start slowly).
        memory_seconds: Audio not yet recognised that is held in memory; more waits in a
            temporary file (:class:`~dictate.audio.backlog.Backlog`).
        spill_dir: The folder of that file (None: the system's temporary folder).

    Raises:
        PortAudioMissing: No PortAudio library (message says what to install).
        AudioDeviceError: No such device.
    """

    realtime = True

    def __init__(
        self,
        device: str | int | None = None,
        block_ms: int = 30,
        stall_timeout: float = STALL_S,
        memory_seconds: float = MEMORY_SECONDS,
        spill_dir: Path | None = None,
    ) -> None:
        super().__init__(memory_seconds, spill_dir)
        self._sd = sounddevice_module()
        self.device: InputDevice = find_input_device(device)
        self.name = (
            f"{self.device.name} ({self.device.key})"
            if self.device.pulse_source
            else (self.device.name)
        )
        self.block_ms = block_ms
        self.stall_timeout = stall_timeout
        self.overflows = 0  # blocks PortAudio itself reported as overflowed
        self._raw: deque[np.ndarray] = deque()
        self._finished = threading.Event()
        self._stream: Any = None
        self._first_at: float | None = None

    @property
    def origin(self) -> float | None:
        """When the first sample captured was said: the first block's arrival less its length.
        A device may deliver nothing for a while after it opens (a PulseAudio null sink's
        monitor, idle, renders 2 s at a time: its first block came 1.8 s after the start here),
        and that time is in no block: counted, the audio's clock ran that far ahead of the
        words (the latency readout, the kept audio's lag at a kill)."""
        return self._first_at if self._first_at is not None else self.started_at

    def _callback(self, indata: np.ndarray, frames: int, time_info: Any, status: Any) -> None:
        # PortAudio's thread: copy and append (a deque never refuses and never blocks).
        if self._first_at is None:
            self._first_at = time.monotonic() - frames / self.device.default_rate
        if status.input_overflow:
            self.overflows += 1
        self._raw.append(indata.copy())

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

    def _begin(self) -> None:
        self._finished.clear()
        self._stream = self._open()
        log.info("recording from %s at %g Hz", self.device.key, self.device.default_rate)

    def _produce(self) -> None:
        stream = self._stream
        resampler = Resampler(self.device.default_rate)
        clock = _Clock()
        last_block = tick = time.monotonic()
        limit = max(self.stall_timeout, 5.0)
        reported = 0
        try:
            while True:
                now = time.monotonic()
                if now - tick > STARVED_S:
                    # This thread did not run for a while (a busy machine): no block meanwhile
                    # says nothing about the device, so that time does not count as silence.
                    last_block += now - tick
                tick = now
                stopping = self._stop.is_set()
                if stopping and not stream.closed:
                    self._close(stream)  # no callback after this: what it queued is drained
                got = self._drain(resampler, clock)
                if got:
                    last_block, limit = time.monotonic(), self.stall_timeout
                elif stopping:
                    break
                else:
                    lost = self._finished.is_set() or stream.closed or not stream.active
                    if lost or time.monotonic() - last_block > limit:
                        raise AudioDeviceError(
                            f"microphone {self.device.name!r} stopped delivering audio "
                            "(disconnected or taken by the system?); what was recognised so far "
                            "is kept; start dictation again on this or another device"
                        )
                    time.sleep(0.01)
                lost_now = self.dropped_blocks + self.overflows
                if lost_now != reported:
                    reported = lost_now
                    log.warning(
                        "audio lost so far: %d blocks could not be stored, %d overflows "
                        "reported by the device",
                        self.dropped_blocks,
                        self.overflows,
                    )
            tail = resampler.flush()
            if tail.size:
                self._deliver(clock.block(tail))
        finally:
            self._close(stream)

    def _drain(self, resampler: Resampler, clock: _Clock) -> bool:
        """Everything the callback queued, resampled, kept and put in the backlog."""
        got = False
        while self._raw:
            samples = resampler.process(self._raw.popleft())
            got = True
            if samples.size:
                self._deliver(clock.block(samples))
        return got

    def _close(self, stream: Any) -> None:
        """Stop and close ``stream``, waiting at most :data:`CLOSE_WAIT_S` for it: the capture
        thread must end (and with it the run) even where the sound server is gone and
        PortAudio's close never returns."""
        if stream.closed:
            stream_closed(stream)
            return

        def close() -> None:
            try:
                stream.stop()
                stream.close()
            except self._sd.PortAudioError as exc:
                log.warning("closing %s: %s", self.device.name, exc)

        closer = threading.Thread(target=close, name="dictate-close-stream", daemon=True)
        closer.start()
        closer.join(CLOSE_WAIT_S)
        if stream.closed:
            stream_closed(stream)
        elif closer.is_alive():
            log.warning(
                "closing microphone %r did not return within %g s (its sound server gone?): "
                "left to the system; the device list is read again once it closes",
                self.device.name,
                CLOSE_WAIT_S,
            )
            threading.Thread(
                target=self._forget_when_closed,
                args=(closer, stream),
                name="dictate-close-wait",
                daemon=True,
            ).start()

    @staticmethod
    def _forget_when_closed(closer: threading.Thread, stream: Any) -> None:
        closer.join()
        if stream.closed:
            stream_closed(stream)
