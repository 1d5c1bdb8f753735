"""The segment seam: what happens to a segment between the segmenter closing it and the text
stage, in one place for every path (the microphone :class:`~dictate.pipeline.Pipeline`, the
parallel :func:`~dictate.file_decode.decode_file`, and audio recovery, which runs a pipeline).

* :class:`ClosedSegment` is a closed segment: its number, span, pauses, its whole audio (kept
  until its words are settled), the first pass's words and what else the first pass heard.
* A :class:`Refiner` takes a closed segment and gives its settled words, or ``None``: "keep what
  you have". Refiners run in order (:func:`settle`); each sees the words the ones before it
  settled. Two are here: the second pass (:class:`SecondPassRefiner`, Whisper re-decoding the
  segment's audio) and the command check (:class:`CommandRefiner`: a short segment said apart
  that missed a command, judged on the settled words, then the first pass's n-best, then a
  second decode against the command phrases). The vocabulary's rewrite of near misses, between
  them, is in :mod:`dictate.vocabulary_refiner`.
* :class:`CommitClock` says when pending words are committed on a pause: the same test after
  every block of audio, wherever the audio comes from.

Nothing here starts a thread: a segment can be settled (and tested) on its own.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from dictate.asr.command_decode import MAX_COMMAND_S, MAX_COMMAND_WORDS
from dictate.asr.engine import Word
from dictate.audio.format import SAMPLE_RATE
from dictate.errors import close_quietly, log_failure
from dictate.events import Segment
from dictate.heard_commands import heard_command, only_commands

log = logging.getLogger("dictate.segments")


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

    @property
    def span(self) -> tuple[float, float]:
        return (self.start, self.end)

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.start)

    def speech(self, before: float = 0.0, after: float = 0.0) -> np.ndarray:
        """The audio from ``before`` seconds before speech began to ``after`` seconds after it
        ended (as far as the kept audio goes)."""
        first = max(0, round((self.start - before - self.audio_start) * SAMPLE_RATE))
        last = max(first, round((self.end + after - self.audio_start) * SAMPLE_RATE))
        return self.audio[first:last]


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
        if self.by in ("", CommandRefiner.name):
            return list(self.segment.alternatives)
        mine = [w.text for w in self.words]
        out: list[list[str]] = []
        for other in [*reversed(self.replaced), *self.segment.alternatives]:
            if other and other != mine and other not in out:
                out.append(other)
        return out

    def event(self, time: float) -> Segment:
        """The :class:`~dictate.events.Segment` event that says so, settled at ``time``."""
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


def prepare_early(segment: ClosedSegment, refiners: Sequence[Any]) -> None:
    """Let the refiners that can (a ``prepare`` method: the second pass) start on ``segment``
    before it closes: its speaker has paused, and it closes as it is unless speech resumes. A
    failure only loses the head start (it is logged)."""
    for refiner in refiners:
        prepare = getattr(refiner, "prepare", None)
        if prepare is None:
            continue
        try:
            prepare(segment)
        except Exception:
            log_failure(log, "%s could not start early on segment %d", refiner.name,
                        segment.number)  # fmt: skip


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


SURE_WORD = 0.9
"""A word the second pass heard with this probability or more, in a short segment said apart,
that is not in the command phrase the grammar decode found, keeps the words as heard. Replayed
on the command audio benchmark's decodes (the README's commands by 8 voices, 242 ordinary
phrases; `benchmarks/commands_audio.py --tune`): ordinary phrases taken for a command went
from 5 to 3 in 242 ("close friends", "scratch out"), the commands carried out from 154 to 152
of 216 ("folks stop" for "full stop" was heard at 1.0); the same at 0.85 and 0.95
(docs/second-pass.md)."""


class CommandRefiner:
    """A short segment said apart whose words are not a command: the command it most likely
    was (:func:`dictate.heard_commands.heard_command`), judged on the words settled so far,
    then the first pass's other guesses (only where no second pass replaced its words), then a
    second decode of the audio against the command phrases."""

    name = "commands"
    rewritten: Sequence[tuple[str, str]] = ()

    def __init__(
        self, decoder: Any, max_seconds: float = MAX_COMMAND_S, max_words: int = MAX_COMMAND_WORDS
    ) -> None:
        self.decoder = decoder
        self.max_seconds = max_seconds
        self.max_words = max_words

    def refine(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        audio = segment.audio
        if not len(audio) or len(audio) > self.max_seconds * SAMPLE_RATE:
            return None
        if not words or len(words) > self.max_words or only_commands(words):
            return None
        replaced = [w.text for w in words] != [w.text for w in segment.words]
        alternatives = [] if replaced else segment.alternatives
        # Words a refiner before this one settled (the second pass's: new words, even where
        # their text is the first pass's) carry its probabilities.
        settled = len(words) != len(segment.words) or any(
            w is not s for w, s in zip(words, segment.words, strict=False)
        )
        sure = SURE_WORD if settled else None
        heard = heard_command(self.decoder, words, audio, alternatives, segment.span, sure)
        return None if heard is words else heard

    def reset(self) -> None:
        pass

    def close(self) -> None:
        close_quietly(self.decoder, log, "the command decoder")  # the window's: a process


class SecondPass(Protocol):
    """A recogniser that decodes a whole segment's audio again (Whisper)."""

    name: str

    def decode(self, segment: ClosedSegment, prompt: str) -> Any:
        """A result with ``words`` (list of :class:`Word`, source times) and ``verdict``:
        "speech" (use the words), "no_speech" (nothing was said) or another word saying why
        the first pass's words are kept."""
        ...

    def close(self) -> None: ...


VOCABULARY_NO_SPEECH = 0.2
"""A second-pass result made only of prompted vocabulary words, with a no-speech probability
over this, is not written (:meth:`SecondPassRefiner._only_named`): a prompt's words come back on
silence (faster-whisper issue 1356)."""

PROMPT_WORDS = 0
"""Words of context given to the second pass: the last words it settled in this run (0: none).
None by default: measured on the benchmark recordings (benchmarks/second_pass_options.py), a
prompt of the last 24 settled words gave more word errors (10.9% against 8.6% on the real
recordings, 16.8% against 15.6% on the long-form set) and 2.6 times the decode time, as
Whisper's temperature fallback ran on the segments it made it doubt."""


class SecondPassRefiner:
    """The second pass as a refiner: its words replace the first pass's when its guards pass;
    "no speech" writes nothing; any other verdict keeps the first pass's words.

    :meth:`prepare` decodes a segment that has not closed yet, once its speaker has paused
    (the pipeline calls it a moment into the silence that may close the segment); when the
    segment then closes with the same speech span and the same prompt, :meth:`refine` uses
    that decode (the audio Whisper hears is the same: the speech and its padding), so its
    words are shown that much sooner after the close.
    """

    rewritten: Sequence[tuple[str, str]] = ()

    def __init__(
        self, second_pass: SecondPass, prompt_words: int = PROMPT_WORDS, vocabulary: Any = None
    ) -> None:
        self.second_pass = second_pass
        self.name = second_pass.name
        self.prompt_words = prompt_words
        self.vocabulary = vocabulary
        """A :class:`~dictate.writing.vocabulary_match.VocabularyMatcher` (None: none): a
        segment whose words come near entries is decoded again with them named in the prompt
        (:meth:`_with_vocabulary`)."""
        self.redecoded = 0
        """Segments decoded again with entries named (for benchmarks)."""
        self._context: list[str] = []
        self._early: tuple[tuple[int, float, float, str], Any] | None = None
        self.verdicts: dict[str, int] = {}
        """How many segments got each verdict in this process (for benchmarks)."""
        self.early_used = 0
        """How many segments were settled with the decode :meth:`prepare` made early."""

    def _key(self, segment: ClosedSegment) -> tuple[int, float, float, str]:
        return (segment.number, segment.start, segment.end, self._prompt())

    def _prompt(self) -> str:
        return " ".join(self._context[-self.prompt_words :]) if self.prompt_words > 0 else ""

    def prepare(self, segment: ClosedSegment) -> None:
        """Decode ``segment`` (still open: its speech so far, with the audio after it) ahead
        of its close, for :meth:`refine` to use if it closes as it is."""
        if len(segment.audio):
            self._early = (self._key(segment), self.second_pass.decode(segment, self._prompt()))

    def refine(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        early, self._early = self._early, None
        if not len(segment.audio):
            return None
        prompt = self._prompt()
        if early is not None and early[0] == self._key(segment):
            result = early[1]
            self.early_used += 1
        else:
            result = self.second_pass.decode(segment, prompt)
        self.verdicts[result.verdict] = self.verdicts.get(result.verdict, 0) + 1
        if result.verdict == "no_speech":
            return []
        if result.verdict != "speech":
            log.info("segment %d keeps the first pass's words: %s", segment.number,
                     result.verdict)  # fmt: skip
            return None
        settled = self._with_vocabulary(segment, result, prompt)
        if self.prompt_words > 0:
            self._context = (self._context + [w.text for w in settled])[-self.prompt_words :]
        return settled

    def _with_vocabulary(self, segment: ClosedSegment, result: Any, prompt: str) -> list[Word]:
        """Where Whisper's words come near entries of the vocabulary
        (:meth:`~dictate.writing.vocabulary_match.VocabularyMatcher.candidates`), the segment is
        decoded again with those entries named in the prompt. Its words are taken only where
        they differ from the first decode's by entries written in place of words it heard
        (:func:`~dictate.writing.vocabulary_match.only_entries_changed`: no other word
        changed, nothing added), and not where they are only the named words on a segment that
        may not be speech (:meth:`_only_named`)."""
        words = list(result.words)
        if not self.vocabulary:
            return words
        from dictate.writing.vocabulary_match import naming, only_entries_changed

        heard = [w.text for w in words]
        named = self.vocabulary.candidates(heard)
        if not named:
            return words
        named_prompt = f"{naming(named)} {prompt}".strip()
        again = self.second_pass.decode(segment, named_prompt)
        self.redecoded += 1
        if again.verdict != "speech" or self._only_named(again, named_prompt):
            return words
        if not only_entries_changed(heard, [w.text for w in again.words], named):
            return words
        return list(again.words)

    def _only_named(self, result: Any, prompt: str) -> bool:
        """Whisper wrote nothing but words of the prompt's vocabulary on a segment it thought
        may not be speech (:data:`VOCABULARY_NO_SPEECH`): a prompt's words come back on
        silence (faster-whisper issue 1356), so they are not written."""
        if not self.vocabulary or not prompt or not result.words:
            return False
        named = {w.lower() for w in re.findall(r"[\w']+", prompt)}
        said = {w.text.lower().strip(".,?!") for w in result.words}
        return said <= named and result.no_speech_prob > VOCABULARY_NO_SPEECH

    def reset(self) -> None:
        self._context = []
        self._early = None

    def close(self) -> None:
        pass  # the loaded model is shared by the runs that use it: its owner frees it
