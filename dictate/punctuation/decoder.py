"""Streaming punctuation (Behre et al., 2022, §3.3) and the per-segment baseline it improves on.

Recogniser segments are input chunks only: people pause mid-sentence, so a segment end is not a
sentence end. :class:`StreamingPunctuator` tags a window made of read-only left context (recently
finalized words), the pending buffer and the new segment, and finalizes the sentences before the
last sentence boundary that has enough words after it (the next sentence has begun). Finalized
sentences are emitted once and never change; the rest stays pending and is re-tagged next time.

:class:`SegmentPunctuator` is the paper's baseline: each segment is punctuated alone and closed
as a sentence.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from dictate.punctuation.labels import (
    CAPITALIZED,
    LOWER,
    MARK_TAG,
    PERIOD,
    PERIOD_INDEX,
    QUESTION,
    QUESTION_INDEX,
    SENTENCE_END,
)
from dictate.punctuation.model import FloatArray, Tagging
from dictate.punctuation.render import case_words, join_text


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
    """What changed after one :meth:`feed` or :meth:`flush`.

    Attributes:
        finalized: Sentences finalized by this call, in order; each is emitted exactly once and
            never changes afterwards. Every one ends in PERIOD or QUESTION.
        pending: All words not yet finalized, as currently punctuated; may change next time.
    """

    finalized: tuple[Span, ...] = ()
    pending: Span = EMPTY_SPAN

    @property
    def finalized_text(self) -> str:
        """The finalized sentences joined by spaces."""
        return " ".join(s.text for s in self.finalized)

    @property
    def pending_text(self) -> str:
        """The pending words as currently punctuated."""
        return self.pending.text


@dataclass(frozen=True)
class StreamingOptions:
    """Settings of :class:`StreamingPunctuator` (defaults measured, see the README).

    Attributes:
        min_right_words: Words that must follow a sentence boundary in the window before it is
            trusted and the sentence before it finalized.
        left_context_words: Finalized words kept as read-only left context of each window.
        max_pending_words: Cap on the pending buffer in words; above it the decoder finalizes at
            the most probable boundary (the paper's 40 s rule, counted in words).
        max_pending_tokens: Cap on the pending buffer in model tokens; None means whatever fits
            one model window beside the left context.
    """

    min_right_words: int = 4
    left_context_words: int = 10
    max_pending_words: int = 60
    max_pending_tokens: int | None = None

    def __post_init__(self) -> None:
        if self.min_right_words < 1:
            raise ValueError("min_right_words must be at least 1")
        if self.left_context_words < 0:
            raise ValueError("left_context_words must not be negative")
        if self.max_pending_words <= self.min_right_words:
            raise ValueError("max_pending_words must be larger than min_right_words")
        if self.max_pending_tokens is not None and self.max_pending_tokens < 1:
            raise ValueError("max_pending_tokens must be positive")


def _end_tag(probs: FloatArray) -> str:
    """The sentence end a forced boundary gets: a question mark if the model prefers it."""
    return QUESTION if probs[QUESTION_INDEX] > probs[PERIOD_INDEX] else PERIOD


def _span(
    words: Sequence[str],
    tags: Sequence[str],
    cased: Sequence[str],
    forced: Sequence[_Forced | None] = (),
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


def _spans(
    words: Sequence[str],
    tags: Sequence[str],
    cased: Sequence[str],
    forced: Sequence[_Forced | None] = (),
) -> list[Span]:
    """Split words at every sentence end; the last span may be unterminated."""
    spans: list[Span] = []
    start = 0
    for i, tag in enumerate(tags):
        if tag in SENTENCE_END:
            spans.append(
                _span(
                    words[start : i + 1],
                    tags[start : i + 1],
                    cased[start : i + 1],
                    forced[start : i + 1],
                )
            )
            start = i + 1
    if start < len(words):
        spans.append(_span(words[start:], tags[start:], cased[start:], forced[start:]))
    return spans


@dataclass
class _Forced:
    """What the user said about one pending word (spoken punctuation, "cap")."""

    tag: str | None = None
    """Punctuation tag that overrides the model's."""
    case: str | None = None
    """Casing tag that overrides the model's."""
    before: str = ""
    after: str = ""


def _clean(words: Iterable[str]) -> list[str]:
    return [w for w in (w.strip() for w in words) if w]


def _clean_cased(
    words: Sequence[str], cases: Sequence[str | None] | None
) -> tuple[list[str], list[str | None] | None]:
    """The words without empty ones, and their forced casing (None: no word has one)."""
    if cases is None:
        return _clean(words), None
    kept = [(w.strip(), c) for w, c in zip(words, cases, strict=True) if w.strip()]
    return [w for w, _ in kept], [c for _, c in kept]


class StreamingPunctuator:
    """Streaming punctuation decoder.

    Thread-safe: calls are serialised by a lock, so it can be driven from a worker thread while
    another thread reads nothing but the returned :class:`Update` objects.

    Spoken punctuation (:meth:`mark`) and forced casing (``cases`` in :meth:`feed`) override
    the model at their word; a spoken sentence end is trusted at once, without waiting for the
    next sentence.

    Args:
        tagger: The punctuation model (or any :class:`Tagger`).
        options: Decoder settings.
    """

    def __init__(self, tagger: Tagger, options: StreamingOptions | None = None) -> None:
        self.tagger = tagger
        self.options = options or StreamingOptions()
        self._left: deque[str] = deque(maxlen=self.options.left_context_words)
        self._pending: list[str] = []
        self._forced: list[_Forced | None] = []
        self._open = ""  # opening marks said before the next word
        self._pending_span = EMPTY_SPAN
        self._lock = threading.Lock()

    @property
    def pending(self) -> Span:
        """The pending words as last punctuated."""
        return self._pending_span

    def feed(self, words: Sequence[str], cases: Sequence[str | None] | None = None) -> Update:
        """Add one recogniser segment.

        Args:
            words: The segment's words (empty strings are ignored).
            cases: A casing tag per word that overrides the model's ("cap john"), or None.

        Returns:
            Sentences finalized by this segment and the new pending text.
        """
        words, cases = _clean_cased(words, cases)
        finalized: list[Span] = []
        with self._lock:
            if not words:
                return Update((), self._pending_span)
            # A huge segment is decoded in pieces so one step never tags more than a bounded
            # window; segment boundaries carry no meaning for this decoder anyway.
            piece = max(1, self.options.max_pending_words // 2)
            step = len(words) if len(words) <= self.options.max_pending_words else piece
            with self._restored_on_failure():
                for start in range(0, len(words), step):
                    chunk = words[start : start + step]
                    self._pending.extend(chunk)
                    for i in range(start, start + len(chunk)):
                        case = cases[i] if cases is not None else None
                        forced = _Forced(case=case) if case else None
                        if self._open:
                            forced = forced or _Forced()
                            forced.before, self._open = self._open, ""
                        self._forced.append(forced)
                    finalized.extend(self._decode(final=False))
            return Update(tuple(finalized), self._pending_span)

    @contextlib.contextmanager
    def _restored_on_failure(self) -> Iterator[None]:
        """If tagging fails part-way through a segment, put the state back as it was before
        it, so the caller's unpunctuated fallback has exactly the words not yet shown as
        final: none twice and none lost (sentences finalized by an earlier piece of a long
        segment were never returned)."""
        saved = (
            list(self._left),
            list(self._pending),
            copy.deepcopy(self._forced),
            self._open,
            self._pending_span,
        )
        try:
            yield
        except BaseException:
            left, self._pending, self._forced, self._open, self._pending_span = saved
            self._left.clear()
            self._left.extend(left)
            raise

    def mark(self, mark: str) -> Update:
        """The user said a punctuation mark ("comma", "period", "open quote", ...).

        A punctuation mark replaces the model's at the last pending word; a sentence end
        finalizes the sentence at once. An opening quote or parenthesis goes before the next
        word, a closing one after the last pending word. A mark with no pending word to attach
        to is ignored (the sentences before are final and never change).
        """
        with self._lock:
            if mark in ("\u201c", "("):
                self._open += mark
                return Update((), self._pending_span)
            if not self._pending:
                return Update((), self._pending_span)
            with self._restored_on_failure():
                forced = self._forced[-1] or _Forced()
                self._forced[-1] = forced
                forced.after += mark
                if mark in MARK_TAG:
                    forced.tag = MARK_TAG[mark]
                return Update(tuple(self._decode(final=False)), self._pending_span)

    def flush(self, close: bool = True) -> Update:
        """Finalize everything pending (dictation stopped, or a line break was said).

        Args:
            close: End the last sentence with a mark if it has none (a line break does not).
        """
        with self._lock, self._restored_on_failure():
            finalized = self._decode(final=True, close=close) if self._pending else []
            self._open = ""
            return Update(tuple(finalized), EMPTY_SPAN)

    def drop_pending(self) -> Span:
        """Forget the pending words ("scratch that"), keeping the left context; returns them."""
        with self._lock:
            dropped = self._pending_span
            self._pending, self._forced, self._open = [], [], ""
            self._pending_span = EMPTY_SPAN
            return dropped

    def reset(self) -> None:
        """Forget the left context and drop pending words; :meth:`flush` first keeps them."""
        with self._lock:
            self._left.clear()
            self._pending, self._forced, self._open = [], [], ""
            self._pending_span = EMPTY_SPAN

    def _over_cap(self, left: list[str], pending: list[str], cut: int) -> bool:
        """Whether the pending words after ``cut`` exceed the cap in words or tokens."""
        rest = pending[cut:]
        if len(rest) > self.options.max_pending_words:
            return True
        if self.options.max_pending_tokens is not None:
            return self.tagger.count_tokens(rest) > self.options.max_pending_tokens
        # Default: the next window's left context and the pending words fit one model window.
        keep = self.options.left_context_words
        next_left = (left + pending[:cut])[-keep:] if keep else []
        return self.tagger.count_tokens(next_left + rest) > self.tagger.window_tokens

    def _decode(self, *, final: bool, close: bool = True) -> list[Span]:
        """Tag the window, choose where to cut, move finalized sentences out of pending."""
        left = list(self._left)
        pending = self._pending
        forced = self._forced
        n = len(pending)
        tagging = self.tagger.tag(left + pending).slice(len(left), len(left) + n)
        probs = tagging.punct_probs
        tags = tagging.punct_tags()
        case_tags = tagging.case_tags()
        for j, f in enumerate(forced):
            if f is None:
                continue
            if f.tag is not None:
                after = forced[j + 1] if j + 1 < n else None
                if (
                    tags[j] in SENTENCE_END
                    and f.tag not in SENTENCE_END
                    and case_tags is not None
                    and j + 1 < n
                    and case_tags[j + 1] == CAPITALIZED
                    and (after is None or after.case is None)
                ):
                    # The model ended a sentence here and capitalised the next word for it; the
                    # user said a comma (colon, semicolon) instead, so no sentence starts there.
                    case_tags[j + 1] = LOWER
                tags[j] = f.tag
            if f.case is not None:
                case_tags = case_tags if case_tags is not None else [LOWER] * n
                case_tags[j] = f.case

        if final:
            cut = n
            if (
                close
                and tags[-1] not in SENTENCE_END
                and (forced[-1] is None or not forced[-1].tag)
            ):
                tags[-1] = _end_tag(probs[-1])
        else:
            right = self.options.min_right_words
            # A sentence end the user said is trusted without right context.
            said = {j for j, f in enumerate(forced) if f is not None and f.tag is not None}
            trusted = [
                j for j in range(n) if tags[j] in SENTENCE_END and (j < n - right or j in said)
            ]
            cut = trusted[-1] + 1 if trusted else 0
            cut = self._enforce_cap(left, pending, probs, tags, cut)

        cased = case_words(pending, tags, case_tags, sentence_start=True)
        done = _spans(pending[:cut], tags[:cut], cased[:cut], forced[:cut])
        self._left.extend(pending[:cut])
        self._pending = pending[cut:]
        self._forced = forced[cut:]
        self._pending_span = _span(pending[cut:], tags[cut:], cased[cut:], forced[cut:])
        return done

    def _enforce_cap(
        self, left: list[str], pending: list[str], probs: FloatArray, tags: list[str], cut: int
    ) -> int:
        """Force sentence ends at the most probable boundaries while pending exceeds its cap."""
        n = len(pending)
        right = self.options.min_right_words
        while n - cut > 1 and self._over_cap(left, pending, cut):
            # Boundaries near the end of the window have too little right context to be
            # believed, so they are candidates only when nothing else is left.
            stop = max(cut + 1, n - right)
            end_probs = probs[cut:stop, PERIOD_INDEX] + probs[cut:stop, QUESTION_INDEX]
            # A mark the user said is never replaced by a sentence end.
            for j in range(cut, stop):
                f = self._forced[j]
                if f is not None and f.tag is not None and f.tag not in SENTENCE_END:
                    end_probs[j - cut] = -1.0
            j = cut + int(np.argmax(end_probs))
            if tags[j] not in SENTENCE_END:
                tags[j] = _end_tag(probs[j])
            cut = j + 1
        return cut


class SegmentPunctuator:
    """The baseline: each segment punctuated on its own and closed as a sentence.

    Has the same interface as :class:`StreamingPunctuator`; nothing is ever pending, so spoken
    punctuation has nothing to attach to and is ignored (voice commands are for the streaming
    decoder; this one is kept for comparison).
    """

    def __init__(self, tagger: Tagger) -> None:
        self.tagger = tagger

    @property
    def pending(self) -> Span:
        """Always empty."""
        return EMPTY_SPAN

    def feed(self, words: Sequence[str], cases: Sequence[str | None] | None = None) -> Update:
        """Punctuate one segment and finalize it whole (``cases`` override the model's)."""
        words, cases = _clean_cased(words, cases)
        if not words:
            return Update()
        tagging = self.tagger.tag(words)
        tags = tagging.punct_tags()
        if tags[-1] not in SENTENCE_END:
            tags[-1] = _end_tag(tagging.punct_probs[-1])
        case_tags = tagging.case_tags()
        if cases is not None and any(cases):
            case_tags = [c or (case_tags[i] if case_tags else LOWER) for i, c in enumerate(cases)]
        cased = case_words(words, tags, case_tags, sentence_start=True)
        return Update(tuple(_spans(words, tags, cased)), EMPTY_SPAN)

    def mark(self, mark: str) -> Update:
        """Nothing is pending to attach a mark to: ignored."""
        return Update()

    def flush(self, close: bool = True) -> Update:
        """Nothing is ever pending."""
        return Update()

    def drop_pending(self) -> Span:
        """Nothing is ever pending."""
        return EMPTY_SPAN

    def reset(self) -> None:
        """Nothing to forget."""


Punctuator = StreamingPunctuator | SegmentPunctuator


def make_punctuator(
    tagger: Tagger, mode: str = "streaming", options: StreamingOptions | None = None
) -> StreamingPunctuator | SegmentPunctuator:
    """The decoder for ``mode``: "streaming" (the product) or "baseline" (one sentence per
    segment, for comparison)."""
    if mode == "baseline":
        return SegmentPunctuator(tagger)
    if mode != "streaming":
        raise ValueError(f"unknown punctuation mode {mode!r}; use streaming or baseline")
    return StreamingPunctuator(tagger, options)
