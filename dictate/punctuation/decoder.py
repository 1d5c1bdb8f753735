"""Streaming punctuation (Behre et al., 2022, §3.3): sentences finalized once the next one has
begun, whatever the recogniser's segments.

Recogniser segments are input chunks only: people pause mid-sentence, so a segment end is not a
sentence end. :class:`StreamingPunctuator` tags a window made of read-only left context (recently
finalized words), the pending buffer and the new segment, and finalizes the sentences before the
last sentence boundary that has enough words after it (the next sentence has begun). Finalized
sentences are emitted once and never change; the rest stays pending and is re-tagged next time.

Its settings are :class:`~dictate.punctuation.options.StreamingOptions`; the spans and updates it
gives are :mod:`dictate.punctuation.spans`; the per-segment baseline it improves on is
:mod:`dictate.punctuation.baseline`.
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections import deque
from collections.abc import Iterator, Sequence

import numpy as np

from dictate.punctuation.labels import (
    CAPITALIZED,
    LOWER,
    MARK_TAG,
    PERIOD_INDEX,
    PUNCT_MARK,
    PUNCT_TAGS,
    QUESTION_INDEX,
    SENTENCE_END,
    O,
)
from dictate.punctuation.model import FloatArray
from dictate.punctuation.options import StreamingOptions
from dictate.punctuation.render import case_words
from dictate.punctuation.spans import (
    EMPTY_SPAN,
    Forced,
    Span,
    Tagger,
    Update,
    clean_cased,
    end_tag,
    make_span,
    sentence_spans,
)


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
        self._forced: list[Forced | None] = []
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
        words, cases = clean_cased(words, cases)
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
                        forced = Forced(case=case) if case else None
                        hint, weight = weighed[i]
                        if hint is not None and weight > 0:
                            forced = forced or Forced()
                            forced.hint, forced.hint_weight = hint, weight
                        if self._open:
                            forced = forced or Forced()
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
                forced = self._forced[-1] or Forced()
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
                    self._closes = PUNCT_MARK[end_tag(self._revisable)]
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
        live, live_cases = clean_cased(words, cases)
        with self._lock:
            if not live:
                return self._pending_span, EMPTY_SPAN
            pending = self._pending + live
            forced = list(self._forced) + [
                Forced(case=c) if c else None for c in (live_cases or [None] * len(live))
            ]
            if self._open:
                first = forced[len(self._pending)] or Forced()
                forced[len(self._pending)] = Forced(first.tag, first.case, self._open)
            tags, case_tags, _, _ = self._tags(list(self._left), pending, forced)
            cased = case_words(pending, tags, case_tags, sentence_start=not self._continues)
            k = len(self._pending)
            return (
                make_span(pending[:k], tags[:k], cased[:k], forced[:k]),
                make_span(pending[k:], tags[k:], cased[k:], forced[k:]),
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
        self, left: list[str], pending: list[str], forced: Sequence[Forced | None]
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
                tags[-1] = end_tag(probs[-1])
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
                tags[-1] = end_tag(probs[-1])
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
        done = sentence_spans(pending[:cut], tags[:cut], cased[:cut], forced[:cut])
        if cut:
            self._continues = tags[cut - 1] not in SENTENCE_END
        if commit:
            last = forced[-1]
            bare = tags[-1] == O and (last is None or not (last.tag or last.after))
            self._revisable = probs[-1] if bare else None
        self._left.extend(pending[:cut])
        self._pending = pending[cut:]
        self._forced = forced[cut:]
        self._pending_span = make_span(pending[cut:], tags[cut:], cased[cut:], forced[cut:])
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
                tags[j] = end_tag(probs[j])
            cut = j + 1
        return cut
