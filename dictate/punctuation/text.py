"""Turning typed or recognised text into the words the model expects."""

from __future__ import annotations

#: A recogniser segment is at most 40 s of speech (~150 words); anything near this is not one.
MAX_SEGMENT_WORDS = 2_000


def _strip_marks(token: str) -> str:
    start, stop = 0, len(token)
    while start < stop and not token[start].isalnum():
        start += 1
    while stop > start and not token[stop - 1].isalnum():
        stop -= 1
    return token[start:stop]


def segment_words(text: str) -> list[str]:
    """Words of one segment as a recogniser produces them: lowercase, no punctuation.

    Marks around words are stripped; marks inside them stay (``don't``, ``high-functioning``).

    Args:
        text: One segment of text, punctuated or not.

    Returns:
        The words, possibly none.
    """
    words = (_strip_marks(token) for token in text.lower().split())
    return [w for w in words if w]
