"""A live run: audio source -> :class:`~dictate.seam.cutter.Cutter` -> first pass -> the
:class:`~dictate.run.sink.Sink` (refiners, text stage) -> events, on three threads. No Qt here.

* the **audio thread** reads the source, measures the level, cuts segments (the cutter) and
  feeds the streaming recogniser (the first pass), emitting partial words as they change; a
  closed segment gets the recogniser's final words and goes to the refining thread;
* the **refining thread** settles each closed segment in order (:meth:`Sink.settle`: the second
  pass, the vocabulary, the command check) and emits its Segment event; a moment into a pause
  it may start the second pass early on the open segment, if it has nothing else to do;
* the **punctuation thread** writes each settled segment's words through the text stage
  (:meth:`Sink.write`), commits on a pause, punctuates the words being spoken live (at most once
  per ``live_interval``, and not while a closed segment is being settled; old partial results
  are overwritten, never queued) and finishes.

Unbounded queues join them: a slow second pass or punctuator never stalls capture. Every
decision about the words is made on the audio's clock (docs/architecture.md, "The same words
every time"): which thread was idle changes when words appear, not which words.

:meth:`Pipeline.stop` stops the source; what it had captured is still recognised and
punctuated before :class:`Finished`: nothing spoken before Stop is lost. Errors become
:class:`Error` events; words recognised before them are kept. Callbacks run on the worker
threads; a GUI must hand them over to its own thread.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from dictate.asr.engine import Engine
from dictate.asr.segmenter import SegmenterOptions
from dictate.audio.capture import AudioSource
from dictate.audio.format import SAMPLE_RATE
from dictate.audio.resample import level_dbfs
from dictate.errors import DictateError, close_quietly, log_failure
from dictate.events import COMMAND_MARK, Error, Finished, Level, Live, Partial, SpeechStart
from dictate.run.first_pass import FirstPass
from dictate.run.sink import Sink, previews, starts_early
from dictate.run.switch import Switch
from dictate.seam.cutter import (
    EARLY_DECODE_S,
    PREVIEW_EVERY_S,
    Began,
    Closed,
    Commit,
    Cut,
    Cutter,
    Early,
    Piece,
    Preview,
)
from dictate.seam.segment import ClosedSegment, Refiner, Settled
from dictate.text.stage import without_fillers

log = logging.getLogger("dictate.run.pipeline")

LEVEL_INTERVAL = 0.1
"""Seconds of audio between two :class:`Level` events."""
LIVE_INTERVAL = 0.25
"""Seconds between two live punctuations of the words being spoken (each is one model call)."""
NO_PREVIEWS_ENV = "DICTATE_NO_PREVIEWS"
"""Set (to anything but "" or "0"): the live words are the first pass's only, without the
second pass's previews (benchmarks/live_words.py compares both)."""
PREVIEW_BUDGET_S = 0.4
"""Longest a preview may be expected to take (its window's seconds at the last one's rate): a
longer one would still be under way at the close and delay the settled words, so it is left
out. Idle, a preview of a few seconds takes 0.15-0.35 s here; busy, or long, more."""
CATCH_UP_S = 1.0
"""Seconds of captured audio waiting for the recogniser past which it catches up: no partial
words punctuated live, and the recogniser fed in longer pieces
(:data:`~dictate.run.first_pass.CATCH_UP_PIECE_S`)."""

_END = None  # the audio thread's last item
_WAKE = "wake"  # a new partial result is in the live slot


class Pipeline:
    """Runs one source at a time through the cutter, the first pass and ``sink``.

    Args:
        engine: A loaded recognition engine (the first pass).
        sink: The refiners and text stage (:func:`~dictate.run.assembly.build_sink`).
        segmenter_options, vad: The segmenter's (a replacement VAD for tests of timing only).
        commit_after: Seconds of silence after which everything pending is committed; None:
            never (only the next sentence or Stop finalizes).
        live: Punctuate the words being spoken as they are recognised (:class:`Live`).
        vocabulary: The user's vocabulary, for a streaming recogniser that can use it
            (PocketSphinx's dictionary); the refiners' use of it is the sink's.

    A pipeline can be started again after it finished (on another device after one was lost).
    """

    def __init__(
        self,
        engine: Engine,
        sink: Sink,
        segmenter_options: SegmenterOptions | None = None,
        vad: Callable[[Any], float] | None = None,
        *,
        commit_after: float | None = None,
        live: bool = True,
        live_interval: float = LIVE_INTERVAL,
        vocabulary: Sequence[Any] = (),
    ) -> None:
        self.engine = engine
        self.sink = sink
        self.text = sink.text
        self.punctuator = sink.text.punctuator
        self.commit_after = commit_after
        self.live = live and callable(getattr(self.punctuator, "preview", None))
        self.live_interval = live_interval
        self.previews = os.environ.get(NO_PREVIEWS_ENV, "") in ("", "0")
        """Whether the open segment's words are previewed by the second pass (a live source
        with a second pass that can: :meth:`_preview`), and its early decode's words shown;
        :data:`NO_PREVIEWS_ENV` turns both off."""
        if sink.text.on_stop is None:
            sink.text.on_stop = self.stop
        self.cutter = Cutter(segmenter_options, vad, commit_after=commit_after, now=self._now)
        self.first = FirstPass(engine, vocabulary)
        self._source: AudioSource | None = None
        self._closed: queue.Queue[Any] = queue.Queue()  # audio -> refining thread
        self._jobs: queue.Queue[Any] = queue.Queue()  # refining -> punctuation thread
        self._stop_requested = threading.Event()
        self._left = threading.Event()  # leave(): what is not recognised yet is left
        self._finished = threading.Event()
        self._finished.set()
        self._started = 0.0
        self._end_reason = "end_of_audio"
        self._audio_seconds = 0.0
        self._live_lock = threading.Lock()
        self._live_words: tuple[int, list[str], int] | None = None  # not punctuated live yet
        self._live_queued = False
        self._marked = 0  # segments shown as a mark so far (_deciding)
        self._preview_rate = 0.0  # wall seconds the last preview took per second of its window
        self._settling = threading.Event()  # the refining thread settles a closed segment
        self.previews_made = self.previews_skipped = 0
        """Previews made in the last run, and previews and early decodes left out (optional
        work: the machine was busy)."""
        self._switch_lock = threading.Lock()
        self._switch: Switch | None = None
        self._live_source = False

    @property
    def refiners(self) -> list[Refiner]:
        return self.sink.refiners

    @refiners.setter
    def refiners(self, refiners: list[Refiner]) -> None:
        self.sink.refiners = list(refiners)

    @property
    def command_decoder(self) -> Any:  # the command check's decoder (None: none)
        return self.sink.command_decoder()

    def close(self) -> None:
        """Free what the refiners and the recogniser hold; the pipeline is not run again."""
        self._switch_idle()
        self.sink.close()
        self.first.free()

    def switch_to(self, switch: Switch) -> None:
        """Take ``switch``'s parts between two segments (:mod:`dictate.run.switch`): the audio
        thread the recogniser where none is open (or at the end), the refining thread the
        refiners behind the segments closed before. Not running: at once."""
        with self._switch_lock:
            self._switch = switch
        if not self.running:
            self._switch_idle()

    def _switch_idle(self) -> None:
        """A switch still asked for while no run is on (one asked for as the last run ended,
        after its audio thread had finished): made now."""
        if self._switch is not None:
            self._take_switch()
            self._refine_switch(self._closed.get())

    def _take_switch(self) -> None:
        """On the audio thread, between segments: the new recogniser now, the refiners queued."""
        with self._switch_lock:
            switch, self._switch = self._switch, None
        if switch is None:
            return
        self.engine = switch.engine
        if self._live_source:  # the early decode and previews, as start() chose them
            early = starts_early(switch.refiners)
            self.cutter.early_after = EARLY_DECODE_S if early else None
            shown = self.previews and previews(switch.refiners)
            self.cutter.preview_every = PREVIEW_EVERY_S if shown else None
        self._closed.put(switch)
        if switch.recognizer is not None:
            old, self.first.recognizer = self.first.recognizer, switch.recognizer
            threading.Thread(target=close_quietly, args=(old, log, "the recogniser switched "
                             "from"), name="dictate-free", daemon=True).start()  # fmt: skip

    def _refine_switch(self, switch: Switch) -> None:
        old, self.sink.refiners = self.sink.refiners, list(switch.refiners)
        for refiner in switch.refiners:
            refiner.reset()
        for refiner in old:
            close_quietly(refiner, log, refiner.name)
        if switch.done is not None:
            switch.done()

    # -- control -----------------------------------------------------------------------------

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    def start(self, source: AudioSource) -> None:
        """Start a run on ``source`` in the background; returns at once."""
        if self.running:
            raise RuntimeError("the pipeline is already running; stop it first")
        self._switch_idle()
        self._source = source
        for flag in (self._stop_requested, self._left, self._finished):
            flag.clear()
        self._end_reason, self._audio_seconds = "end_of_audio", 0.0
        self.first.reset()
        self._live_words, self._live_queued = None, False
        self._marked = 0
        self._preview_rate, self.previews_made, self.previews_skipped = 0.0, 0, 0
        self.cutter.reset()
        # A source with a clock of its own (a microphone, a paced file: it counts what it
        # captured) gains from an early second pass; a file read at full speed does not.
        live_source = self._live_source = getattr(source, "captured", None) is not None
        early = live_source and self.sink.can_start_early
        self.cutter.early_after = EARLY_DECODE_S if early else None
        shown = live_source and self.previews and self.sink.can_preview
        self.cutter.preview_every = PREVIEW_EVERY_S if shown else None
        self._started = time.monotonic()
        self.sink.start(self._now)
        for target, name in ((self._audio_loop, "audio"), (self._refine_loop, "refine"),
                             (self._punct_loop, "punctuation")):  # fmt: skip
            threading.Thread(target=target, name=f"dictate-{name}", daemon=True).start()

    def stop(self) -> None:
        """Stop listening; queued audio is still processed, then :class:`Finished` follows."""
        self._stop_requested.set()
        if self._source is not None:
            self._source.stop()

    def leave(self) -> None:
        """Stop listening and leave what recognition has not reached (the queued audio, closed
        segments waiting for their final words): :class:`Finished` ``"left"`` within a block.
        For a window closing while far behind: the run's audio is in its kept audio,
        recognised at the next start (:mod:`dictate.ui.audio_recovery`)."""
        self._left.set()
        self.stop()

    def behind(self) -> float:
        """How far recognition is behind the speaker, in seconds: audio captured but not heard
        yet, or, where a closed segment still waits for its words, the time since its speech
        ended (0 for a source with no clock of its own, such as a file read at full speed)."""
        captured = getattr(self._source, "captured", None)
        if captured is None:
            return 0.0
        oldest = self.first.oldest_unshown()
        frontier = self._audio_seconds if oldest is None else min(oldest, self._audio_seconds)
        return max(0.0, float(captured) - frontier)

    def lost_blocks(self) -> int:  # audio blocks of this run that could not be stored (lost)
        return int(getattr(self._source, "dropped_blocks", 0) or 0)

    def wall_time(self, audio_time: float) -> float | None:
        """When (``time.monotonic()``) the audio at ``audio_time`` was captured; None where the
        source is not a live one."""
        origin = getattr(self._source, "origin", None)
        return None if origin is None else float(origin) + audio_time

    def wait(self, timeout: float | None = None) -> bool:  # False on timeout
        return self._finished.wait(timeout)

    def run(self, source: AudioSource) -> None:
        """Start on ``source`` and wait for the end (files; tests)."""
        self.start(source)
        self.wait()

    # -- the audio thread --------------------------------------------------------------------

    def _now(self) -> float:
        return time.monotonic() - self._started

    def _audio_loop(self) -> None:
        source, emit = self._source, self.sink.emit
        assert source is not None
        level: list[Any] = []
        try:
            for block in source.blocks():
                if self._left.is_set():
                    break
                if self._switch is not None and self.first.open_start is None:
                    self._take_switch()  # between two segments
                self._audio_seconds = block.end
                level.append(block.samples)
                if sum(len(s) for s in level) >= LEVEL_INTERVAL * SAMPLE_RATE:
                    emit(Level(self._now(), level_dbfs(np.concatenate(level))))
                    level = []
                self._handle(self.cutter.block(block.samples))
        except DictateError as exc:
            self._end_reason = "error"
            emit(Error(self._now(), str(exc), True))
        except Exception as exc:
            log.exception("audio thread failed")
            self._end_reason = "error"
            emit(Error(self._now(), f"internal error in audio processing: {exc!r}", True))
        if not self._left.is_set():
            try:  # close the open segment with the audio that did arrive, even after an error
                self._handle(self.cutter.flush())
            except Exception as exc:
                log.exception("flushing the recogniser failed")
                emit(Error(self._now(), f"recogniser failed at the end: {exc!r}", True))
            if self.first.open_start is not None:  # a failure left a segment open: keep its words
                self._close(self.cutter.close_open(self._audio_seconds), rescue=True)
            if self._end_reason != "error" and self._stop_requested.is_set():
                self._end_reason = "stopped"
        else:
            self._end_reason = "left"
        self._take_switch()  # one asked for while the last segment was open
        self._closed.put(_END)

    def _handle(self, cuts: list[Cut]) -> None:
        for cut in cuts:
            if isinstance(cut, Began):
                self.sink.emit(SpeechStart(self._now(), cut.number, cut.time))
            elif isinstance(cut, Piece):
                self._piece(cut)
            elif isinstance(cut, Closed):
                self._close(cut)
            elif isinstance(cut, Preview):  # with how many partial words were shown then
                self._closed.put(Preview(cut.segment, len(self.first.partial)))
            elif isinstance(cut, Early):
                self._closed.put(Early(cut.segment, len(self.first.partial)))
            else:  # an early offer or a commit, in order behind the segments
                self._closed.put(cut)

    def _piece(self, piece: Piece) -> None:
        catching_up = float(getattr(self._source, "behind", 0.0)) > CATCH_UP_S
        shown = self.first.feed(piece, catching_up)
        if shown is not None:
            self.sink.emit(Partial(self._now(), piece.number, shown))
            if not catching_up:
                self._offer_live(piece.number, shown)

    def _close(self, closed: Closed, rescue: bool = False) -> None:
        """The first pass's final words into the closed segment, which goes to be settled
        (if the recogniser fails, with its last partial words; the run ends with the error)."""
        try:
            self.first.close(closed.segment, rescue)
            if self.sink.may_be_command(closed.segment):
                self._deciding(closed.segment.number)
        finally:
            self._closed.put(closed.segment)

    def _deciding(self, segment: int) -> None:
        """A closed segment that may be a command: its words are not shown, nor punctuated
        live, until they are settled; a mark stands in their place (:meth:`FirstPass.mark`)."""
        with self._live_lock:
            self._marked += 1  # live words punctuated before this are stale
            self._live_words = None
            self.sink.emit(Partial(self._now(), segment, self.first.mark(segment)))

    def _offer_live(self, segment: int, words: list[str]) -> None:
        """Put the latest partial words in the live slot and wake the punctuation thread."""
        if not self.live or COMMAND_MARK in words:
            return  # (a mark is not a word to punctuate: the words are shown as they are)
        with self._live_lock:
            self._live_words = (segment, words, self._marked)
            wake, self._live_queued = not self._live_queued, True
        if wake:
            self._jobs.put(_WAKE)

    # -- the refining and punctuation threads ------------------------------------------------

    def _refine_loop(self) -> None:
        """Settle each closed segment in order; commits and the end follow them."""
        while True:
            item = self._closed.get()
            if isinstance(item, Early):
                if self._closed.empty() and not self._left.is_set():  # idle, and not left
                    words = self.sink.early(item.segment)
                    self._show(item, words if self.previews else None)
                else:
                    self.previews_skipped += 1
            elif isinstance(item, Preview):
                self._preview(item)
            elif isinstance(item, Switch):
                self._refine_switch(item)
            elif not isinstance(item, ClosedSegment):
                self._jobs.put(item)
                if item is _END:
                    return
            elif not self._left.is_set():  # left: its audio is kept, not settled now
                self._settling.set()
                try:
                    self._jobs.put(self.sink.settle(item, self.first.shown_of(item.number)))
                finally:
                    self._settling.clear()

    def _preview(self, item: Preview) -> None:
        """Decode the open segment's audio so far and show its words in place of the first
        pass's (display only: the words settled at its close are decoded again, whatever the
        preview). Optional work: not where a closed segment waits to be settled (its deadline
        first), nor while the source is behind (catching up), nor after the run was left, nor
        where it would take longer than :data:`PREVIEW_BUDGET_S` at the last preview's rate."""
        behind = float(getattr(self._source, "behind", 0.0))
        # Counted by the window the preview decodes, not by its audio alone: a 1 s preview's
        # rate left out the 2.4 s ones after it (Whisper's window is at least 10 s).
        seconds = self.sink.preview_seconds(len(item.segment.audio) / SAMPLE_RATE)
        busy = not self._closed.empty() or self._left.is_set() or behind > CATCH_UP_S
        if busy or self._preview_rate * seconds > PREVIEW_BUDGET_S:
            self.previews_skipped += 1
            if not busy:  # tried again later: the machine may be idle again
                self._preview_rate *= 0.5
            return
        self.previews_made += 1
        started = time.monotonic()
        words = self.sink.preview(item.segment)
        self._preview_rate = (time.monotonic() - started) / seconds
        self._show(item, words)

    def _show(self, item: Preview | Early, words: list[str] | None) -> None:
        """Show the second pass's ``words`` of the open segment (a preview's, or the early
        decode's: the words it settles on unless speech resumes) in place of the first pass's
        words it had shown when ``item`` was cut."""
        if words is None:
            return
        number = item.segment.number
        end = item.segment.end if isinstance(item, Early) else None
        shown = self.first.previewed(number, without_fillers(words), item.heard, end)
        if shown is not None:
            self.sink.emit(Partial(self._now(), number, shown))
            self._offer_live(number, shown)

    def _punct_loop(self) -> None:
        last_live = -1e9
        try:
            while True:
                timeout = None
                if self._live_words is not None:
                    timeout = max(0.0, last_live + self.live_interval - time.monotonic())
                try:
                    job = self._jobs.get(timeout=timeout) if timeout != 0 else self._jobs.get(False)
                except queue.Empty:
                    # Not while a closed segment is settled: the live view waits for its
                    # deadline (the two shared the cores: the read sentences settled at p95
                    # 1.68 s with it, 1.37 s without, docs/performance.md).
                    if self._live_words is not None and not self._settling.is_set():
                        self._punctuate_live()
                    last_live = time.monotonic()
                    continue
                if job is _END:
                    break
                if job == _WAKE:
                    with self._live_lock:
                        self._live_queued = False
                elif isinstance(job, Commit):
                    self.sink.commit()
                else:
                    assert isinstance(job, Settled)
                    self.sink.write(job)
                    shown = self.first.shown(job.segment.number)
                    if shown is not None:
                        self.sink.emit(Partial(self._now(), self.cutter.number, shown))
            self.sink.finish(self.cutter.number)
            if self.previews_made or self.previews_skipped:
                log.info("previews made: %d; previews and early decodes left out: %d",
                         self.previews_made, self.previews_skipped)  # fmt: skip
        finally:
            source = self._source
            dropped = getattr(source, "dropped_blocks", 0) if source is not None else 0
            self.sink.emit(Finished(self._now(), self._end_reason, self._audio_seconds, dropped))
            self._finished.set()

    def _punctuate_live(self) -> None:
        """Punctuate the latest partial words with the pending words (a :class:`Live` event),
        unless their segment has been written in full since."""
        with self._live_lock:
            live, self._live_words = self._live_words, None
        if live is None or live[0] <= self.sink.written or self.text.raw_mode:
            return
        segment, words, marked = live
        try:
            pending, partial = self.text.preview(words)
        except Exception:  # the live view is a courtesy: the segment's words still come
            log_failure(log, "live punctuation failed")
            return
        with self._live_lock:  # not if a segment was shown as a mark since (_deciding)
            if marked == self._marked:
                self.sink.emit(Live(self._now(), segment, pending, partial, words))
