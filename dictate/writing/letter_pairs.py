"""An index of texts by the pairs of adjacent letters in them: which of many texts share enough
pairs with a given one to be worth comparing letter by letter (the quick filter of the
vocabulary's misheard forms, :meth:`dictate.writing.vocabulary_match.VocabularyMatcher.near`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable
from itertools import chain
from typing import Generic, TypeVar

Item = TypeVar("Item", bound=Hashable)


def pairs(text: str) -> set[str]:
    """The pairs of adjacent letters of ``text``."""
    return {text[i : i + 2] for i in range(len(text) - 1)}


def dice(shared: int, a: int, b: int) -> float:
    """Dice's coefficient of two sets of sizes ``a`` and ``b`` with ``shared`` in common."""
    return 2 * shared / (a + b) if a + b else 0.0


class PairIndex(Generic[Item]):
    """Items, each with two texts (the letters of some words and their sound key), indexed by
    the pairs of adjacent letters of each."""

    def __init__(self) -> None:
        self._items: list[Item] = []
        self._sizes: list[tuple[int, int]] = []
        self._first: dict[str, list[int]] = {}
        self._second: dict[str, list[int]] = {}

    def __bool__(self) -> bool:
        return bool(self._items)

    def add(self, item: Item, first: str, second: str) -> None:
        index = len(self._items)
        self._items.append(item)
        first_pairs, second_pairs = pairs(first), pairs(second)
        self._sizes.append((len(first_pairs), len(second_pairs)))
        for pair in first_pairs:
            self._first.setdefault(pair, []).append(index)
        for pair in second_pairs:
            self._second.setdefault(pair, []).append(index)

    def near(self, first: str, second: str, least: float) -> list[Item]:
        """The items whose first text's pairs overlap ``first``'s, or whose second's overlap
        ``second``'s, by ``least`` or more (Dice's coefficient of the two sets), in the order
        added."""
        mine_first, mine_second = pairs(first), pairs(second)
        by_first = Counter(chain.from_iterable(self._first.get(p, ()) for p in mine_first))
        by_second = Counter(chain.from_iterable(self._second.get(p, ()) for p in mine_second))
        out = []
        for index in sorted(by_first.keys() | by_second.keys()):
            size_first, size_second = self._sizes[index]
            share = max(
                dice(by_first[index], len(mine_first), size_first),
                dice(by_second[index], len(mine_second), size_second),
            )
            if share >= least:
                out.append(self._items[index])
        return out
