"""Audio source -> segmenter -> recogniser -> streaming punctuator -> events. No Qt here.

Two worker threads in this process:

* the **audio thread** reads the source, measures the level, runs the VAD segmenter and feeds
  the recogniser, emitting partial words as they change;
* the **punctuation thread** takes each finished segment's words through the
  :class:`~dictate.dictation.TextStage`: voice commands, the :class:`StreamingPunctuator` (ONNX
  Runtime) and written forms, emitting finalized sentences, the pending text and commands.

They are joined by an unbounded queue of segments (a segment is a few dozen words), so a slow
punctuator never stalls audio capture. :meth:`Pipeline.stop` stops the source; what it had
already captured is still segmented, recognised and punctuated, and the punctuator is flushed,
before :class:`Finished` is emitted: nothing spoken before Stop is lost. Errors (a lost device,
a failing punctuator) become :class:`Error` events; words recognised before them are kept, and
if the punctuator fails, later words still arrive, unpunctuated.

Callbacks run on the worker threads; a GUI must hand them over to its own thread.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dictate.asr.engine import Engine, Word
from dictate.asr.segmenter import (
    SegmentAudio,
    SegmentEnded,
    Segmenter,
    SegmenterOptions,
    SpeechStarted,
)
from dictate.audio import SAMPLE_RATE
from dictate.audio.capture import AudioSource
from dictate.audio.resample import level_dbfs
from dictate.dictation import Punctuator, TextStage
from dictate.errors import DictateError
from dictate.events import (
    Command,
    Error,
    Event,
    Finalized,
    Finished,
    Level,
    Partial,
    Pending,
    Segment,
    SpeechStart,
)

__all__ = [
    "Command", "Error", "Event", "Finalized", "Finished", "Level", "Partial", "Pending", "Pipeline",
    "Punctuator", "Segment", "SpeechStart", "final_text",
]  # fmt: skip

log = logging.getLogger("dictate.pipeline")

LEVEL_INTERVAL = 0.1
"""Seconds of audio between two :class:`Level` events."""


@dataclass
class _Job:
    segment: int
    words: list[Word]
    ended_at: float = field(default=0.0)
    pauses: tuple[tuple[float, float], ...] = ()


_END = None  # the audio thread's last job


class Pipeline:
    """Runs one source at a time through segmentation, recognition and punctuation.

    Args:
        engine: A loaded recognition engine.
        punctuator: The decoder (streaming or baseline), or None to emit raw words.
        on_event: Called with every event, from the worker threads.
        segmenter_options: VAD thresholds and durations.
        vad: A replacement for Silero (for tests of timing logic only).
        commands: Recognise voice commands and spoken punctuation (:mod:`dictate.commands`).
        writer: Turns punctuated text into its written form (numbers, dates, replacements);
            applied to every finalized sentence and the pending text. None: as punctuated.

    A pipeline can be started again after it finished (e.g. on another device after one was
    lost); the punctuator is flushed at the end of every run.
    """

    def __init__(
        self,
        engine: Engine,
        punctuator: Punctuator | None,
        on_event: Callable[[Event], None],
        segmenter_options: SegmenterOptions | None = None,
        vad: Callable[[Any], float] | None = None,
        *,
        commands: bool = False,
        writer: Callable[[str], str] | None = None,
    ) -> None:
        self.engine = engine
        self.punctuator = punctuator
        self.text = TextStage(
            punctuator,
            self._emit,
            commands=commands,
            writer=writer,
            now=self._now,
            on_stop=self.stop,
        )
        self.on_event = on_event
        self.segmenter = Segmenter(segmenter_options, vad)
        self._recognizer = engine.recognizer()
        self._source: AudioSource | None = None
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._threads: list[threading.Thread] = []
        self._started = 0.0
        self._stop_requested = threading.Event()
        self._finished = threading.Event()
        self._finished.set()
        self._segments = 0
        self._need_start = False
        self._open_start: float | None = None
        """Start of the segment the recogniser is decoding; None between segments."""
        self._partial: list[str] = []
        """The open segment's last partial words."""
        self._end_reason = "end_of_audio"
        self._audio_seconds = 0.0

    # -- control -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    def start(self, source: AudioSource) -> None:
        """Start a run on ``source`` in the background; returns at once."""
        if self.running:
            raise RuntimeError("the pipeline is already running; stop it first")
        self._source = source
        self._stop_requested.clear()
        self._finished.clear()
        self._end_reason = "end_of_audio"
        self._audio_seconds = 0.0
        self._need_start, self._open_start, self._partial = False, None, []
        self.segmenter.reset()
        self._started = time.monotonic()
        self._threads = [
            threading.Thread(target=self._audio_loop, name="dictate-audio", daemon=True),
            threading.Thread(target=self._punct_loop, name="dictate-punctuation", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Stop listening; queued audio is still processed, then :class:`Finished` follows."""
        self._stop_requested.set()
        if self._source is not None:
            self._source.stop()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the run has finished; False on timeout."""
        return self._finished.wait(timeout)

    def run(self, source: AudioSource) -> None:
        """Start on ``source`` and wait for the end (files; tests)."""
        self.start(source)
        self.wait()

    # -- threads -----------------------------------------------------------------------------

    def _now(self) -> float:
        return time.monotonic() - self._started

    def _emit(self, event: Event) -> None:
        try:
            self.on_event(event)
        except Exception:  # a broken listener must not kill the pipeline
            log.exception("event listener failed on %s", type(event).__name__)

    def _audio_loop(self) -> None:
        source = self._source
        assert source is not None
        level_samples: list[Any] = []
        level_count = 0
        try:
            for block in source.blocks():
                self._audio_seconds = block.end
                level_samples.append(block.samples)
                level_count += len(block.samples)
                if level_count >= LEVEL_INTERVAL * SAMPLE_RATE:
                    self._emit(Level(self._now(), level_dbfs(np.concatenate(level_samples))))
                    level_samples, level_count = [], 0
                self._segment_events(self.segmenter.process(block.samples))
        except DictateError as exc:
            self._end_reason = "error"
            self._emit(Error(self._now(), str(exc), fatal=True))
        except Exception as exc:
            log.exception("audio thread failed")
            self._end_reason = "error"
            self._emit(Error(self._now(), f"internal error in audio processing: {exc!r}", True))
        try:
            # Close the open segment with the audio that did arrive, even after an error.
            self._segment_events(self.segmenter.flush())
        except Exception as exc:
            log.exception("flushing the recogniser failed")
            self._emit(Error(self._now(), f"recogniser failed at the end: {exc!r}", True))
        if self._open_start is not None:
            # A failure interrupted a segment (its end event was never handled): keep what the
            # recogniser had heard of it, so the words shown greyed are not lost.
            self._rescue_open_segment()
        if self._end_reason != "error" and self._stop_requested.is_set():
            self._end_reason = "stopped"
        self._jobs.put(_END)

    def _segment_events(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, SpeechStarted):
                self._segments += 1
                self._emit(SpeechStart(self._now(), self._segments, event.time))
                self._need_start = True
            elif isinstance(event, SegmentAudio):
                if self._need_start:
                    self._open_start, self._partial = event.start, []
                    self._recognizer.start(event.start)
                    self._need_start = False
                words = self._recognizer.accept(event.samples)
                if words is not None:
                    self._partial = list(words)
                    self._emit(Partial(self._now(), self._segments, words))
            elif isinstance(event, SegmentEnded):
                self._finish_segment(event)

    def _finish_segment(self, event: SegmentEnded) -> None:
        self._open_start = None
        try:
            words = self._recognizer.finish()
        except Exception:
            # The run ends with this error; the segment keeps the words already shown.
            self._close_segment(event, self._partial_words(event.start, event.end))
            raise
        self._close_segment(event, words)

    def _close_segment(self, event: SegmentEnded, words: list[Word]) -> None:
        self._emit(
            Segment(
                self._now(),
                self._segments,
                event.start,
                event.end,
                event.reason,
                words,
                [list(p) for p in event.pauses],
            )
        )
        self._jobs.put(_Job(self._segments, list(words), self._now(), event.pauses))

    def _partial_words(self, start: float, end: float) -> list[Word]:
        """The last partial result as words; the recogniser gave no times, so each word gets
        the segment's span."""
        return [Word(text, start, max(start, end)) for text in self._partial]

    def _rescue_open_segment(self) -> None:
        """Close the segment a failure left open: the recogniser's final words if it can
        still give them, else its last partial result."""
        start, end = self._open_start or 0.0, self._audio_seconds
        self._open_start = None
        try:
            words = self._recognizer.finish()
        except Exception:
            log.exception("the recogniser could not finish the interrupted segment")
            words = self._partial_words(start, end)
        self._close_segment(SegmentEnded(start, max(start, end), "error"), words)

    def _punct_loop(self) -> None:
        try:
            while True:
                job = self._jobs.get()
                if job is _END:
                    break
                self.text.segment(job.segment, job.words, job.pauses)
            self.text.finish(self._segments)
        finally:
            source = self._source
            dropped = getattr(source, "dropped_blocks", 0) if source is not None else 0
            self._emit(Finished(self._now(), self._end_reason, self._audio_seconds, dropped))
            self._finished.set()


def final_text(events: list[Event]) -> str:
    """The dictated text of a finished run: its finalized sentences joined."""
    return " ".join(e.text for e in events if isinstance(e, Finalized) and e.text)
