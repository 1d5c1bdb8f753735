"""The command check of a closed segment (:class:`CommandRefiner`): a short segment said apart
whose words are not a command, judged again on what else was heard and on its audio."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from dictate.asr.command_decode import MAX_COMMAND_S, MAX_COMMAND_WORDS
from dictate.asr.engine import Word
from dictate.audio.format import SAMPLE_RATE
from dictate.commands.heard import heard_command, only_commands
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
    was (:func:`dictate.commands.heard.heard_command`), judged on the words settled so far,
    then the first pass's other guesses (only where no second pass replaced its words), then a
    second decode of the audio against the command phrases."""

    name = COMMANDS
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
