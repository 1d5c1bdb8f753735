"""The per-segment baseline the streaming decoder is measured against, and the choice of decoder.

:class:`SegmentPunctuator` is the paper's baseline (Behre et al., 2022): each recogniser segment
is punctuated alone and closed as a sentence, though people pause mid-sentence.
:func:`make_punctuator` picks it or the streaming decoder
(:class:`~dictate.punctuation.decoder.StreamingPunctuator`) by name.
"""

from __future__ import annotations

from collections.abc import Sequence

from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.labels import LOWER, SENTENCE_END
from dictate.punctuation.options import StreamingOptions
from dictate.punctuation.render import case_words
from dictate.punctuation.spans import (
    EMPTY_SPAN,
    Span,
    Tagger,
    Update,
    clean_cased,
    end_tag,
    sentence_spans,
)


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
        words, cases = clean_cased(words, cases)
        if not words:
            return Update()
        tagging = self.tagger.tag(words)
        tags = tagging.punct_tags()
        if tags[-1] not in SENTENCE_END:
            tags[-1] = end_tag(tagging.punct_probs[-1])
        case_tags = tagging.case_tags()
        if cases is not None and any(cases):
            case_tags = [c or (case_tags[i] if case_tags else LOWER) for i, c in enumerate(cases)]
        cased = case_words(words, tags, case_tags, sentence_start=True)
        return Update(tuple(sentence_spans(words, tags, cased)), EMPTY_SPAN)

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
