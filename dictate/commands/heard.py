"""Commands heard, not guessed: a short segment said apart whose words are not a command is
taken as the command it most likely was, when the recogniser's other guesses hold one, or when
a second decode of its audio against the command phrases (:mod:`dictate.asr.command_decode`)
says so clearly enough. A misheard command is worse than none: its junk words land in the text.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from dictate.asr.engine import CommandDecoding, Engine, Word
from dictate.asr.registry import abilities_of
from dictate.commands.table import Command, grammar_phrases, split_commands
from dictate.errors import log_failure

log = logging.getLogger("dictate.run.pipeline")


def command_decoder_for(engine: Engine) -> Any:
    """The engine's decoder against the command phrases (read now, so phrases added to
    :mod:`dictate.commands.table` join), or None when the registry declares it none
    (``Abilities.command_decoder``) or it cannot make one."""
    if not abilities_of(engine).command_decoder:
        return None
    try:
        return cast(CommandDecoding, engine).command_decoder(grammar_phrases())
    except Exception:
        log_failure(log, "no second decode of commands: the decoder could not be made")
        return None


def only_commands(words: Sequence[Word | str]) -> bool:
    """Whether ``words`` are a command (or commands) and nothing else."""
    pieces = split_commands(list(words))
    return bool(pieces) and all(isinstance(piece, Command) for piece in pieces)


def heard_command(
    decoder: Any,
    words: list[Word],
    audio: np.ndarray,
    alternatives: Sequence[Sequence[str]],
    span: tuple[float, float],
    sure: float | None = None,
) -> list[Word]:
    """The words of a short segment (``audio``), or the command said apart that they missed.

    Args:
        decoder: The second decode (``decode(samples, heard) -> CommandDecode``).
        words: What the recogniser heard.
        alternatives: Its other guesses, best first (n-best): the first that is a command
            wins without a second decode (on the measured set no ordinary phrase's n-best held
            one).
        span: The segment's time, which a command taken for it spans.
        sure: Where ``words`` are a second pass's (Whisper's, whose confidences are its
            probabilities): a word heard with this confidence or more that is not in the
            phrase the decode found keeps the words as heard ("close friends" said apart,
            heard so at 0.97, is not "close paren"; "comment" at 0.18 is "comma").
    """
    if not words or only_commands(words):
        return words  # nothing heard, or heard as a command already
    for other in alternatives:
        if only_commands(other):
            return spread(list(other), *span)
    try:
        result = decoder.decode(audio, [w.text for w in words])
    except Exception:  # the words as heard are still good
        log_failure(log, "the second decode against the command phrases failed")
        return words
    if not result.accepted:
        return words
    phrase = result.phrase.split()
    if sure is not None and any(w.confidence >= sure for w in words if w.text not in phrase):
        return words  # a word the second pass is sure of and the phrase does not have
    return spread(phrase, *span)


def spread(phrase: list[str], start: float, end: float) -> list[Word]:
    """A phrase taken for a segment's words, spread over its time."""
    step = max(end - start, 0.0) / len(phrase)
    return [Word(w, start + i * step, start + (i + 1) * step, 1.0) for i, w in enumerate(phrase)]
