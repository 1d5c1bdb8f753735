"""Closing segments: the segmenter's events in; speech starts, the open segment's audio, closed
segments (with their whole audio), early-decode offers and commit marks out, in order.

One :class:`Cutter` per run, fed block by block by whoever reads the audio: the live
:class:`~dictate.run.pipeline.Pipeline`'s audio thread and the file reader of
:func:`~dictate.run.file_decode.decode_file`, so a file's segments, their pauses and the points
where pending words are committed are the same on every path. It starts no thread and reads no
clock but the audio's: every decision here (where a segment closes, when a pause commits, when
an open segment is offered for an early decode) is made in source seconds, so the same audio
gives the same cuts however fast it is read and however long the stages after it take.

The first pass is not here: the owner feeds it the :class:`Piece` s and puts its words in each
:class:`Closed` segment (the pipeline at once, the file decode when a worker has decoded it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dictate.asr.segmenter import (
    SegmentAudio,
    SegmentEnded,
    Segmenter,
    SegmenterOptions,
    SpeechStarted,
)
from dictate.seam.segment import ClosedSegment, CommitClock

PREVIEW_EVERY_S = 1.0
"""Seconds of an open segment's speech between two :class:`Preview` offers (source seconds:
made at the same points of the audio every time; whisper_streaming decodes about once a
second too)."""
EARLY_DECODE_S = 0.25
"""Seconds into a pause after which the open segment is offered for an early decode
(:class:`Early`; the segmenter closes it at 0.5 s of silence, and its words are then shown about
this much sooner). Source seconds: the offer is made at the same point of the audio every time."""


@dataclass(frozen=True)
class Began:
    """Speech began: segment ``number`` is open from ``time`` (source seconds)."""

    number: int
    time: float


@dataclass(frozen=True)
class Piece:
    """Audio of the open segment (pre-roll included), in order, for the first pass;
    ``first`` for its first piece (the recogniser starts the segment at ``start``)."""

    number: int
    start: float
    samples: np.ndarray = field(repr=False)
    first: bool


@dataclass(frozen=True)
class Closed:
    """Segment ``segment.number`` closed; its ``words`` are the owner's to fill (the first
    pass's) before it is settled."""

    segment: ClosedSegment


@dataclass(frozen=True)
class Early:
    """The open segment, a moment into a pause (:data:`EARLY_DECODE_S`): its speech so far and
    the audio after it, for a refiner that can start on it (the second pass). ``heard``: as
    :attr:`Preview.heard` (the words that decode hears are shown in place of those)."""

    segment: ClosedSegment
    heard: int = 0


@dataclass(frozen=True)
class Preview:
    """The open segment after each :data:`PREVIEW_EVERY_S` of its speech: its audio so far,
    for the second pass to decode as a preview of its words (display only: the segment is
    decoded again when it closes). ``heard``: how many partial words the first pass had shown
    for it then (the owner's to fill), so that the words it shows after are the newer ones."""

    segment: ClosedSegment
    heard: int = 0


@dataclass(frozen=True)
class Commit:
    """The speaker has been silent for the commit time: commit what is pending."""


Cut = Began | Piece | Closed | Early | Preview | Commit


class Cutter:
    """Segments cut from a run's audio, block by block (see the module's docstring).

    Args:
        options, vad: The segmenter's (:class:`~dictate.asr.segmenter.Segmenter`).
        commit_after: Seconds of silence after a segment after which a :class:`Commit` is
            given (:class:`~dictate.seam.segment.CommitClock`); None: never.
        early_after: Seconds into a pause after which the open segment is given as
            :class:`Early`, once per pause; None: never (a file read faster than it was said
            gains nothing from it).
        preview_every: Seconds of the open segment's speech between two :class:`Preview`
            offers; None: none.
        now: The run's clock, stamped on each closed segment as ``closed_at`` (where the
            latency of its final words counts from; it decides nothing).
    """

    def __init__(
        self,
        options: SegmenterOptions | None = None,
        vad: Callable[[Any], float] | None = None,
        *,
        commit_after: float | None = None,
        early_after: float | None = None,
        preview_every: float | None = None,
        now: Callable[[], float] = lambda: 0.0,
    ) -> None:
        self.segmenter = Segmenter(options, vad)
        self.clock = CommitClock(commit_after)
        self.early_after = early_after
        self.preview_every = preview_every
        self.now = now
        self.number = 0
        """The open (or last) segment's number; 1 for a run's first."""
        self._kept: list[np.ndarray] = []
        self._kept_start = 0.0
        self._speech_at = 0.0
        self._open = False  # between Began and its first piece: the segment has no audio yet
        self._early_sent: tuple[int, tuple[float, float]] | None = None
        self._previews = (0, 0)  # the segment and how many previews it was offered

    def reset(self) -> None:
        """A new run begins."""
        self.segmenter.reset()
        self.clock.reset()
        self.number, self._kept, self._open, self._early_sent = 0, [], False, None
        self._previews = (0, 0)

    @property
    def time(self) -> float:
        """Source seconds judged so far."""
        return self.segmenter.time

    def block(self, samples: np.ndarray) -> list[Cut]:
        """What one block of the source's audio gives, in order: its segments' events, then
        an early offer, then a commit."""
        cuts = self._cut(self.segmenter.process(samples))
        span = self.segmenter.open_span
        if (
            self.early_after is not None
            and span is not None
            and self._kept
            and self.segmenter.silence >= self.early_after - 1e-6
            and (self.number, span) != self._early_sent
        ):
            self._early_sent = (self.number, span)
            audio = np.concatenate(self._kept)
            cuts.append(Early(ClosedSegment(self.number, *span, "silence", [], audio,
                                            self._kept_start)))  # fmt: skip
        if self.preview_every is not None and span is not None and self._kept:
            sent = self._previews[1] if self._previews[0] == self.number else 0
            if span[1] - span[0] >= (sent + 1) * self.preview_every - 1e-6:
                self._previews = (self.number, sent + 1)
                audio = np.concatenate(self._kept)
                cuts.append(Preview(ClosedSegment(self.number, *span, "silence", [], audio,
                                                  self._kept_start)))  # fmt: skip
        if self.clock.due(self.segmenter.in_speech, self.segmenter.time):
            cuts.append(Commit())
        return cuts

    def flush(self) -> list[Cut]:
        """The source ended: the open segment closes with the audio that did arrive."""
        return self._cut(self.segmenter.flush())

    def close_open(self, end: float) -> Closed:
        """Close the open segment where a failure interrupted it (its end event never came),
        with reason "error"."""
        start = self._kept_start if self._kept else end
        return self._close(SegmentEnded(start, max(start, end), "error"))

    def _cut(self, events: list[Any]) -> list[Cut]:
        cuts: list[Cut] = []
        for event in events:
            if isinstance(event, SpeechStarted):
                self.number += 1
                self.clock.speech()
                self._speech_at, self._open = event.time, True
                cuts.append(Began(self.number, event.time))
            elif isinstance(event, SegmentAudio):
                first = self._open
                if first:
                    self._kept, self._kept_start, self._open = [], event.start, False
                samples = np.asarray(event.samples, dtype=np.int16)
                self._kept.append(samples)
                cuts.append(Piece(self.number, event.start, samples, first))
            elif isinstance(event, SegmentEnded):
                cuts.append(self._close(event))
                self.clock.segment_ended(event.end)
        return cuts

    def _close(self, ended: SegmentEnded) -> Closed:
        kept, self._kept = self._kept, []
        return Closed(
            ClosedSegment(
                self.number,
                ended.start,
                ended.end,
                ended.reason,
                [],  # the first pass's: the owner's to fill
                np.concatenate(kept) if kept else np.zeros(0, np.int16),
                self._kept_start,
                ended.pauses,
                speech_at=self._speech_at,
                closed_at=self.now(),
            )
        )
