"""Simulate long-form dictation by cutting a transcript into the segments a user might speak.

A dictating user mostly pauses at sentence ends but sometimes mid-sentence (a hesitation), and
the recogniser forces a cut when an utterance gets too long. Evaluating on such segments shows
how punctuation holds up when the model never sees whole sentences at once.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

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
