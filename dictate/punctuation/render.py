"""Tags to text: punctuation marks, sentence capitals, ``i`` -> ``I`` and the model's casing."""

from __future__ import annotations

from collections.abc import Sequence

from dictate.punctuation.labels import ALL_CAPS, CAPITALIZED, PUNCT_MARK, SENTENCE_END, VERBATIM


def _capitalize(word: str) -> str:
    return word[:1].upper() + word[1:]


def case_word(word: str, case_tag: str | None, *, sentence_start: bool) -> str:
    """Apply casing to one word.

    Args:
        word: The word as recognised (normally lowercase).
        case_tag: The model's casing tag, or None when the model has no casing head.
        sentence_start: Whether the word begins a sentence (always capitalised).

    Returns:
        The word as displayed, without punctuation.
    """
    if case_tag == VERBATIM:
        return word
    if case_tag == ALL_CAPS:
        return word.upper()
    if case_tag == CAPITALIZED or sentence_start:
        return _capitalize(word)
    # The pronoun and its contractions (i'm, i'll, i'd, i've) are always capitalised in English.
    if word == "i" or word.startswith("i'"):
        return _capitalize(word)
    return word


def case_words(
    words: Sequence[str],
    punct_tags: Sequence[str],
    case_tags: Sequence[str] | None = None,
    *,
    sentence_start: bool = True,
) -> list[str]:
    """Cased words (no punctuation): a capital after every sentence end.

    Args:
        words: Words as recognised.
        punct_tags: Punctuation tag of each word.
        case_tags: Casing tag of each word, or None.
        sentence_start: Whether the first word starts a sentence.
    """
    cased: list[str] = []
    start = sentence_start
    for i, (word, tag) in enumerate(zip(words, punct_tags, strict=True)):
        cased.append(case_word(word, case_tags[i] if case_tags else None, sentence_start=start))
        start = tag in SENTENCE_END
    return cased


def join_text(
    cased: Sequence[str],
    punct_tags: Sequence[str],
    before: Sequence[str] = (),
    after: Sequence[str] = (),
) -> str:
    """Display text: each word followed by its mark, words separated by single spaces.

    Args:
        cased: The words as displayed.
        punct_tags: Punctuation tag of each word.
        before: Marks the user said before each word (an opening quote or parenthesis), or
            empty for none at all.
        after: Marks the user said after each word, in spoken order (closing quotes and
            parentheses, punctuation), or empty for none at all. Where they include a
            punctuation mark they are written instead of the tag's mark (the tag was forced to
            match); closing marks alone go before the tag's mark.
    """
    if not before and not after:
        return " ".join(w + _mark(w, t) for w, t in zip(cased, punct_tags, strict=True))
    parts = []
    for i, (word, tag) in enumerate(zip(cased, punct_tags, strict=True)):
        said = after[i] if after else ""
        # A said punctuation mark replaces the tag's (which was forced to match it).
        tail = said if any(c in _MARKS for c in said) else said + _mark(word + said, tag)
        parts.append((before[i] if before else "") + word + tail)
    return " ".join(parts)


def _mark(word: str, tag: str) -> str:
    """The tag's mark after ``word``; a full stop is not doubled after a word that ends with one
    (a recogniser's "a.m." or "d." at a sentence end)."""
    mark = PUNCT_MARK[tag]
    return "" if mark == "." and word.endswith(".") else mark


_MARKS = frozenset(mark for mark in PUNCT_MARK.values() if mark)
