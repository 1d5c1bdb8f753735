"""The second pass as a refiner of closed segments (:class:`SecondPassRefiner`): Whisper decodes
a segment's audio again and its words replace the first pass's where its guards pass."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any, Protocol

from dictate.asr.engine import Word
from dictate.seam.segment import ClosedSegment

log = logging.getLogger("dictate.seam")


class SecondPass(Protocol):
    """A recogniser that decodes a whole segment's audio again (Whisper)."""

    name: str

    def decode(self, segment: ClosedSegment, prompt: str) -> Any:
        """A result with ``words`` (list of :class:`Word`, source times), ``verdict``:
        "speech" (use the words), "no_speech" (nothing was said) or another word saying why
        the first pass's words are kept, and ``heard_used``: whether the segment's first-pass
        words went into it (then a decode made before they were final is not used)."""
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
        (:meth:`_named_again`)."""
        self.redecoded = 0
        """Segments decoded again with entries named (for benchmarks)."""
        self._context: list[str] = []
        self._early: tuple[tuple[int, float, float, str], Any] | None = None
        self.verdicts: dict[str, int] = {}
        """How many segments got each verdict in this process (for benchmarks)."""
        self.early_used = 0
        """How many segments were settled with the decode :meth:`prepare` made early."""
        self.ahead_used = 0
        """How many were settled with a decode worker's (:attr:`ClosedSegment.ahead`)."""

    def _key(self, segment: ClosedSegment) -> tuple[int, float, float, str]:
        return (segment.number, segment.start, segment.end, self._prompt())

    def _prompt(self) -> str:
        return " ".join(self._context[-self.prompt_words :]) if self.prompt_words > 0 else ""

    def worker_spec(self) -> Any:
        """What a file's decode worker needs to decode segments ahead for :meth:`refine`
        (:attr:`ClosedSegment.ahead`), or None where it cannot: a prompt of the words settled
        before (each decode would wait for the one before it), or a second pass that cannot."""
        spec = getattr(self.second_pass, "worker_spec", None)
        return spec() if callable(spec) and self.prompt_words == 0 else None

    def preview_seconds(self, seconds: float) -> float:
        """Seconds of audio a :meth:`preview` of ``seconds`` decodes (its window)."""
        window = getattr(self.second_pass, "preview_seconds", None)
        return float(window(seconds)) if callable(window) else seconds

    def prepare(self, segment: ClosedSegment) -> list[str] | None:
        """Decode ``segment`` (still open: its speech so far, with the audio after it) ahead
        of its close, for :meth:`refine` to use if it closes as it is. Its words where the
        decode heard speech surely (shown live until the segment is settled), else None."""
        if not len(segment.audio):
            return None
        result = self.second_pass.decode(segment, self._prompt())
        self._early = (self._key(segment), result)
        return [w.text for w in result.words] if result.verdict == "speech" else None

    def preview(self, segment: ClosedSegment) -> list[str] | None:
        """The second pass's words for the open ``segment`` so far, with the prompt its close
        will have (display only: :meth:`refine` decodes the closed segment again); None where
        it cannot preview or heard nothing sure."""
        preview = getattr(self.second_pass, "preview", None)
        if preview is None or not len(segment.audio):
            return None
        return preview(segment, self._prompt())

    def refine(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        early, self._early = self._early, None
        if not len(segment.audio):
            return None
        prompt = self._prompt()
        # The early decode is this segment's decode only where it heard the same audio and
        # used nothing else (the first pass's words were not final then): the words are the
        # same whether or not the refining thread was idle in the pause.
        if early is not None and early[0] == self._key(segment) and not early[1].heard_used:
            result = early[1]
            self.early_used += 1
        elif segment.ahead is not None and not prompt:  # decoded in a file's decode worker
            result = segment.ahead
            self.ahead_used += 1
        else:
            result = self.second_pass.decode(segment, prompt)
        self.verdicts[result.verdict] = self.verdicts.get(result.verdict, 0) + 1
        if result.verdict == "no_speech":
            return []
        if result.verdict == "speech":
            settled = self._named_again(segment, result, prompt) or list(result.words)
        else:
            # Unsure of words near the vocabulary's entries: their names may settle it.
            named = (
                self._named_again(segment, result, prompt) if result.verdict == "unsure" else None
            )
            if named is None:
                log.info("segment %d keeps the first pass's words: %s", segment.number,
                         result.verdict)  # fmt: skip
                return None
            settled = named
        if self.prompt_words > 0:
            self._context = (self._context + [w.text for w in settled])[-self.prompt_words :]
        return settled

    def _named_again(self, segment: ClosedSegment, result: Any, prompt: str) -> list[Word] | None:
        """Where Whisper's words come near entries of the vocabulary
        (:meth:`~dictate.writing.vocabulary_match.VocabularyMatcher.candidates`), the segment is
        decoded again with those entries named in the prompt. Its words are taken only where
        that decode is sure of them (the "speech" verdict) and they differ from the first
        decode's by entries written in place of words it heard
        (:func:`~dictate.writing.vocabulary_match.only_entries_changed`: no other word
        changed, nothing added), and not where they are only the named words on a segment that
        may not be speech (:meth:`_only_named`); None where they are not taken.

        The first decode may be unsure: a name Whisper does not know lowers its confidence in
        the whole segment (espeak-ng's "the report from kowalczyk arrived late": "Kalaklyk",
        unsure in both windows; with "Kowalczyk" named, sure). Its words are then compared as
        they are; the first pass's words are kept where the names do not settle it."""
        if not self.vocabulary or not result.words:
            return None
        from dictate.writing.vocabulary_match import naming, only_entries_changed

        heard = [w.text for w in result.words]
        named = self.vocabulary.candidates(heard)
        if not named:
            return None
        named_prompt = f"{naming(named)} {prompt}".strip()
        again = self.second_pass.decode(segment, named_prompt)
        self.redecoded += 1
        if again.verdict != "speech" or self._only_named(again, named_prompt):
            return None
        if not only_entries_changed(heard, [w.text for w in again.words], named):
            return None
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
