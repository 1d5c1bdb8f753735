"""The settings of the streaming punctuation decoder (:mod:`dictate.punctuation.decoder`), apart
from it: the command line and the window build them without importing the decoder.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StreamingOptions:
    """Settings of :class:`~dictate.punctuation.decoder.StreamingPunctuator` (defaults measured,
    see docs/punctuation-model.md).

    Attributes:
        min_right_words: Words that must follow a sentence boundary in the window before it is
            trusted and the sentence before it finalized.
        left_context_words: Finalized words kept as read-only left context of each window.
        max_pending_words: Cap on the pending buffer in words; above it the decoder finalizes at
            the most probable boundary (the paper's 40 s rule, counted in words).
        max_pending_tokens: Cap on the pending buffer in model tokens; None means whatever fits
            one model window beside the left context.
        commit_end: At a commit (the speaker paused), the last word ends a sentence when the
            model's probability of a sentence end there reaches this; otherwise it is left
            bare, and its mark is decided (and appended) once the next words give the model
            right context. The model's own tag at the end of its input is no guide: it was
            trained on text that ends with sentences, and puts a full stop after "i went to
            the" with 0.97.
        commit_probes: Words tried one at a time as the next word, to give the model some
            right context at a commit; the sentence-end probability is their mean. Empty: the
            probability at the end of the input. (Defaults tuned on dev2012 with the
            simulator: docs/commit-on-pause.md.)
        hint_weight: How much a recogniser's own mark after a word inside its segment (the
            ``hints`` of :meth:`~dictate.punctuation.decoder.StreamingPunctuator.feed`: Whisper
            writes punctuation) counts against the model: the word's probabilities become
            ``(1 - w) * model + w * hint``. 0: hints are ignored; 0.5: the recogniser's mark
            decides (no other tag can have more). Only Whisper gives hints; the first pass's
            words have none.
        hint_end_weight: The same for the mark after a segment's last word, where the
            recogniser closes every segment with a full stop whether a sentence ends there or
            the speaker only paused (the streaming-punctuation papers' point): weighed
            against the model, which sees the words after it. (Both chosen on half of the
            long-form set and checked on the other half: docs/second-pass.md.)
    """

    min_right_words: int = 4
    left_context_words: int = 10
    max_pending_words: int = 60
    max_pending_tokens: int | None = None
    commit_end: float = 0.7
    commit_probes: tuple[str, ...] = ("the", "and", "i", "so")
    hint_weight: float = 0.5
    hint_end_weight: float = 0.4

    def __post_init__(self) -> None:
        if self.min_right_words < 1:
            raise ValueError("min_right_words must be at least 1")
        if self.left_context_words < 0:
            raise ValueError("left_context_words must not be negative")
        if self.max_pending_words <= self.min_right_words:
            raise ValueError("max_pending_words must be larger than min_right_words")
        if self.max_pending_tokens is not None and self.max_pending_tokens < 1:
            raise ValueError("max_pending_tokens must be positive")
        if not 0.0 <= self.commit_end <= 1.0:
            raise ValueError("commit_end must be between 0 and 1")
        if not (0.0 <= self.hint_weight <= 1.0 and 0.0 <= self.hint_end_weight <= 1.0):
            raise ValueError("hint weights must be between 0 and 1")
