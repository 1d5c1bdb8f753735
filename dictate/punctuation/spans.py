"""What the punctuation decoders share: the model they need (:class:`Tagger`), what they give
(:class:`Span`, :class:`Update`), and how tagged words become spans, one per sentence.

The streaming decoder (:mod:`dictate.punctuation.decoder`) and the per-segment baseline
(:mod:`dictate.punctuation.baseline`) both build their spans here, so the text of a sentence is
joined and cased the same way whichever decoder made it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from dictate.punctuation.labels import PERIOD, PERIOD_INDEX, QUESTION, QUESTION_INDEX, SENTENCE_END
from dictate.punctuation.model import FloatArray, Tagging
from dictate.punctuation.render import join_text


class Tagger(Protocol):
    """What the decoders need from a model: :class:`~dictate.punctuation.model.PunctuationModel`."""

    @property
    def window_tokens(self) -> int:
        """Tokens available for words in one model window."""

    def tag(self, words: Sequence[str]) -> Tagging:
        """Per-word probabilities for ``words``."""

    def count_tokens(self, words: Sequence[str]) -> int:
        """Subtokens of ``words``."""


@dataclass(frozen=True)
class Span:
    """A run of words with their punctuation and display casing.

    Attributes:
        words: The words as fed to the decoder.
        tags: Punctuation tag of each word.
        cased: Each word as displayed (casing applied, no punctuation).
        before: Marks said before each word (opening quotes, parentheses), or () for none.
        after: Marks said after each word, in spoken order, or () for none.
    """

    words: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    cased: tuple[str, ...] = ()
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def text(self) -> str:
        """Display text with punctuation."""
        return join_text(self.cased, self.tags, self.before, self.after)

    def __len__(self) -> int:
        return len(self.words)


EMPTY_SPAN = Span()


@dataclass(frozen=True)
class Update:
    """What changed after one ``feed`` or ``flush`` of a decoder.

    Attributes:
        finalized: Sentences finalized by this call, in order; each is emitted exactly once and
            never changes afterwards. Every one ends in PERIOD or QUESTION, except the last
            one of a :meth:`~dictate.punctuation.decoder.StreamingPunctuator.commit` or of a
            flush without ``close``, which may be left open.
        pending: All words not yet finalized, as currently punctuated; may change next time.
        continues: The first finalized span goes on with a sentence an earlier commit left
            open (its first word is cased as mid-sentence; no capital is to be added).
        closes: A mark to append, before the finalized spans, to the text a commit left open
            and bare: decided once the next words gave the model right context, or said by the
            user ("comma", "period") after the pause. "" for none.
    """

    finalized: tuple[Span, ...] = ()
    pending: Span = EMPTY_SPAN
    continues: bool = False
    closes: str = ""

    @property
    def finalized_text(self) -> str:
        """The finalized sentences joined by spaces."""
        return " ".join(s.text for s in self.finalized)

    @property
    def pending_text(self) -> str:
        """The pending words as currently punctuated."""
        return self.pending.text


def end_tag(probs: FloatArray) -> str:
    """The sentence end a forced boundary gets: a question mark if the model prefers it."""
    return QUESTION if probs[QUESTION_INDEX] > probs[PERIOD_INDEX] else PERIOD


def make_span(
    words: Sequence[str],
    tags: Sequence[str],
    cased: Sequence[str],
    forced: Sequence[Forced | None] = (),
) -> Span:
    """A span of words; the user's marks are kept only where there are any."""
    marked = any(f is not None and (f.before or f.after) for f in forced)
    return Span(
        tuple(words),
        tuple(tags),
        tuple(cased),
        tuple(f.before if f else "" for f in forced) if marked else (),
        tuple(f.after if f else "" for f in forced) if marked else (),
    )


def sentence_spans(
    words: Sequence[str],
    tags: Sequence[str],
    cased: Sequence[str],
    forced: Sequence[Forced | None] = (),
) -> list[Span]:
    """Split words at every sentence end; the last span may be unterminated."""
    spans: list[Span] = []
    start = 0
    for i, tag in enumerate(tags):
        if tag in SENTENCE_END:
            spans.append(
                make_span(
                    words[start : i + 1],
                    tags[start : i + 1],
                    cased[start : i + 1],
                    forced[start : i + 1],
                )
            )
            start = i + 1
    if start < len(words):
        spans.append(make_span(words[start:], tags[start:], cased[start:], forced[start:]))
    return spans


@dataclass
class Forced:
    """What the user said about one pending word (spoken punctuation, "cap")."""

    tag: str | None = None
    """Punctuation tag that overrides the model's."""
    case: str | None = None
    """Casing tag that overrides the model's."""
    before: str = ""
    after: str = ""
    hint: str | None = None
    """The recogniser's punctuation tag after the word (not the user's): weighed, not forced."""
    hint_weight: float = 0.0


def _clean(words: Iterable[str]) -> list[str]:
    return [w for w in (w.strip() for w in words) if w]


def clean_cased(
    words: Sequence[str], cases: Sequence[str | None] | None
) -> tuple[list[str], list[str | None] | None]:
    """The words without empty ones, and their forced casing (None: no word has one)."""
    if cases is None:
        return _clean(words), None
    kept = [(w.strip(), c) for w, c in zip(words, cases, strict=True) if w.strip()]
    return [w for w, _ in kept], [c for _, c in kept]
