"""The command check of a closed segment (:class:`CommandRefiner`): a short segment said apart
whose words are not a command, judged again on its audio: by Whisper's scores of the command
phrases near its words (:mod:`dictate.commands.judge`) where a Whisper second pass is loaded,
else by what else the first pass heard and a second decode against the command phrases."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from dictate.asr.command_decode import MAX_COMMAND_S, MAX_COMMAND_WORDS
from dictate.asr.engine import Word
from dictate.audio.format import SAMPLE_RATE
from dictate.commands.heard import heard_command, only_commands, spread
from dictate.commands.judge import MARGINS, Margins, decide, looks_like_command, shortlist
from dictate.commands.table import grammar_phrases
from dictate.errors import close_quietly
from dictate.seam.segment import COMMANDS, ClosedSegment

log = logging.getLogger("dictate.seam")


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
    was.

    With a ``judge`` (Whisper: ``text_scores(audio, texts)``), the command phrases nearest the
    words settled so far are scored against the segment's audio beside those words, and one is
    taken only where it wins by :data:`dictate.commands.judge.MARGINS`
    (:func:`dictate.commands.judge.decide`). Without one
    (:func:`dictate.commands.heard.heard_command`): the first pass's other guesses (only where
    no second pass replaced its words), then the ``decoder``'s second decode of the audio
    against the command phrases."""

    name = COMMANDS
    rewritten: Sequence[tuple[str, str]] = ()

    def __init__(
        self,
        decoder: Any,
        max_seconds: float = MAX_COMMAND_S,
        max_words: int = MAX_COMMAND_WORDS,
        judge: Any = None,
        margins: Margins | None = None,
    ) -> None:
        self.decoder = decoder
        self.judge = judge
        self.margins = margins or MARGINS
        self.max_seconds = max_seconds
        self.max_words = max_words
        self.phrases = grammar_phrases()

    def may_act(self, segment: ClosedSegment, words: Sequence[Any]) -> bool:
        """Whether ``segment`` with ``words`` (the first pass's, or as settled so far) is one
        this check decides: short, said apart, a few words (or already a command)."""
        audio = segment.audio
        return 0 < len(audio) <= self.max_seconds * SAMPLE_RATE and 0 < len(words) <= self.max_words

    def shows_mark(self, segment: ClosedSegment) -> bool:
        """Whether closed ``segment`` (with the first pass's words) shows a mark in place of
        its words until it is settled: it is decided here and its words may be a command."""
        words = [w.text for w in segment.words]
        return self.may_act(segment, words) and looks_like_command(words, self.phrases)

    def _audio(self, segment: ClosedSegment) -> Any:
        """What the judge hears: the audio the second pass decodes (the speech, padded)."""
        from dictate.asr.whisper_engine import PAD_AFTER_S, PAD_BEFORE_S

        return segment.speech(PAD_BEFORE_S, PAD_AFTER_S)

    def refine(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        if not self.may_act(segment, words) or only_commands(words):
            return None
        if self.judge is not None:
            return self._judged(segment, words)
        audio = segment.audio
        replaced = [w.text for w in words] != [w.text for w in segment.words]
        alternatives = [] if replaced else segment.alternatives
        sure = SURE_WORD if self._settled(segment, words) else None
        heard = heard_command(self.decoder, words, audio, alternatives, segment.span, sure)
        return None if heard is words else heard

    @staticmethod
    def _settled(segment: ClosedSegment, words: list[Word]) -> bool:
        """Whether ``words`` are a refiner's before this one (the second pass's: new words,
        even where their text is the first pass's), whose confidences are its probabilities."""
        return len(words) != len(segment.words) or any(
            w is not s for w, s in zip(words, segment.words, strict=False)
        )

    def _judged(self, segment: ClosedSegment, words: list[Word]) -> list[Word] | None:
        heard = [w.text for w in words]
        names = shortlist(heard, self.phrases)
        free = " ".join(heard)
        scores = self.judge.text_scores(self._audio(segment), [*names, free])
        if scores is None:
            return None
        sure_of = [w.confidence for w in words] if self._settled(segment, words) else []
        chosen = decide(heard, dict(zip(names, scores, strict=False)), scores[-1], self.margins,
                        confidences=sure_of)  # fmt: skip
        log.info("segment %d said apart: judged %s", segment.number,
                 "a command" if chosen else "words")  # fmt: skip
        return None if chosen is None else spread(chosen.split(), *segment.span)

    def reset(self) -> None:
        pass

    def close(self) -> None:
        close_quietly(self.decoder, log, "the command decoder")  # the window's: a process
