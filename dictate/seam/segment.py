"""The segment seam: what happens to a segment between the segmenter closing it and the text
stage, in one place for every path (the microphone :class:`~dictate.run.pipeline.Pipeline`, the
parallel :func:`~dictate.run.file_decode.decode_file`, and audio recovery, which runs a pipeline).

* :class:`ClosedSegment` is a closed segment: its number, span, pauses, its whole audio (kept
  until its words are settled), the first pass's words and what else the first pass heard.
* A :class:`Refiner` takes a closed segment and gives its settled words, or ``None``: "keep what
  you have". Refiners run in order (:func:`settle`); each sees the words the ones before it
  settled. Two are here: the second pass (:class:`SecondPassRefiner`, Whisper re-decoding the
  segment's audio) and the command check (:class:`CommandRefiner`: a short segment said apart
  that missed a command, judged on the settled words, then the first pass's n-best, then a
  second decode against the command phrases). The vocabulary's rewrite of near misses, between
  them, is in :mod:`dictate.seam.vocabulary`.
* :class:`CommitClock` says when pending words are committed on a pause: the same test after
  every block of audio, wherever the audio comes from.

Nothing here starts a thread: a segment can be settled (and tested) on its own.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from dictate.asr.engine import Word
from dictate.audio.format import between
from dictate.errors import log_failure
from dictate.events import Segment

log = logging.getLogger("dictate.seam")

COMMANDS = "commands"
"""The name of the command check's refiner (:class:`~dictate.seam.command_refiner.CommandRefiner`):
a command taken for a segment's words writes none."""


@dataclass
class ClosedSegment:
    """A segment the segmenter closed, as every refiner and the text stage see it."""

    number: int
    """1 for the run's first segment."""
    start: float
    """Source seconds where speech began (the pre-roll is before it)."""
    end: float
    """Source seconds where speech ended."""
    reason: str
    """Why it closed: "silence", "max_length", "end_of_audio" or "error"."""
    words: list[Word]
    """The first pass's words (the streaming recogniser's final result)."""
    audio: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0, np.int16))
    """Its int16 samples from ``audio_start`` on: pre-roll, speech and the silence that ended
    it; empty where it was not kept."""
    audio_start: float = 0.0
    """Source seconds of ``audio``'s first sample."""
    pauses: tuple[tuple[float, float], ...] = ()
    """Silences inside it, shorter than one that ends a segment (where commands can be)."""
    alternatives: list[list[str]] = field(default_factory=list)
    """The first pass's other hypotheses (n-best after the best), as words."""
    speech_at: float = 0.0
    """Source seconds at which the segmenter heard speech begin."""
    closed_at: float = 0.0
    """The run's clock (event time) when the segmenter closed it: where the latency of its
    final words is counted from."""
    ahead: Any = None
    """The second pass's decode of it made in a decode worker (:mod:`dictate.asr.decode_worker`),
    with no prompt, or None: :meth:`~dictate.seam.second_pass.SecondPassRefiner.refine` uses it
    in place of decoding it again."""

    @property
    def span(self) -> tuple[float, float]:
        return (self.start, self.end)

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)

    def speech(self, before: float = 0.0, after: float = 0.0) -> np.ndarray:
        """The audio from ``before`` seconds before speech began to ``after`` seconds after it
        ended (as far as the kept audio goes)."""
        return between(self.audio, self.audio_start, self.start - before, self.end + after)


@dataclass
class Settled:
    """A segment's words once its refiners have run."""

    segment: ClosedSegment
    words: list[Word]
    """The words that go to the text stage."""
    by: str = ""
    """The refiner whose words these are ("" for the first pass's)."""
    notes: list[str] = field(default_factory=list)
    """One line per refiner that kept what it had, saying why (for the log and benchmarks)."""
    replaced: list[list[str]] = field(default_factory=list)
    """The words each refiner that replaced words was given, in order (the second pass's
    words before the vocabulary rewrote them...)."""
    rewrites: list[tuple[str, str]] = field(default_factory=list)
    """The vocabulary's rewrites in these words, in order: (the entry as written, the words
    it replaced)."""

    @property
    def alternatives(self) -> list[list[str]]:
        """What else was heard (for "correct that"): the words each refiner replaced, the
        latest first (what the vocabulary rewrote, the first pass's words a second pass
        replaced), then the first pass's n-best. (A command taken for the words writes no
        words: its alternatives are the first pass's.)"""
        if self.by in ("", COMMANDS):
            return list(self.segment.alternatives)
        mine = [w.text for w in self.words]
        out: list[list[str]] = []
        for other in [*reversed(self.replaced), *self.segment.alternatives]:
            if other and other != mine and other not in out:
                out.append(other)
        return out

    def event(self, time: float, shown: list[str] | None = None) -> Segment:
        """The :class:`~dictate.events.Segment` event that says so, settled at ``time``
        (``shown``: the live words it replaces)."""
        segment = self.segment
        return Segment(
            time,
            segment.number,
            segment.start,
            segment.end,
            segment.reason,
            self.words,
            [list(p) for p in segment.pauses],
            self.alternatives or None,
            list(segment.words) if self.by else None,
            self.by,
            segment.closed_at,
            [list(r) for r in self.rewrites] or None,
            shown,
        )


class Refiner(Protocol):
    """Settles a closed segment's words."""

    name: str

    @property
    def rewritten(self) -> Sequence[tuple[str, str]]:
        """What its last :meth:`refine` wrote in place of words heard, as (written, heard)
        pairs, kept beside the text so that an undo gives back what was heard (the user's
        vocabulary); empty for a refiner that recognises words again rather than rewriting."""
        ...

    def refine(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        """The segment's words (``words``: as the refiners before this one settled them), or
        None to keep ``words``. An empty list means: nothing was said."""
        ...

    def reset(self) -> None:
        """A new run begins (forget any context of the last one)."""
        ...

    def close(self) -> None:
        """Free what it holds (a process, a model)."""
        ...


def prepare_early(segment: ClosedSegment, refiners: Sequence[Any]) -> list[str] | None:
    """Let the refiners that can (a ``prepare`` method: the second pass) start on ``segment``
    before it closes: its speaker has paused, and it closes as it is unless speech resumes. A
    failure only loses the head start (it is logged). The words the first of them heard (what
    its ``prepare`` returned: the second pass's, where it was sure), for the live words; None
    where none heard any."""
    heard: list[str] | None = None
    for refiner in refiners:
        prepare = getattr(refiner, "prepare", None)
        if prepare is None:
            continue
        try:
            words = prepare(segment)
        except Exception:
            log_failure(log, "%s could not start early on segment %d", refiner.name,
                        segment.number)  # fmt: skip
            continue
        if heard is None and words is not None:
            heard = list(words)
    return heard


def settle(segment: ClosedSegment, refiners: Sequence[Refiner]) -> Settled:
    """Run ``refiners`` over ``segment`` in order. A refiner that fails keeps the words it was
    given (the failure is logged): a refiner may improve words, never lose them."""
    result = Settled(segment, list(segment.words))
    for refiner in refiners:
        try:
            words = refiner.refine(segment, result.words)
        except Exception:
            log_failure(log, "%s failed on segment %d; its words are kept", refiner.name,
                        segment.number)  # fmt: skip
            result.notes.append(f"{refiner.name}: failed")
            continue
        if words is None:
            continue
        result.replaced.append([w.text for w in result.words])
        result.words, result.by = list(words), refiner.name
        result.rewrites = list(refiner.rewritten)  # of these words: a later refiner's own
    return result


class CommitClock:
    """When pending words are committed on a pause: ``after`` seconds of source time after the
    last segment ended, unless speech began again first. One clock per run."""

    def __init__(self, after: float | None) -> None:
        if after is not None and not after > 0:
            raise ValueError(f"commit_after must be positive seconds or None, not {after}")
        self.after = after
        self._due: float | None = None

    def reset(self) -> None:
        self._due = None

    def speech(self) -> None:
        """Speech began: no commit until the next segment ends."""
        self._due = None

    def segment_ended(self, end: float) -> None:
        """A segment's speech ended at ``end`` (source seconds). From the end of speech, not
        from when the segmenter noticed the silence: a commit time shorter than the segmenter's
        silence commits right after the segment."""
        if self.after is not None:
            self._due = end + self.after

    def due(self, in_speech: bool, time: float) -> bool:
        """Whether to commit now (after a block, at source time ``time``); True once."""
        if self._due is not None and not in_speech and time >= self._due:
            self._due = None
            return True
        return False
