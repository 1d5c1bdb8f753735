"""What else a stretch of dictated words could be ("correct that"): what the recogniser also
heard for the same stretch of audio (its n-best hypotheses of the segments that hold the words,
newest first), then the other casings of the words.

The recogniser's hypotheses are whole segments; the stretch is found in the best one and mapped
onto each alternative by aligning the two word sequences, so "the cat sat" heard also as "the
cap sat" offers "cap" for "cat".
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from difflib import SequenceMatcher

MAX_ALTERNATIVES = 9
"""As many as "choose one" to "choose nine" can pick."""

_NOT_WORD = re.compile(r"[^\w'\u2019-]+")


def _norm(words: Sequence[str]) -> list[str]:
    return [n for n in (_NOT_WORD.sub("", w.lower()) for w in words) if n]


def _find(haystack: list[str], needle: list[str]) -> tuple[int, int] | None:
    """The last place ``needle`` stands in ``haystack``, as a span of indices."""
    for start in range(len(haystack) - len(needle), -1, -1):
        if haystack[start : start + len(needle)] == needle:
            return start, start + len(needle)
    return None


def _mapped(best: list[str], other: list[str], span: tuple[int, int]) -> tuple[int, int] | None:
    """The words of ``other`` that stand where ``best[span]`` stands."""
    i, j = span
    low: int | None = None
    high: int | None = None
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, best, other, autojunk=False).get_opcodes():
        if tag == "equal" and i1 < j and i2 > i:
            lo, hi = j1 + max(i, i1) - i1, j1 + min(j, i2) - i1
        elif tag != "equal" and ((i1 < j and i2 > i) or (tag == "insert" and i < i1 < j)):
            lo, hi = j1, j2
        else:
            continue
        low = lo if low is None else min(low, lo)
        high = hi if high is None else max(high, hi)
    return (low, high) if low is not None and high is not None and high > low else None


def casings(text: str) -> list[str]:
    """``text`` in lower case, With Capitals and IN CAPITALS, less the form it has."""
    capitals = re.sub(r"\b\w", lambda m: m.group().upper(), text.lower())
    forms = [text.lower(), capitals, text.upper()]
    return [f for i, f in enumerate(forms) if f != text and f not in forms[:i]]


def alternatives(
    selected: str,
    heard: Sequence[tuple[Sequence[str], Sequence[Sequence[str]]]],
    limit: int = MAX_ALTERNATIVES,
) -> list[str]:
    """Alternatives for the words ``selected``.

    Args:
        selected: The words as they stand in the text.
        heard: Segments as recognised, oldest first: (the best words, the other hypotheses'
            words), as the pipeline's :class:`~dictate.events.Segment` events carry them.
        limit: At most this many.
    """
    wanted = _norm(selected.split())
    found: list[str] = []
    seen = {" ".join(wanted)}
    for best_words, others in reversed(heard):
        best = _norm(best_words)
        span = _find(best, wanted) if wanted else None
        if span is None:
            continue
        for other_words in others:
            kept = [w for w in other_words if _norm([w])]
            mapped = _mapped(best, _norm(kept), span)
            if mapped is None:
                continue
            candidate = " ".join(kept[mapped[0] : mapped[1]])
            key = " ".join(_norm(candidate.split()))
            if key not in seen:
                seen.add(key)
                found.append(candidate)
        if found:
            break  # the newest segment that holds the words is the one they came from
    for form in casings(selected):
        if form not in found:
            found.append(form)
    return found[:limit]
