"""The words of a text (:class:`_Text`, with the gap tests it uses) and the :class:`_Match`
that every rule returns."""

from __future__ import annotations

from dataclasses import dataclass

from dictate.writing.forms.lexicon import _CARDINAL_WORDS, _WORD


class _Text:
    """The words of a text with their positions; ``low`` has "" for words glued to digits."""

    __slots__ = ("end", "last_digits", "last_time", "low", "n", "start", "text", "words")

    def __init__(self, text: str) -> None:
        self.text = text
        matches = list(_WORD.finditer(text))
        self.words = [m.group() for m in matches]
        self.start = [m.start() for m in matches]
        self.end = [m.end() for m in matches]
        self.n = len(matches)
        low = [w.lower() for w in self.words]
        for i in range(self.n):
            # "5five", "9am", "mp3": a word touching a digit run is not a number word.
            if (i > 0 and self.end[i - 1] == self.start[i]) or (
                i + 1 < self.n and self.end[i] == self.start[i + 1]
            ):
                low[i] = ""
        self.low = low
        self.last_time = -10
        self.last_digits = -10

    def gap(self, i: int) -> str:
        """The text between word ``i`` and word ``i + 1``."""
        return self.text[self.end[i] : self.start[i + 1]]

    def next(self, i: int, commas: bool = False) -> int | None:
        """The word after ``i`` when a space or a tight hyphen (or, if ``commas``, a comma)
        separates them; None otherwise."""
        if i + 1 >= self.n:
            return None
        gap = self.gap(i)
        if _soft(gap) or (commas and _comma(gap)):
            return i + 1
        return None

    def prev(self, i: int) -> int | None:
        """The word before ``i`` when only spaces or a tight hyphen separate them."""
        if i <= 0 or not _soft(self.gap(i - 1)):
            return None
        return i - 1

    def numeric(self, i: int | None) -> bool:
        """Whether word ``i`` is a cardinal number word or digits."""
        return i is not None and (self.low[i] in _CARDINAL_WORDS or self.words[i][0].isdigit())

    def low_at(self, i: int | None) -> str:
        return "" if i is None else self.low[i]

    def sentence_start(self, i: int) -> bool:
        """Whether word ``i`` starts a sentence (or the text)."""
        start = self.start[i]
        before = self.text[max(0, start - 12) : start]
        stripped = before.rstrip(" \t\"'\u201c\u2018([«")
        if not stripped or "\n" in before[len(stripped) :]:
            return True
        return stripped[-1] in ".!?…:"


def _soft(gap: str) -> bool:
    return gap == " " or gap == "-" or (gap.isspace() and "\n" not in gap)


def _comma(gap: str) -> bool:
    return gap[:1] == "," and (len(gap) == 1 or (gap[1:].isspace() and "\n" not in gap))


@dataclass
class _Match:
    """Replace words ``first..last`` (up to ``end`` in the text, if given) by ``text``."""

    first: int
    last: int
    text: str
    end: int = -1
