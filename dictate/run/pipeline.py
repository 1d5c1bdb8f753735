"""Audio source -> segmenter -> recogniser -> streaming punctuator -> events. No Qt here.

Three worker threads in this process:

* the **audio thread** reads the source, measures the level, runs the VAD segmenter and feeds
  the streaming recogniser (the first pass), emitting partial words as they change; a segment
  it closes, with its whole audio, is a :class:`~dictate.seam.segment.ClosedSegment`;
* the **refining thread** settles each closed segment's words, in order
  (:func:`~dictate.seam.segment.settle`: the second pass, Whisper, decodes its audio again; a short
  segment said apart is checked for a command), and emits its :class:`Segment` event;
* the **punctuation thread** takes each settled segment's words through the
  :class:`~dictate.text.stage.TextStage`: voice commands, the :class:`StreamingPunctuator` (ONNX
  Runtime) and written forms, emitting finalized sentences, the pending text and commands.

A moment into each pause (:data:`EARLY_DECODE_S`), the audio thread also hands the open
segment to the refining thread, which, if it has nothing else to do, starts the second pass on
it; when the segment closes as it was, that decode is used, so its final words come sooner.

They are joined by unbounded queues (a segment is seconds of audio, then a few dozen words), so
a slow second pass or punctuator never stalls audio capture or partial words. Until a closed
segment's settled words are shown as pending text, its first-pass words stay in front of the
partial words of the next one (greyed), and they are replaced in one step.

**Commit on pause.** When no speech has been heard for ``commit_after`` seconds of source time
after a segment ended, the audio thread queues a commit behind that segment: the punctuation
thread finalizes everything pending with the model's decision for a stream end, without forcing
a full stop (:meth:`TextStage.commit`). Dictation goes on.

**Live punctuation.** The audio thread keeps only the latest partial result in a slot; when the
punctuation thread has nothing queued, it punctuates the pending words together with those
partial words (at most once per ``live_interval`` seconds) and emits a :class:`Live` event. It
never falls behind: old partial results are overwritten, not queued.

:meth:`Pipeline.stop` stops the source; what it had already captured is still segmented,
recognised and punctuated, and the punctuator is flushed, before :class:`Finished` is emitted:
nothing spoken before Stop is lost. Errors (a lost device, a failing punctuator) become
:class:`Error` events; words recognised before them are kept, and if the punctuator fails, later
words still arrive, unpunctuated.

Callbacks run on the worker threads; a GUI must hand them over to its own thread.

Size: the three threads and the hand-offs between them are one state (the open segment, the
unshown segments, the live slot); what a segment is and what settles it are in
:mod:`dictate.seam.segment`.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dictate.asr.engine import Engine, Word, recognizer_with
from dictate.asr.segmenter import (
    SegmentAudio,
    SegmentEnded,
    Segmenter,
    SegmenterOptions,
    SpeechStarted,
)
from dictate.audio.capture import AudioSource
from dictate.audio.format import SAMPLE_RATE
from dictate.audio.resample import level_dbfs
from dictate.commands.heard import command_decoder_for
from dictate.editing.text import separator
from dictate.errors import DictateError, close_quietly, log_failure
from dictate.events import (
    Command,
    Error,
    Event,
    Finalized,
    Finished,
    Level,
    Live,
    Partial,
    Pending,
    Segment,
    SpeechStart,
)
from dictate.seam.command_refiner import CommandRefiner
from dictate.seam.segment import ClosedSegment, CommitClock, Refiner, prepare_early, settle
from dictate.text.stage import Punctuator, TextStage, without_fillers

__all__ = [
    "Command", "Error", "Event", "Finalized", "Finished", "Level", "Live", "Partial", "Pending",
    "Pipeline",
    "Punctuator", "Segment", "SpeechStart", "final_text",
]  # fmt: skip

log = logging.getLogger("dictate.run.pipeline")

LEVEL_INTERVAL = 0.1
"""Seconds of audio between two :class:`Level` events."""


@dataclass
class _Job:
    """A settled segment on its way to the text stage."""

    segment: int
    words: list[Word]
    pauses: tuple[tuple[float, float], ...] = ()
    rewrites: tuple[tuple[str, str], ...] = ()
    """The user's vocabulary's rewrites in ``words`` ((written, heard) each)."""


_END = None  # the audio thread's last job
_COMMIT = "commit"  # the speaker paused for the commit time
_WAKE = "wake"  # a new partial result is in the live slot
_EARLY = "early"  # (_EARLY, segment): an open segment whose speaker paused

EARLY_DECODE_S = 0.25
"""Seconds into a pause after which the refining thread, if idle, starts the second pass on
the open segment (:func:`~dictate.seam.segment.prepare_early`); the segmenter closes it at 0.5 s of
silence, and its words are then shown about this much sooner. Speech that resumes makes that
decode wasted work, done only while the refining thread had nothing else to do."""

LIVE_INTERVAL = 0.25
"""Seconds between two live punctuations of the words being spoken (each is one model call)."""

CATCH_UP_S = 1.0
"""Seconds of captured audio waiting for the recogniser past which it catches up: no partial
words punctuated live, and the recogniser fed in longer pieces (:meth:`Pipeline._feed`)."""
CATCH_UP_PIECE_S = 1.0
"""Seconds of audio in one piece fed to the recogniser while catching up."""


class Pipeline:
    """Runs one source at a time through segmentation, recognition and punctuation.

    Args:
        engine: A loaded recognition engine.
        punctuator: The decoder (streaming or baseline), or None to emit raw words.
        on_event: Called with every event, from the worker threads.
        segmenter_options: VAD thresholds and durations.
        vad: A replacement for Silero (for tests of timing logic only).
        commands: Recognise voice commands and spoken punctuation (:mod:`dictate.commands.table`).
        writer: Turns punctuated text into its written form (numbers, dates, replacements);
            applied to every finalized sentence and the pending text. None: as punctuated.
        commit_after: Seconds of silence after which everything pending is committed; None:
            never (only the next sentence or Stop finalizes).
        live: Punctuate the words being spoken as they are recognised (:class:`Live`).
        stop_command: Whether "stop dictating" stops the pipeline (off for an audio file: see
            :class:`TextStage`).
        command_decode: Decode a segment short enough to be a command a second time against
            the command phrases, when the engine can (:mod:`dictate.asr.command_decode`);
            None: on when ``commands`` is. It runs on the punctuation thread, never stalling
            capture.
        units: Join spelled letters and "p m" after a time into one word before punctuation
            (:class:`TextStage`); off for a language other than English.
        addresses: Join e-mail and web addresses said in words (a written form).
        vocabulary: The user's vocabulary, for a streaming recogniser that can use it
            (``add_vocabulary``: PocketSphinx); the refiners' use of it is in ``refiners``.

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
        commit_after: float | None = None,
        live: bool = True,
        live_interval: float = LIVE_INTERVAL,
        stop_command: bool = True,
        command_decode: bool | None = None,
        units: bool = True,
        addresses: bool = False,
        refiners: list[Refiner] | None = None,
        vocabulary: Sequence[Any] = (),
    ) -> None:
        self.clock = CommitClock(commit_after)
        self.engine = engine
        self.refiners: list[Refiner] = list(refiners or [])
        """What settles a closed segment's words, in order (the second pass first, then the
        command check)."""
        if commands and (command_decode is None or command_decode):
            self.command_decoder = command_decoder_for(engine)
        self._kept: list[np.ndarray] = []
        """The open segment's samples (pre-roll included), kept until its words are settled."""
        self._kept_start = 0.0
        self._speech_at = 0.0
        self.commit_after = commit_after
        self.live = live and punctuator is not None and hasattr(punctuator, "preview")
        self.live_interval = live_interval
        self.punctuator = punctuator
        self.text = TextStage(
            punctuator,
            self._emit,
            commands=commands,
            writer=writer,
            now=self._now,
            on_stop=self.stop,
            stop_command=stop_command,
            units=units,
            addresses=addresses,
        )
        self.on_event = on_event
        self.segmenter = Segmenter(segmenter_options, vad)
        self._recognizer = recognizer_with(engine, vocabulary)
        self._source: AudioSource | None = None
        self._jobs: queue.Queue[_Job | str | None] = queue.Queue()
        self._closed: queue.Queue[ClosedSegment | tuple[str, ClosedSegment] | str | None] = (
            queue.Queue()
        )
        """Closed segments (and commits, early decodes, the end) from the audio to the refining
        thread."""
        self._early_sent: tuple[int, tuple[float, float]] | None = None
        """The open segment and speech span last handed over for an early decode."""
        self._unshown_lock = threading.Lock()
        self._unshown: dict[int, tuple[float, list[str]]] = {}
        """Closed segments whose settled words are not shown yet: their end (how far behind
        recognition is counts from there: a long segment's first words are as old as it is
        long whatever the load) and their first-pass words."""
        self._unfed: list[np.ndarray] = []
        """Audio of the open segment not given to the recogniser yet (while catching up)."""
        self._threads: list[threading.Thread] = []
        self._started = 0.0
        self._stop_requested = threading.Event()
        self._left = threading.Event()  # leave(): what is not recognised yet is left
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
        self._live_lock = threading.Lock()
        self._live_words: tuple[int, list[str]] | None = None
        """The latest partial result (segment, words) not yet punctuated live."""
        self._live_queued = False

    @property
    def command_decoder(self) -> Any:
        """The engine's decoder against the command phrases (None: no second decode of
        commands), held by the :class:`~dictate.seam.command_refiner.CommandRefiner`."""
        for refiner in self.refiners:
            if isinstance(refiner, CommandRefiner):
                return refiner.decoder
        return None

    @command_decoder.setter
    def command_decoder(self, decoder: Any) -> None:
        self.refiners = [r for r in self.refiners if not isinstance(r, CommandRefiner)]
        if decoder is not None:
            self.refiners.append(CommandRefiner(decoder))

    def close(self) -> None:
        """Free what the refiners and the recogniser hold (child processes, a model); the
        pipeline is not run again."""
        for refiner in self.refiners:
            close_quietly(refiner, log, refiner.name)
        close_quietly(self._recognizer, log, "the recogniser")  # a child process (the window's)

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
        self._left.clear()
        self._finished.clear()
        self._end_reason = "end_of_audio"
        self._audio_seconds = 0.0
        self._need_start, self._open_start, self._partial = False, None, []
        self._kept, self._early_sent, self._unfed = [], None, []
        self.clock.reset()
        self._unshown = {}
        for refiner in self.refiners:
            refiner.reset()
        self._live_words, self._live_queued = None, False
        self.segmenter.reset()
        self._started = time.monotonic()
        self._threads = [
            threading.Thread(target=self._audio_loop, name="dictate-audio", daemon=True),
            threading.Thread(target=self._refine_loop, name="dictate-refine", daemon=True),
            threading.Thread(target=self._punct_loop, name="dictate-punctuation", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self) -> None:
        """Stop listening; queued audio is still processed, then :class:`Finished` follows."""
        self._stop_requested.set()
        if self._source is not None:
            self._source.stop()

    def leave(self) -> None:
        """Stop listening and leave what recognition has not reached: the audio still queued
        is not heard and closed segments waiting for their final words are dropped, so the
        run ends within a block (or a second-pass decode already under way), with
        :class:`Finished` ``"left"``. For a window closing while far behind: the run's audio
        is in its kept audio, recognised at the next start
        (:mod:`dictate.ui.audio_recovery`)."""
        self._left.set()
        self.stop()

    def behind(self) -> float:
        """How far recognition is behind the speaker, in seconds: audio captured but not heard
        by the recogniser yet, or, where a closed segment still waits for its second pass or
        punctuation, the time since its speech ended (0 for a source with no clock of its own,
        such as an audio file read at full speed)."""
        captured = getattr(self._source, "captured", None)
        if captured is None:
            return 0.0
        frontier = self._audio_seconds
        with self._unshown_lock:
            if self._unshown:
                frontier = min(frontier, min(end for end, _ in self._unshown.values()))
        return max(0.0, float(captured) - frontier)

    def lost_blocks(self) -> int:
        """Audio blocks of this run that could not be stored anywhere (lost)."""
        return int(getattr(self._source, "dropped_blocks", 0) or 0)

    def wall_time(self, audio_time: float) -> float | None:
        """When (``time.monotonic()``) the audio at ``audio_time`` was captured; None where the
        source is not a live one (an audio file is read faster than it was said)."""
        origin = getattr(self._source, "origin", None)
        return None if origin is None else float(origin) + audio_time

    def _catching_up(self) -> bool:
        """Recognition is more than :data:`CATCH_UP_S` behind the microphone: partial words
        are skipped (the recogniser is fed in long pieces, nothing is punctuated live) until
        it has caught up. Every word still comes, from the segment's final decode."""
        return float(getattr(self._source, "behind", 0.0)) > CATCH_UP_S

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
            log_failure(log, "event listener failed on %s", type(event).__name__)

    def _audio_loop(self) -> None:
        source = self._source
        assert source is not None
        level_samples: list[Any] = []
        level_count = 0
        try:
            for block in source.blocks():
                if self._left.is_set():
                    break
                self._audio_seconds = block.end
                level_samples.append(block.samples)
                level_count += len(block.samples)
                if level_count >= LEVEL_INTERVAL * SAMPLE_RATE:
                    self._emit(Level(self._now(), level_dbfs(np.concatenate(level_samples))))
                    level_samples, level_count = [], 0
                self._segment_events(self.segmenter.process(block.samples))
                self._offer_early()
                self._check_commit()
        except DictateError as exc:
            self._end_reason = "error"
            self._emit(Error(self._now(), str(exc), fatal=True))
        except Exception as exc:
            log.exception("audio thread failed")
            self._end_reason = "error"
            self._emit(Error(self._now(), f"internal error in audio processing: {exc!r}", True))
        if self._left.is_set():
            self._end_reason = "left"
            self._closed.put(_END)
            return
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
        self._closed.put(_END)

    def _offer_early(self) -> None:
        """A moment into a pause, hand the open segment to the refining thread for an early
        second pass (once per pause; only where a refiner can use it)."""
        span = self.segmenter.open_span
        if span is None or self.segmenter.silence < EARLY_DECODE_S - 1e-6 or not self._kept:
            return
        key = (self._segments, span)
        if key == self._early_sent or not any(hasattr(r, "prepare") for r in self.refiners):
            return
        self._early_sent = key
        audio = np.concatenate(self._kept)
        early = ClosedSegment(self._segments, *span, "silence", [], audio, self._kept_start)
        self._closed.put((_EARLY, early))

    def _check_commit(self) -> None:
        """Queue a commit once the speaker has been silent for the commit time."""
        if self.clock.due(self.segmenter.in_speech, self.segmenter.time):
            self._closed.put(_COMMIT)

    def _segment_events(self, events: list[Any]) -> None:
        for event in events:
            if isinstance(event, SpeechStarted):
                self._segments += 1
                self.clock.speech()
                self._speech_at = event.time
                self._emit(SpeechStart(self._now(), self._segments, event.time))
                self._need_start = True
            elif isinstance(event, SegmentAudio):
                if self._need_start:
                    self._open_start, self._partial = event.start, []
                    self._recognizer.start(event.start)
                    self._need_start = False
                    self._kept, self._kept_start = [], event.start
                self._kept.append(np.array(event.samples, dtype=np.int16))
                catching_up = self._catching_up()
                words = self._feed(event.samples, catching_up)
                if words is not None:
                    with self._unshown_lock:
                        self._partial = without_fillers(words)
                        shown = self._unshown_words() + self._partial
                        self._emit(Partial(self._now(), self._segments, shown))
                    if not catching_up:
                        self._offer_live(self._segments, shown)
            elif isinstance(event, SegmentEnded):
                self._finish_segment(event)
                self.clock.segment_ended(event.end)

    def _feed(self, samples: Any, catching_up: bool) -> list[str] | None:
        """Give the recogniser ``samples`` (while catching up, gathered into pieces of
        :data:`CATCH_UP_PIECE_S`: fewer calls, fewer partial results); its partial words."""
        if catching_up:
            self._unfed.append(np.asarray(samples, dtype=np.int16))
            if sum(len(p) for p in self._unfed) < CATCH_UP_PIECE_S * SAMPLE_RATE:
                return None
            samples = self._unfed_audio()
        elif self._unfed:
            samples = np.concatenate([self._unfed_audio(), np.asarray(samples, np.int16)])
        return self._recognizer.accept(samples)

    def _unfed_audio(self) -> np.ndarray:
        audio, self._unfed = np.concatenate(self._unfed), []
        return audio

    def _feed_rest(self) -> None:
        """The segment ends: the recogniser hears what it has not heard yet."""
        if self._unfed:
            self._recognizer.accept(self._unfed_audio())

    def _unshown_words(self) -> list[str]:
        """The first-pass words of closed segments not shown as pending text yet, in order
        (hold ``_unshown_lock``)."""
        return [w for number in sorted(self._unshown) for w in self._unshown[number][1]]

    def _shown(self, segment: int) -> None:
        """Segment ``segment``'s settled words are shown (or taken): its first-pass words leave
        the partial words, which are shown again without them."""
        with self._unshown_lock:
            if self._unshown.pop(segment, None) is None:
                return
            if self._open_start is None and not self._unshown:
                return  # nothing open: the pending text replaced the partial words
            shown = self._unshown_words() + (self._partial if self._open_start else [])
            self._emit(Partial(self._now(), self._segments, shown))

    def _offer_live(self, segment: int, words: list[str]) -> None:
        """Put the latest partial words in the live slot and wake the punctuation thread."""
        if not self.live:
            return
        with self._live_lock:
            self._live_words = (segment, words)
            wake = not self._live_queued
            self._live_queued = True
        if wake:
            self._jobs.put(_WAKE)

    def _finish_segment(self, event: SegmentEnded) -> None:
        self._open_start = None
        try:
            self._feed_rest()
            words = self._recognizer.finish()
        except Exception:
            # The run ends with this error; the segment keeps the words already shown.
            self._close_segment(event, self._partial_words(event.start, event.end))
            raise
        self._close_segment(event, words)

    def _close_segment(self, event: SegmentEnded, words: list[Word]) -> None:
        kept, self._kept = self._kept, []
        closed = ClosedSegment(
            self._segments,
            event.start,
            event.end,
            event.reason,
            list(words),
            np.concatenate(kept) if kept else np.zeros(0, np.int16),
            self._kept_start,
            event.pauses,
            list(getattr(self._recognizer, "alternatives", None) or []),
            self._speech_at,
            self._now(),
        )
        with self._unshown_lock:
            self._unshown[closed.number] = (closed.end, [w.text for w in without_fillers(words)])
            self._partial = []
        self._closed.put(closed)

    def _refine_loop(self) -> None:
        """Settle each closed segment's words in order; commits and the end follow them."""
        while True:
            item = self._closed.get()
            if isinstance(item, tuple):  # (_EARLY, segment)
                if self._closed.empty() and not self._left.is_set():  # idle, and not left
                    prepare_early(item[1], self.refiners)
                continue
            if not isinstance(item, ClosedSegment):
                self._jobs.put(item)
                if item is _END:
                    return
                continue
            if self._left.is_set():
                continue  # left (its audio is kept): not settled now
            try:
                settled = settle(item, self.refiners)
            except Exception:  # settle keeps words; this is a bug: the first pass's words
                log.exception("settling segment %d failed", item.number)
                settled = settle(item, [])
            self._emit(settled.event(self._now()))
            self._jobs.put(_Job(item.number, settled.words, item.pauses, tuple(settled.rewrites)))

    def _punctuate_live(self, done_segment: int) -> None:
        """Punctuate the latest partial words with the pending words (a :class:`Live` event),
        unless their segment has been punctuated in full since."""
        with self._live_lock:
            live, self._live_words = self._live_words, None
        if live is None or live[0] <= done_segment or self.text.raw_mode:
            return
        segment, words = live
        try:
            pending, partial = self.text.preview(words)
        except Exception:  # the live view is a courtesy: the segment's words still come
            log_failure(log, "live punctuation failed")
            return
        self._emit(Live(self._now(), segment, pending, partial, words))

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
            self._feed_rest()
            words = self._recognizer.finish()
        except Exception:
            log.exception("the recogniser could not finish the interrupted segment")
            words = self._partial_words(start, end)
        self._close_segment(SegmentEnded(start, max(start, end), "error"), words)

    def _punct_loop(self) -> None:
        last_live = -1e9
        done_segment = 0  # the last segment whose words were punctuated
        try:
            while True:
                timeout = None
                if self._live_words is not None:
                    timeout = max(0.0, last_live + self.live_interval - time.monotonic())
                try:
                    if timeout is None:
                        job = self._jobs.get()
                    elif timeout > 0:
                        job = self._jobs.get(timeout=timeout)
                    else:
                        job = self._jobs.get_nowait()
                except queue.Empty:
                    if self._live_words is not None:
                        self._punctuate_live(done_segment)
                        last_live = time.monotonic()
                    continue
                if job is _END:
                    break
                if job == _WAKE:
                    with self._live_lock:
                        self._live_queued = False
                    continue
                if job == _COMMIT:
                    self.text.commit(done_segment)
                    continue
                assert isinstance(job, _Job)
                done_segment = job.segment
                self.text.segment(job.segment, job.words, job.pauses, job.rewrites)
                self._shown(job.segment)
            self.text.finish(self._segments)
        finally:
            source = self._source
            dropped = getattr(source, "dropped_blocks", 0) if source is not None else 0
            self._emit(Finished(self._now(), self._end_reason, self._audio_seconds, dropped))
            self._finished.set()


def final_text(events: list[Event]) -> str:
    """The dictated text of a finished run: its finalized sentences joined (a mark appended
    after words a pause committed joins them without a space)."""
    text = ""
    for event in events:
        if isinstance(event, Finalized) and event.text:
            text += (separator(event.text) if text else "") + event.text
    return text
