"""Streaming punctuation (Behre et al., 2022, §3.3) and the per-segment baseline it improves on.

Recogniser segments are input chunks only: people pause mid-sentence, so a segment end is not a
sentence end. :class:`StreamingPunctuator` tags a window made of read-only left context (recently
finalized words), the pending buffer and the new segment, and finalizes the sentences before the
last sentence boundary that has enough words after it (the next sentence has begun). Finalized
sentences are emitted once and never change; the rest stays pending and is re-tagged next time.

:class:`SegmentPunctuator` is the paper's baseline: each segment is punctuated alone and closed
as a sentence.

Size: one algorithm. The methods of :class:`StreamingPunctuator` share its pending words, the
user's forced marks and the commit point, whose invariants hold only together; the baseline
beside it is what the algorithm is measured against.
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
    PUNCT_MARK,
    PUNCT_TAGS,
    QUESTION,
    QUESTION_INDEX,
    SENTENCE_END,
    O,
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
            never changes afterwards. Every one ends in PERIOD or QUESTION, except the last
            one of a :meth:`StreamingPunctuator.commit` or of a flush without ``close``,
            which may be left open.
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


@dataclass(frozen=True)
class StreamingOptions:
    """Settings of :class:`StreamingPunctuator` (defaults measured, see docs/punctuation-model.md).

    Attributes:
        min_right_words: Words that must follow a sentence boundary in the window before it is
            trusted and the sentence before it finalized.
        left_context_words: Finalized words kept as read-only left context of each window.
        max_pending_words: Cap on the pending buffer in words; above it the decoder finalizes at
            the most probable boundary (the paper's 40 s rule, counted in words).
        max_pending_tokens: Cap on the pending buffer in model tokens; None means whatever fits
            one model window beside the left context.
        commit_end: At a commit (the speaker paused), the last word ends a sentence when the
            model's probability of a sentence end there reaches this; otherwise it is left
            bare, and its mark is decided (and appended) once the next words give the model
            right context. The model's own tag at the end of its input is no guide: it was
            trained on text that ends with sentences, and puts a full stop after "i went to
            the" with 0.97.
        commit_probes: Words tried one at a time as the next word, to give the model some
            right context at a commit; the sentence-end probability is their mean. Empty: the
            probability at the end of the input. (Defaults tuned on dev2012 with the
            simulator: docs/commit-on-pause.md.)
        hint_weight: How much a recogniser's own mark after a word inside its segment (the
            ``hints`` of :meth:`StreamingPunctuator.feed`: Whisper writes punctuation) counts
            against the model: the word's probabilities become ``(1 - w) * model + w * hint``.
            0: hints are ignored; 0.5: the recogniser's mark decides (no other tag can have
            more). Only Whisper gives hints; the first pass's words have none.
        hint_end_weight: The same for the mark after a segment's last word, where the
            recogniser closes every segment with a full stop whether a sentence ends there or
            the speaker only paused (the streaming-punctuation papers' point): weighed
            against the model, which sees the words after it. (Both chosen on half of the
            long-form set and checked on the other half: docs/second-pass.md.)
    """

    min_right_words: int = 4
    left_context_words: int = 10
    max_pending_words: int = 60
    max_pending_tokens: int | None = None
    commit_end: float = 0.7
    commit_probes: tuple[str, ...] = ("the", "and", "i", "so")
    hint_weight: float = 0.5
    hint_end_weight: float = 0.4

    def __post_init__(self) -> None:
        if self.min_right_words < 1:
            raise ValueError("min_right_words must be at least 1")
        if self.left_context_words < 0:
            raise ValueError("left_context_words must not be negative")
        if self.max_pending_words <= self.min_right_words:
            raise ValueError("max_pending_words must be larger than min_right_words")
        if self.max_pending_tokens is not None and self.max_pending_tokens < 1:
            raise ValueError("max_pending_tokens must be positive")
        if not 0.0 <= self.commit_end <= 1.0:
            raise ValueError("commit_end must be between 0 and 1")
        if not (0.0 <= self.hint_weight <= 1.0 and 0.0 <= self.hint_end_weight <= 1.0):
            raise ValueError("hint weights must be between 0 and 1")


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
    hint: str | None = None
    """The recogniser's punctuation tag after the word (not the user's): weighed, not forced."""
    hint_weight: float = 0.0


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
        self._continues = False
        self._revisable: FloatArray | None = None
        """After a commit that ended on a bare word (no mark): the model's probabilities there
        at the commit. Its mark is decided again, and appended, once right context came."""
        self._closes = ""
        self._lock = threading.Lock()

    @property
    def pending(self) -> Span:
        """The pending words as last punctuated."""
        return self._pending_span

    @property
    def continues(self) -> bool:
        """Whether the finalized text ends inside a sentence (a commit left it open): the next
        words go on with that sentence."""
        return self._continues

    def feed(
        self,
        words: Sequence[str],
        cases: Sequence[str | None] | None = None,
        hints: Sequence[str | None] | None = None,
    ) -> Update:
        """Add one recogniser segment.

        Args:
            words: The segment's words (empty strings are ignored).
            cases: A casing tag per word that overrides the model's ("cap john"), or None.
            hints: The punctuation tag the recogniser wrote after each word (O, COMMA,
                PERIOD, QUESTION; None: it gave none), weighed against the model by
                :attr:`StreamingOptions.hint_weight` and, for the last word,
                :attr:`StreamingOptions.hint_end_weight`; or None.

        Returns:
            Sentences finalized by this segment and the new pending text.
        """
        if hints is not None and len(hints) != len(words):
            raise ValueError(f"{len(hints)} hints for {len(words)} words")
        kept = [i for i, w in enumerate(words) if w.strip()]
        # The segment's last word (an empty string is no word) has the end's weight.
        weighed = [
            (
                hints[i] if hints is not None else None,
                self.options.hint_end_weight if i == kept[-1] else self.options.hint_weight,
            )
            for i in kept
        ]
        words, cases = _clean_cased(words, cases)
        finalized: list[Span] = []
        with self._lock:
            continues = self._continues
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
                        hint, weight = weighed[i]
                        if hint is not None and weight > 0:
                            forced = forced or _Forced()
                            forced.hint, forced.hint_weight = hint, weight
                        if self._open:
                            forced = forced or _Forced()
                            forced.before, self._open = self._open, ""
                        self._forced.append(forced)
                    finalized.extend(self._decode(final=False))
            return self._update(finalized, continues)

    def _update(self, finalized: Sequence[Span], continues: bool) -> Update:
        """The update of one call; takes the mark a revisit decided."""
        closes, self._closes = self._closes, ""
        if MARK_TAG.get(closes) in SENTENCE_END:
            continues = False  # the open sentence ended with the mark appended
        return Update(tuple(finalized), self._pending_span, continues and bool(finalized), closes)

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
            self._continues,
            self._revisable,
        )
        try:
            yield
        except BaseException:
            (
                left, self._pending, self._forced, self._open, self._pending_span,
                self._continues, self._revisable,
            ) = saved  # fmt: skip
            self._closes = ""
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
                if self._revisable is None or mark not in MARK_TAG:
                    return Update((), self._pending_span)
                # Said after a pause committed the words it belongs to: append it there.
                self._revisable = None
                self._continues = MARK_TAG[mark] not in SENTENCE_END
                return Update((), self._pending_span, closes=mark)
            continues = self._continues
            with self._restored_on_failure():
                forced = self._forced[-1] or _Forced()
                self._forced[-1] = forced
                forced.after += mark
                if mark in MARK_TAG:
                    forced.tag = MARK_TAG[mark]
                return self._update(self._decode(final=False), continues)

    def flush(self, close: bool = True) -> Update:
        """Finalize everything pending (dictation stopped, or a line break was said).

        Args:
            close: End the last sentence with a mark if it has none (a line break does not).
        """
        with self._lock, self._restored_on_failure():
            continues = self._continues
            if self._pending:
                finalized = self._decode(final=True, close=close)
            else:
                finalized = []
                if close and self._revisable is not None:
                    # Stop after a commit left a sentence open: it ends here.
                    self._closes = PUNCT_MARK[_end_tag(self._revisable)]
                self._revisable = None
            self._open = ""
            # A paragraph or the end of a run starts the next text afresh.
            self._continues = False
            self._pending_span = EMPTY_SPAN
            return self._update(finalized, continues)

    def commit(self) -> Update:
        """The speaker paused: finalize everything pending with the model's decision for the
        end of the stream, without forcing a sentence end (dictation goes on).

        Where the model puts no sentence end on the last word, the last sentence is finalized
        open (:attr:`continues` becomes True): the next words go on with it, cased as
        mid-sentence, with the committed words as their left context. Opening marks said
        before the next word are kept for it.
        """
        with self._lock, self._restored_on_failure():
            continues = self._continues
            if not self._pending:
                return Update((), self._pending_span)
            finalized = self._decode(final=True, close=False, commit=True)
            return self._update(finalized, continues)

    def preview(
        self, words: Sequence[str], cases: Sequence[str | None] | None = None
    ) -> tuple[Span, Span]:
        """The pending words and ``words`` (the live words of the phrase being spoken)
        punctuated together, without changing any state: (pending, live) as they would be
        shown now (``cases`` as in :meth:`feed`). Nothing is finalized; the next :meth:`feed`
        decides afresh."""
        live, live_cases = _clean_cased(words, cases)
        with self._lock:
            if not live:
                return self._pending_span, EMPTY_SPAN
            pending = self._pending + live
            forced = list(self._forced) + [
                _Forced(case=c) if c else None for c in (live_cases or [None] * len(live))
            ]
            if self._open:
                first = forced[len(self._pending)] or _Forced()
                forced[len(self._pending)] = _Forced(first.tag, first.case, self._open)
            tags, case_tags, _, _ = self._tags(list(self._left), pending, forced)
            cased = case_words(pending, tags, case_tags, sentence_start=not self._continues)
            k = len(self._pending)
            return (
                _span(pending[:k], tags[:k], cased[:k], forced[:k]),
                _span(pending[k:], tags[k:], cased[k:], forced[k:]),
            )

    def forget_commit(self) -> None:
        """The words a pause committed were taken back ("scratch that", "undo that"): no mark
        is appended after them, and the next words begin a sentence."""
        with self._lock:
            self._revisable = None
            self._continues = False

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
            self._continues = False
            self._revisable = None
            self._closes = ""

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

    def _tags(
        self, left: list[str], pending: list[str], forced: Sequence[_Forced | None]
    ) -> tuple[list[str], list[str] | None, FloatArray, FloatArray | None]:
        """Tag ``pending`` after ``left``, with what the user said overriding the model:
        punctuation tags, casing tags (None: the model has no casing head), probabilities, and
        the probabilities at the last left-context word (None without left context)."""
        n = len(pending)
        full = self.tagger.tag(left + pending)
        before = full.punct_probs[len(left) - 1] if left else None
        tagging = full.slice(len(left), len(left) + n)
        probs = tagging.punct_probs
        tags = tagging.punct_tags()
        model_tags = list(tags)
        hinted = [j for j, f in enumerate(forced) if f is not None and f.hint is not None]
        if hinted:
            probs = probs.copy()
            for j in hinted:
                f = forced[j]
                assert f is not None and f.hint is not None
                probs[j] *= 1.0 - f.hint_weight
                probs[j, PUNCT_TAGS.index(f.hint)] += f.hint_weight
                tags[j] = PUNCT_TAGS[int(np.argmax(probs[j]))]
        case_tags = tagging.case_tags()
        if (
            self._continues
            and before is not None
            and n
            and case_tags is not None
            and case_tags[0] == CAPITALIZED
            and (forced[0] is None or forced[0].case is None)
            and PUNCT_TAGS[int(np.argmax(before))] in SENTENCE_END
        ):
            # These words go on with a sentence committed open ("Dear John" + "comma" said
            # after the pause): the capital the model gives a sentence start it sees after the
            # committed words is not one.
            case_tags[0] = LOWER
        for j, f in enumerate(forced):
            if f is not None and f.tag is not None:
                tags[j] = f.tag
        for j in range(n - 1):
            after = forced[j + 1]
            if (
                model_tags[j] in SENTENCE_END
                and tags[j] not in SENTENCE_END
                and case_tags is not None
                and case_tags[j + 1] == CAPITALIZED
                and (after is None or after.case is None)
            ):
                # The model ended a sentence here and capitalised the next word for it; the
                # user said a comma (colon, semicolon) instead, or the recogniser's mark
                # outweighed the model's, so no sentence starts there.
                case_tags[j + 1] = LOWER
        for j, f in enumerate(forced):
            if f is None:
                continue
            if f.case is not None:
                case_tags = case_tags if case_tags is not None else [LOWER] * n
                case_tags[j] = f.case
        return tags, case_tags, probs, before

    def stream_end_probability(self, left: list[str], words: list[str]) -> float:
        """How likely the last of ``words`` (after ``left``) ends a sentence, for a commit."""
        n = len(left) + len(words)
        probes = self.options.commit_probes
        if not probes:
            p = self.tagger.tag(left + words).punct_probs[n - 1]
            return float(p[PERIOD_INDEX] + p[QUESTION_INDEX])
        total = 0.0
        for probe in probes:
            p = self.tagger.tag([*left, *words, probe]).punct_probs[n - 1]
            total += float(p[PERIOD_INDEX] + p[QUESTION_INDEX])
        return total / len(probes)

    def _decode(self, *, final: bool, close: bool = True, commit: bool = False) -> list[Span]:
        """Tag the window, choose where to cut, move finalized sentences out of pending."""
        left = list(self._left)
        pending = self._pending
        forced = self._forced
        n = len(pending)
        tags, case_tags, probs, before = self._tags(left, pending, forced)
        # The words a commit left open and bare: their mark, now that they have right context.
        revisit = before if self._revisable is not None else None
        if commit and (forced[-1] is None or forced[-1].tag is None):
            # The model's tag at the end of its input is no decision (see commit_end).
            end = self.stream_end_probability(left, pending)
            hint = forced[-1]
            if hint is not None and hint.hint is not None:
                said_end = 1.0 if hint.hint in SENTENCE_END else 0.0
                end = (1.0 - hint.hint_weight) * end + hint.hint_weight * said_end
            if end >= self.options.commit_end:
                tags[-1] = _end_tag(probs[-1])
            else:
                # No mark at all: which one belongs there is decided once right context came.
                tags[-1] = O
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

        if revisit is not None and (final or cut or n >= self.options.min_right_words):
            # The words a commit left open have right context now (or words after them are
            # being finalized): append the mark the model puts after them, if any.
            tag = PUNCT_TAGS[int(np.argmax(revisit))]
            self._closes = PUNCT_MARK[tag]
            self._revisable = None
            if tag in SENTENCE_END:
                self._continues = False
        cased = case_words(pending, tags, case_tags, sentence_start=not self._continues)
        done = _spans(pending[:cut], tags[:cut], cased[:cut], forced[:cut])
        if cut:
            self._continues = tags[cut - 1] not in SENTENCE_END
        if commit:
            last = forced[-1]
            bare = tags[-1] == O and (last is None or not (last.tag or last.after))
            self._revisable = probs[-1] if bare else None
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

    def feed(
        self,
        words: Sequence[str],
        cases: Sequence[str | None] | None = None,
        hints: Sequence[str | None] | None = None,
    ) -> Update:
        """Punctuate one segment and finalize it whole (``cases`` override the model's; the
        baseline takes no ``hints``)."""
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

    def commit(self) -> Update:
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
