"""What was recognised where the user's vocabulary rewrote it: the rewrites of settled segments
(:attr:`dictate.events.Segment.rewrites`) followed until the sentences that hold them are
finalized. The text stage does this once (:class:`RewriteTrail`) and says it in the
:class:`~dictate.events.Finalized` event (its ``rewrites`` and ``heard``), so that the window
can make each rewrite an undo step of its own and the history and the kept audio's links can
keep the words as heard beside the words as written.

A finalized sentence does not say which segments' words it holds (the punctuator cuts
sentences across segments), so a rewrite is found by its written form, whole words, in the
finalized text, in the order the rewrites came; one not found yet (its words are still pending)
waits for the next finalized sentences. At most :data:`KEEP` wait: the words of a rewrite that
was scratched before it was finalized never come.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

_SENTENCE_START = re.compile(r"(?:^|[.!?][\"'\u201d\u2019)\]]*)\s*$")

KEEP = 64
"""Rewrites waiting for their sentence, at most (the oldest are forgotten first)."""


@dataclass(frozen=True)
class Rewrite:
    """``written`` (an entry of the vocabulary, as it stands in the text: its first letter may
    be capitalised there) stands at ``start`` of a text, in place of the words ``heard``."""

    start: int
    written: str
    heard: str
    capital: bool = False
    """The words heard begin with a capital here (a sentence starts at them, or the entry's
    own first letter was capitalised there)."""

    @property
    def end(self) -> int:
        return self.start + len(self.written)

    @property
    def heard_here(self) -> str:
        """The words heard as they stand in place of the written form (capitalised where it
        is)."""
        if self.capital and self.heard[:1].islower():
            return self.heard[:1].upper() + self.heard[1:]
        return self.heard


def _pattern(written: str) -> re.Pattern[str]:
    # The first letter may have been capitalised at a sentence start; the rest is as written.
    head, rest = written[:1], written[1:]
    first = f"[{re.escape(head.lower())}{re.escape(head.upper())}]" if head.isalpha() else head
    return re.compile(rf"(?<!\w){first}{re.escape(rest)}(?!\w)")


def find_rewrites(text: str, rewrites: list[tuple[str, str]]) -> list[Rewrite]:
    """Where ``rewrites`` ((written, heard) each, in order) stand in ``text``, in order and not
    overlapping; one that is not found is left out."""
    return [rewrite for _, rewrite in _found(text, rewrites)]


def _found(text: str, rewrites: list[tuple[str, str]]) -> list[tuple[int, Rewrite]]:
    found: list[tuple[int, Rewrite]] = []
    at = 0
    for i, (written, heard) in enumerate(rewrites):
        match = _pattern(written).search(text, at)
        if match is None:
            continue
        capital = match.group()[:1] != written[:1] or bool(
            _SENTENCE_START.search(text, 0, match.start())
        )
        found.append((i, Rewrite(match.start(), match.group(), heard, capital)))
        at = match.end()
    return found


def as_heard(text: str, rewrites: list[Rewrite]) -> str:
    """``text`` with the words heard in place of each rewrite (at a capitalised written form,
    the words heard capitalised too)."""
    out: list[str] = []
    at = 0
    for rewrite in rewrites:
        out += [text[at : rewrite.start], rewrite.heard_here]
        at = rewrite.end
    out.append(text[at:])
    return "".join(out)


class RewriteTrail:
    """The rewrites of settled segments that were not finalized yet."""

    def __init__(self) -> None:
        self._waiting: deque[tuple[str, str]] = deque(maxlen=KEEP)

    def add(self, rewrites: Sequence[Sequence[str]]) -> None:
        """A settled segment's rewrites ((written, heard) each, in order)."""
        for written, heard in rewrites:
            self._waiting.append((written, heard))

    def finalized(self, sentences: list[str]) -> list[list[Rewrite]]:
        """The rewrites in each of ``sentences`` (positions in that sentence); those found are
        no longer waited for."""
        out: list[list[Rewrite]] = []
        for sentence in sentences:
            waiting = list(self._waiting)
            found = _found(sentence, waiting)
            taken = {i for i, _ in found}
            self._waiting = deque((r for i, r in enumerate(waiting) if i not in taken), maxlen=KEEP)
            out.append([rewrite for _, rewrite in found])
        return out

    def reset(self) -> None:
        self._waiting.clear()
