"""Simulate long-form dictation by cutting a transcript into the segments a user might speak.

A dictating user mostly pauses at sentence ends but sometimes mid-sentence (a hesitation), and
the recogniser forces a cut when an utterance gets too long. Evaluating on such segments shows
how punctuation holds up when the model never sees whole sentences at once.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from dictate.evaluation.readers import TAGS

_SENTENCE_END = frozenset({"PERIOD", "QUESTION"})
_KNOWN_TAGS = frozenset(TAGS)


def simulate_segments(
    words: Sequence[str],
    tags: Sequence[str],
    *,
    seed: int = 0,
    p_end: float = 0.8,
    p_mid: float = 0.1,
    max_words: int = 100,
) -> list[list[str]]:
    """Cut a word sequence into dictation segments at random, reproducibly.

    After a word tagged PERIOD or QUESTION the segment ends with probability ``p_end``, after
    any other word with probability ``p_mid``; a segment always ends on reaching ``max_words``
    and the last one ends with the words. One random draw is made per word boundary whatever
    the outcome, so for a given seed the cuts do not shift when ``max_words`` changes.

    Args:
        words: The words in order.
        tags: One of ``TAGS`` per word.
        seed: Seed of the private random generator.
        p_end: Probability of a cut after a sentence end, in 0..1.
        p_mid: Probability of a cut after any other word, in 0..1.
        max_words: Largest segment length, at least 1.

    Returns:
        Non-empty segments whose concatenation is exactly ``words``; empty for no words.

    Raises:
        ValueError: If the lengths differ, a tag is unknown, a probability is outside 0..1 or
            ``max_words`` is below 1.
    """
    if len(words) != len(tags):
        raise ValueError(f"got {len(words)} words but {len(tags)} tags")
    for name, p in (("p_end", p_end), ("p_mid", p_mid)):
        # `not 0 <= p <= 1` also rejects NaN, which compares false with everything.
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name} must be in [0, 1], got {p}")
    if isinstance(max_words, bool) or not isinstance(max_words, int) or max_words < 1:
        raise ValueError(f"max_words must be an integer >= 1, got {max_words!r}")
    for index, tag in enumerate(tags):
        if tag not in _KNOWN_TAGS:
            raise ValueError(f"tag {tag!r} at position {index} is not one of {', '.join(TAGS)}")

    # A private generator keeps the result independent of anyone else using `random`.
    rng = random.Random(seed)
    segments: list[list[str]] = []
    current: list[str] = []
    last = len(words) - 1
    for index, (word, tag) in enumerate(zip(words, tags, strict=True)):
        current.append(word)
        if index == last:
            break
        p = p_end if tag in _SENTENCE_END else p_mid
        # random() is in [0, 1), so p == 1 always cuts and p == 0 never does.
        cut = rng.random() < p
        if cut or len(current) >= max_words:
            segments.append(current)
            current = []
    if current:
        segments.append(current)
    return segments


@dataclass(frozen=True)
class PauseModel:
    """How long the speaker is silent after each simulated segment, in seconds.

    Every pause that ends a segment is at least the segmenter's silence (``floor``, 0.5 s by
    default: a shorter one does not cut the speech). On top of it comes a log-normal draw: after
    a sentence end with median ``end_median`` (people stop to think between sentences), inside a
    sentence with median ``mid_median`` (a hesitation), both with spread ``sigma``. The defaults
    are an assumption, not a measurement of real dictation; they put about a third of the
    mid-sentence pauses and most of the sentence-end pauses over one second, so commit times
    from 0.5 to 3 s all meet both kinds.
    """

    floor: float = 0.5
    end_median: float = 0.8
    mid_median: float = 0.4
    sigma: float = 0.8

    def __post_init__(self) -> None:
        for name in ("floor", "end_median", "mid_median", "sigma"):
            value = getattr(self, name)
            if not (math.isfinite(value) and value >= 0):
                raise ValueError(f"pause {name} must be a finite number >= 0, got {value}")
        if self.end_median <= 0 or self.mid_median <= 0:
            raise ValueError("pause medians must be positive")


def simulate_pauses(
    segments: Sequence[Sequence[str]],
    tags: Sequence[str],
    *,
    seed: int = 0,
    model: PauseModel | None = None,
) -> list[float]:
    """The silence after each segment of :func:`simulate_segments` (the last: after the
    speech ends), reproducibly and independent of the cuts' random stream.

    Args:
        segments: The segments, whose concatenation has one tag per word in ``tags``.
        tags: The reference tags; a segment whose last word ends a sentence gets a
            sentence-end pause.
        seed: Seed of a generator of its own (the cuts for a seed do not change).
        model: The pause lengths; :class:`PauseModel` defaults if None.

    Returns:
        One pause length in seconds per segment.
    """
    model = model or PauseModel()
    if sum(len(s) for s in segments) != len(tags):
        raise ValueError("the segments do not have one tag per word")
    rng = random.Random(f"pauses-{seed}")
    pauses: list[float] = []
    position = 0
    for segment in segments:
        position += len(segment)
        median = model.end_median if tags[position - 1] in _SENTENCE_END else model.mid_median
        pauses.append(model.floor + rng.lognormvariate(math.log(median), model.sigma))
    return pauses
