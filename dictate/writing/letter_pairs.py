"""Quick filters for comparing a run of heard words with many texts (the vocabulary's entries
and misheard forms, :meth:`dictate.writing.vocabulary_match.VocabularyMatcher.near`), all
computed for every text at once with numpy, so that only the few texts that pass are compared
letter by letter:

- :class:`PairIndex`: the texts that share enough pairs of adjacent letters with the run;
- :class:`Shapes`: the texts whose length, number of words, first and last letters allow the
  likeness asked for (upper bounds: a text they drop could not have reached it)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import Generic, TypeVar

import numpy as np

Item = TypeVar("Item", bound=Hashable)


def pairs(text: str) -> set[str]:
    """The pairs of adjacent letters of ``text``."""
    return {text[i : i + 2] for i in range(len(text) - 1)}


def dice(shared: int, a: int, b: int) -> float:
    """Dice's coefficient of two sets of sizes ``a`` and ``b`` with ``shared`` in common."""
    return 2 * shared / (a + b) if a + b else 0.0


def _dice(shared: np.ndarray, a: int, b: np.ndarray) -> np.ndarray:
    """:func:`dice` of one set of size ``a`` with many."""
    total = a + b
    return np.where(total > 0, 2 * shared / np.maximum(total, 1), 0.0)


class PairIndex(Generic[Item]):
    """Items, each with two texts (the letters of some words and their sound key), indexed by
    the pairs of adjacent letters of each."""

    def __init__(self) -> None:
        self._items: list[Item] = []
        self._sizes: list[tuple[int, int]] = []
        self._lists: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
        self._arrays: tuple[dict[str, np.ndarray], dict[str, np.ndarray]] | None = None
        self._size_arrays = np.zeros((2, 0), dtype=np.int64)

    def __bool__(self) -> bool:
        return bool(self._items)

    @property
    def items(self) -> list[Item]:
        """The items, in the order added."""
        return self._items

    def add(self, item: Item, first: str, second: str) -> None:
        index = len(self._items)
        self._items.append(item)
        first_pairs, second_pairs = pairs(first), pairs(second)
        self._sizes.append((len(first_pairs), len(second_pairs)))
        for lists, text_pairs in zip(self._lists, (first_pairs, second_pairs), strict=True):
            for pair in text_pairs:
                lists.setdefault(pair, []).append(index)
        self._arrays = None

    def _frozen(self) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
        if self._arrays is None:
            self._arrays = tuple(  # type: ignore[assignment]
                {p: np.array(at, dtype=np.int64) for p, at in lists.items()}
                for lists in self._lists
            )
            self._size_arrays = np.array(self._sizes, dtype=np.int64).reshape(-1, 2).T
        assert self._arrays is not None
        return self._arrays

    def near_indices(self, first: str, second: str, least: float) -> np.ndarray:
        """The indices (in the order added) of the items whose first text's pairs overlap
        ``first``'s, or whose second's overlap ``second``'s, by ``least`` or more (Dice's
        coefficient of the two sets)."""
        count = len(self._items)
        share = np.zeros(count)
        for arrays, mine, sizes in zip(
            self._frozen(), (pairs(first), pairs(second)), self._size_arrays, strict=True
        ):
            found = [arrays[p] for p in mine if p in arrays]
            if found:
                shared = np.bincount(np.concatenate(found), minlength=count)
                share = np.maximum(share, _dice(shared, len(mine), sizes))
        return np.flatnonzero(share >= least)


def _slot(letter: str) -> int:
    """A letter's place among a-z, then 0-9."""
    return ord(letter) - (ord("a") if letter.isalpha() else ord("0") - 26)


def _mask(letters: Iterable[str]) -> int:
    """The letters (a-z, 0-9) as bits of one number."""
    mask = 0
    for letter in letters:
        mask |= 1 << _slot(letter)
    return mask


def _counts(text: str) -> np.ndarray:
    """How many times each of a-z and 0-9 is in ``text``."""
    return np.bincount([_slot(c) for c in text], minlength=36).astype(np.int16)


def _quick(mine: np.ndarray, theirs: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """difflib's ``SequenceMatcher.quick_ratio`` of one text with many (twice the letters they
    share, counted with repeats, over the sum of their lengths; 1.0 for two empty texts)."""
    total = int(mine.sum()) + lengths
    shared = np.minimum(theirs, mine).sum(axis=1)
    return np.where(total > 0, 2.0 * shared / np.maximum(total, 1), 1.0)


class Shapes:
    """For each of many texts: the number of words, the lengths of its letters and of its
    sound key, and which letters it starts and ends with (within ``slack``)."""

    def __init__(self, texts: Sequence[tuple[int, str, str]], slack: int) -> None:
        """``texts``: (words, letters, sound key) each; letters are a-z and 0-9."""
        self.slack = slack
        self.words = np.array([w for w, _, _ in texts], dtype=np.int64)
        self.letters = np.array([len(t) for _, t, _ in texts], dtype=np.int64)
        self.sounds = np.array([len(s) for _, _, s in texts], dtype=np.int64)
        self.heads = np.array([self.edges(t)[0] for _, t, _ in texts], dtype=np.int64)
        self.tails = np.array([self.edges(t)[1] for _, t, _ in texts], dtype=np.int64)
        empty = np.zeros((0, 36), dtype=np.int16)
        self.letter_counts = (
            np.array([_counts(t) for _, t, _ in texts]).reshape(-1, 36) if texts else empty
        )
        self.sound_counts = (
            np.array([_counts(s) for _, _, s in texts]).reshape(-1, 36) if texts else empty
        )

    def edges(self, text: str) -> tuple[int, int]:
        """The letters ``text`` may match first and last, as masks."""
        return _mask(text[: self.slack + 1]), _mask(text[-self.slack - 1 :])

    def passing(
        self,
        words: int,
        letters: str,
        sound: str,
        least: float,
        extra_words: int,
        among: np.ndarray | None = None,
    ) -> np.ndarray:
        """The indices (ascending) of the texts (``among`` them, else all) within
        ``extra_words`` words of ``words``, with a first and a last letter of ``letters``'
        within reach, and whose lengths allow a mean likeness of letters and sound keys of
        ``least`` (the ratio of two texts is at most twice the shorter's length over their
        lengths' sum)."""
        at = np.arange(len(self.words)) if among is None else among
        head, tail = self.edges(letters)
        mine, theirs = len(letters), self.letters[at]
        first = 2 * np.minimum(mine, theirs) / (mine + theirs)
        sounds = self.sounds[at]
        second = np.where(
            (sounds > 0) & (len(sound) > 0),
            2 * np.minimum(len(sound), sounds) / np.maximum(len(sound) + sounds, 1),
            0.0,
        )
        keep = (
            (np.abs(self.words[at] - words) <= extra_words)
            & ((self.heads[at] & head) != 0)
            & ((self.tails[at] & tail) != 0)
            & ((first + second) / 2 >= least)
        )
        at = at[keep]
        quick = (
            _quick(_counts(letters), self.letter_counts[at], self.letters[at])
            + _quick(_counts(sound), self.sound_counts[at], self.sounds[at])
        ) / 2
        return at[quick >= least]

    def sharing(
        self, words: int, letters: str, least: float, extra_words: int, among: np.ndarray
    ) -> np.ndarray:
        """The indices (ascending) of the texts ``among`` them within ``extra_words`` words of
        ``words`` whose letters' ``quick_ratio`` with ``letters`` is ``least`` or more."""
        at = among[np.abs(self.words[among] - words) <= extra_words]
        quick = _quick(_counts(letters), self.letter_counts[at], self.letters[at])
        return at[quick >= least]
