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
from dictate.punctuation.baseline import Punctuator
from dictate.punctuation.labels import MARK_TAG
from dictate.punctuation.spans import Span


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
    commits: int = 0
    """How many times the speaker's pause committed the pending words."""


def run_decoder(
    punctuator: Punctuator,
    segments: Sequence[Sequence[str]],
    pauses: Sequence[float] | None = None,
    commit_after: float | None = None,
) -> DecodeRun:
    """Feed every segment, then flush, collecting the finalized sentences.

    With ``pauses`` (seconds of silence after each segment) and ``commit_after`` (seconds; None
    is "never"), the decoder commits what is pending after every segment followed by a pause
    at least that long, as the pipeline does when the speaker pauses.
    """
    if pauses is not None and len(pauses) != len(segments):
        raise ValueError(f"{len(pauses)} pauses for {len(segments)} segments")
    commits = commit_after is not None and pauses is not None
    commit = getattr(punctuator, "commit", None)
    run = DecodeRun()
    segment_of_word: list[int] = []
    current = 0

    def collect(sentences: Sequence[Span], closes: str = "") -> None:
        if closes in MARK_TAG and run.tags:
            # A mark appended to words a commit left open.
            run.tags[-1] = MARK_TAG[closes]
        for sentence in sentences:
            run.tags.extend(sentence.tags)
            run.cased.extend(sentence.cased)
            run.delays.append(current - segment_of_word[len(run.tags) - 1])

    for current, segment in enumerate(segments):
        segment_of_word.extend([current] * len(segment))
        started = time.perf_counter()
        update = punctuator.feed(segment)
        run.update_seconds.append(time.perf_counter() - started)
        collect(update.finalized, update.closes)
        if commits and commit is not None and pauses[current] >= commit_after:  # type: ignore[index,operator]
            started = time.perf_counter()
            done = commit()
            run.update_seconds.append(time.perf_counter() - started)
            run.commits += 1
            collect(done.finalized, done.closes)
    started = time.perf_counter()
    flushed = punctuator.flush()
    collect(flushed.finalized, flushed.closes)
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
