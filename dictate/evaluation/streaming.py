"""Run a decoder over simulated dictation and score what it finalizes."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from dictate.evaluation.metrics import (
    capitalization_scores,
    punctuation_scores,
    scores_to_dict,
    segmentation_scores,
)
from dictate.evaluation.readers import Reference
from dictate.punctuation.decoder import Punctuator, Span


@dataclass
class DecodeRun:
    """What a decoder finalized over a whole stream.

    Attributes:
        tags: Punctuation tag of every word, in input order.
        cased: Every word as displayed.
        delays: For each finalized sentence, how many later segments (pauses) had arrived when
            it was finalized: 0 for the baseline; flush at the end counts as no new segment.
        update_seconds: Wall time of each feed/flush call.
    """

    tags: list[str] = field(default_factory=list)
    cased: list[str] = field(default_factory=list)
    delays: list[int] = field(default_factory=list)
    update_seconds: list[float] = field(default_factory=list)


def run_decoder(punctuator: Punctuator, segments: Sequence[Sequence[str]]) -> DecodeRun:
    """Feed every segment, then flush, collecting the finalized sentences."""
    run = DecodeRun()
    segment_of_word: list[int] = []
    current = 0

    def collect(sentences: Sequence[Span]) -> None:
        for sentence in sentences:
            run.tags.extend(sentence.tags)
            run.cased.extend(sentence.cased)
            run.delays.append(current - segment_of_word[len(run.tags) - 1])

    for current, segment in enumerate(segments):
        segment_of_word.extend([current] * len(segment))
        started = time.perf_counter()
        update = punctuator.feed(segment)
        run.update_seconds.append(time.perf_counter() - started)
        collect(update.finalized)
    started = time.perf_counter()
    collect(punctuator.flush().finalized)
    run.update_seconds.append(time.perf_counter() - started)
    return run


def score(reference: Reference, tags: Sequence[str], cased: Sequence[str] | None) -> dict[str, Any]:
    """Punctuation, segmentation and (for a cased reference) capitalisation scores.

    Returns:
        A JSON-ready dict: ``punctuation`` per class and overall, ``segmentation`` with P, R, F1
        and F0.5, and ``capitalization`` or None.
    """
    scores = {"segmentation": segmentation_scores(reference.tags, tags)}
    if reference.cased is not None and cased is not None:
        scores["capitalization"] = capitalization_scores(reference.cased, cased)
    flat = scores_to_dict(scores, f_betas=(0.5,))
    return {
        "punctuation": scores_to_dict(punctuation_scores(reference.tags, tags)),
        "segmentation": flat["segmentation"],
        "capitalization": flat.get("capitalization"),
    }
