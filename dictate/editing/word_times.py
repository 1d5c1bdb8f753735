"""Times for written words from the recogniser's words: alignment on letters and digits.

What the recogniser heard and what is written differ: spelled letters are joined ("u s" ->
"US"), voice commands and spoken punctuation leave no word ("comma"), written forms rewrite
("twenty dollars" -> "$20"), a correction replaces a word. :func:`align` compares the two as
lowercase letters and digits only (:func:`key`) with :class:`difflib.SequenceMatcher`, so a
word gets the times of the recognised words its characters match; a word whose characters match
none gets the span of what it replaced (``spans``), else no time (None), and :func:`fill` gives
it one between its neighbours. Nothing here raises on odd input: the worst case is a word timed
by interpolation.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher


@dataclass
class Timed:
    """A word with its time in the audio (seconds; None: not known yet) and the recogniser's
    confidence (the lowest of the recognised words behind it; None: no recognised word)."""

    text: str
    start: float | None = None
    end: float | None = None
    confidence: float | None = None


def key(text: str) -> str:
    """What words are compared on: lowercase letters and digits ("U.S." -> "us")."""
    return "".join(c for c in text.lower() if c.isalnum())


def _chars(words: Sequence[str]) -> tuple[list[str], list[int]]:
    """Every character of every word's key, and the index of the word each comes from."""
    chars: list[str] = []
    owner: list[int] = []
    for index, word in enumerate(words):
        for char in key(word):
            chars.append(char)
            owner.append(index)
    return chars, owner


def _blocks(
    a: Sequence[Hashable], b: Sequence[Hashable], islands: int
) -> list[tuple[int, int, int]]:
    """The matching blocks (i, j, size) of ``a`` and ``b``, without the last empty one. Blocks of
    at most 2 elements further than ``islands`` elements of ``a`` from every other block are
    dropped (0: none is): a stray letter far ahead must not stretch a sentence's time."""
    blocks = [
        (m.a, m.b, m.size)
        for m in SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks()
        if m.size
    ]
    if not islands or len(blocks) < 2 or max(size for _, _, size in blocks) <= 2:
        return blocks
    kept = []
    for n, (i, j, size) in enumerate(blocks):
        if size > 2:
            kept.append((i, j, size))
            continue
        near = False
        if n > 0:
            pi, _, psize = blocks[n - 1]
            near = i - (pi + psize) <= islands
        if n + 1 < len(blocks):
            near = near or blocks[n + 1][0] - (i + size) <= islands
        if near:
            kept.append((i, j, size))
    return kept


def align(
    words: Sequence[str], ref: Sequence[Timed], *, spans: bool = True, islands: int = 0
) -> tuple[list[Timed], int]:
    """Times for ``words`` from the timed words ``ref``, compared character by character.

    A word takes the span of the ``ref`` words its characters match (and, with ``spans``, of
    those its unmatched characters stand in place of: "$20" for "twenty dollars"); a word that
    gets none keeps start and end None. Returns the timed words and the index after the last
    ``ref`` word matched (0 if none): where the next words can be looked for.
    """
    a, a_owner = _chars([r.text for r in ref])
    b, b_owner = _chars(words)
    blocks = _blocks(a, b, islands)
    timed, after, _ = _timed(words, ref, blocks, a_owner, b_owner, len(a), len(b), spans)
    return timed, after


def align_words(words: Sequence[str], ref: Sequence[Timed]) -> tuple[list[Timed], list[int | None]]:
    """:func:`align` on whole words (their :func:`key`, or the word itself when it has no letter
    or digit): fast on a long text, for words that differ little (case, marks, a few edits).
    Also returns, for each word, the first ``ref`` word behind it (None: none)."""
    a = [key(r.text) or r.text for r in ref]
    b = [key(w) or w for w in words]
    if a == b:
        same = [Timed(w, r.start, r.end, r.confidence) for w, r in zip(words, ref, strict=True)]
        return same, list(range(len(words)))
    identity = list(range(max(len(a), len(b))))
    blocks = _blocks(a, b, 0)
    timed, _, behind = _timed(words, ref, blocks, identity, identity, len(a), len(b), True)
    return timed, [min(r) if r else None for r in behind]


def _timed(
    words: Sequence[str],
    ref: Sequence[Timed],
    blocks: list[tuple[int, int, int]],
    a_owner: list[int],
    b_owner: list[int],
    a_len: int,
    b_len: int,
    spans: bool,
) -> tuple[list[Timed], int, list[list[int]]]:
    covered: list[list[int]] = [[] for _ in words]  # the ref words behind each word
    after = 0
    previous_i = previous_j = 0
    for i, j, size in [*blocks, (a_len, b_len, 0)]:
        if spans and i > previous_i and j > previous_j:  # replaced: b[pj:j] stands for a[pi:i]
            behind = range(a_owner[previous_i], a_owner[i - 1] + 1)
            for word in sorted({b_owner[k] for k in range(previous_j, j)}):
                covered[word] += behind
        for k in range(size):
            covered[b_owner[j + k]].append(a_owner[i + k])
        if size:
            after = max(after, a_owner[i + size - 1] + 1)
        previous_i, previous_j = i + size, j + size
    timed = []
    for text, refs in zip(words, covered, strict=True):
        known = [ref[r] for r in set(refs) if ref[r].start is not None and ref[r].end is not None]
        if not known:
            timed.append(Timed(text))
            continue
        scores = [r.confidence for r in known if r.confidence is not None]
        timed.append(
            Timed(
                text,
                min(r.start for r in known if r.start is not None),
                max(r.end for r in known if r.end is not None),
                min(scores) if scores else None,
            )
        )
    return timed, after, covered


def fill(words: list[Timed], duration: float) -> None:
    """Give every word a time, in place: those without one share the gap between their
    neighbours evenly; then times run forward (each word starts at or after the previous one
    ends, and ends at or after it starts) and lie within ``[0, duration]``."""
    n = len(words)
    index = 0
    last_end = 0.0
    while index < n:
        word = words[index]
        if word.start is not None and word.end is not None:
            last_end = max(last_end, word.end)
            index += 1
            continue
        stop = index
        while stop < n and (words[stop].start is None or words[stop].end is None):
            stop += 1
        following = words[stop].start if stop < n else None
        low = min(last_end, duration)
        high = low if following is None else max(low, min(following, duration))
        step = (high - low) / (stop - index)
        for k in range(index, stop):
            words[k].start = low + step * (k - index)
            words[k].end = low + step * (k - index + 1)
        index = stop
    previous = 0.0
    for word in words:
        start = min(max(float(word.start or 0.0), previous, 0.0), duration)
        end = min(max(float(word.end or 0.0), start), duration)
        word.start, word.end = start, end
        previous = end
