"""The house-style options of the written forms (:class:`WrittenOptions`)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WrittenOptions:
    """How :func:`written` writes numbers.

    Attributes:
        small_numbers_as_words: Keep one to nine (and zero, and first to ninth) as words in
            running prose. When False, every number is written in digits.
        group_from: Plain numbers at or above this get thousands separators (money always
            from 1,000).
    """

    small_numbers_as_words: bool = True
    group_from: int = 10_000


_DEFAULT = WrittenOptions()
