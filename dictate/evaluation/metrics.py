"""Word-level scores for punctuation, sentence segmentation and capitalization.

All comparisons are position by position: the reference and hypothesis must describe the same
word sequence, which holds when the hypothesis was produced from the reference's words.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from dictate.edit_distance import edit_distance
from dictate.evaluation.readers import TAGS

PUNCTUATION_CLASSES = ("COMMA", "PERIOD", "QUESTION")
_BOUNDARY_TAGS = frozenset({"PERIOD", "QUESTION"})
_KNOWN_TAGS = frozenset(TAGS)

CASE_LOWER = "lower"
CASE_CAPITALIZED = "Capitalized"
CASE_ALL_CAPS = "ALL_CAPS"
CASE_MIXED = "MiXed"


@dataclass(frozen=True)
class Score:
    """Counts of one detection task and the usual ratios derived from them.

    Attributes:
        tp: True positives.
        fp: False positives.
        fn: False negatives.
    """

    tp: int
    fp: int
    fn: int

    def __post_init__(self) -> None:
        """Reject negative counts, which can only come from a bug in the caller.

        Raises:
            ValueError: If any count is negative.
        """
        if min(self.tp, self.fp, self.fn) < 0:
            raise ValueError(f"counts must be non-negative, got {self}")

    @property
    def precision(self) -> float:
        """Fraction of predicted positives that are correct; 0.0 when nothing was predicted."""
        predicted = self.tp + self.fp
        return self.tp / predicted if predicted else 0.0

    @property
    def recall(self) -> float:
        """Fraction of reference positives that were found; 0.0 when there were none."""
        actual = self.tp + self.fn
        return self.tp / actual if actual else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall; 0.0 when both are 0."""
        return self.f_beta(1.0)

    def f_beta(self, beta: float) -> float:
        """Weighted harmonic mean of precision and recall.

        Args:
            beta: Weight of recall relative to precision; 0.5 favours precision.

        Returns:
            The F-beta score in 0..1, 0.0 when there are no true positives.

        Raises:
            ValueError: If ``beta`` is not positive.
        """
        if not beta > 0:
            raise ValueError(f"beta must be positive, got {beta}")
        # The count form equals (1+b²)PR / (b²P + R) and has no 0/0 when P or R is undefined.
        b2 = beta * beta
        denominator = (1 + b2) * self.tp + b2 * self.fn + self.fp
        return (1 + b2) * self.tp / denominator if denominator else 0.0


def punctuation_scores(ref_tags: Sequence[str], hyp_tags: Sequence[str]) -> dict[str, Score]:
    """Score punctuation per class and overall, the usual IWSLT word-level metric.

    Args:
        ref_tags: Reference tag per word, each one of ``TAGS``.
        hyp_tags: Predicted tag per word, each one of ``TAGS``.

    Returns:
        Scores keyed ``COMMA``, ``PERIOD``, ``QUESTION`` and ``OVERALL`` (the micro sum of
        the three classes; ``O`` is never counted as a positive).

    Raises:
        ValueError: If the sequences differ in length or contain an unknown tag.
    """
    _check_tags(ref_tags, hyp_tags)
    counts = {name: [0, 0, 0] for name in PUNCTUATION_CLASSES}
    for ref, hyp in zip(ref_tags, hyp_tags, strict=True):
        if ref == hyp:
            if ref != "O":
                counts[ref][0] += 1
            continue
        if hyp != "O":
            counts[hyp][1] += 1
        if ref != "O":
            counts[ref][2] += 1
    scores = {name: Score(*c) for name, c in counts.items()}
    scores["OVERALL"] = Score(
        tp=sum(s.tp for s in scores.values()),
        fp=sum(s.fp for s in scores.values()),
        fn=sum(s.fn for s in scores.values()),
    )
    return scores


def segmentation_scores(ref_tags: Sequence[str], hyp_tags: Sequence[str]) -> Score:
    """Score sentence boundaries: PERIOD and QUESTION are interchangeable, commas ignored.

    Papers report precision, recall, F1 and F0.5 (``score.f_beta(0.5)``).

    Args:
        ref_tags: Reference tag per word, each one of ``TAGS``.
        hyp_tags: Predicted tag per word, each one of ``TAGS``.

    Returns:
        The boundary detection score.

    Raises:
        ValueError: If the sequences differ in length or contain an unknown tag.
    """
    _check_tags(ref_tags, hyp_tags)
    tp = fp = fn = 0
    for ref, hyp in zip(ref_tags, hyp_tags, strict=True):
        ref_end = ref in _BOUNDARY_TAGS
        hyp_end = hyp in _BOUNDARY_TAGS
        tp += ref_end and hyp_end
        fp += hyp_end and not ref_end
        fn += ref_end and not hyp_end
    return Score(tp=tp, fp=fp, fn=fn)


def case_class(word: str) -> str:
    """Classify the casing of a word.

    Args:
        word: A word with punctuation stripped.

    Returns:
        ``CASE_LOWER`` if the word equals its lowercase form (numbers included),
        ``CASE_CAPITALIZED`` if only the first character is uppercase (``I`` counts),
        ``CASE_ALL_CAPS`` for longer all-uppercase words (``TED``), else ``CASE_MIXED``
        (``iPhone``, ``WebMD``).
    """
    if word == word.lower():
        return CASE_LOWER
    if word[0].isupper() and word[1:] == word[1:].lower():
        return CASE_CAPITALIZED
    if len(word) > 1 and word == word.upper():
        return CASE_ALL_CAPS
    return CASE_MIXED


def capitalization_scores(ref_cased: Sequence[str], hyp_cased: Sequence[str]) -> Score:
    """Score casing restoration, micro-averaged over the non-lowercase classes.

    A reference word that is not lowercase is a true positive when the hypothesis word has
    the same case class (for ``MiXed`` words: exactly the same string). Any other non-lowercase
    hypothesis word is a false positive and any other non-lowercase reference word a false
    negative, so a ``TED`` written ``Ted`` counts as both.

    Args:
        ref_cased: Reference words in their original casing.
        hyp_cased: Hypothesis words, aligned with the reference.

    Returns:
        The capitalization score.

    Raises:
        ValueError: If the sequences differ in length.
    """
    if len(ref_cased) != len(hyp_cased):
        raise ValueError(
            f"reference has {len(ref_cased)} words but hypothesis has {len(hyp_cased)}"
        )
    tp = fp = fn = 0
    for ref, hyp in zip(ref_cased, hyp_cased, strict=True):
        ref_class = case_class(ref)
        hyp_class = case_class(hyp)
        hit = ref_class != CASE_LOWER and ref_class == hyp_class
        if hit and ref_class == CASE_MIXED:
            # Two different mixed casings (iPhone vs IPhone) are both MiXed but not the same word.
            hit = ref == hyp
        tp += hit
        fp += hyp_class != CASE_LOWER and not hit
        fn += ref_class != CASE_LOWER and not hit
    return Score(tp=tp, fp=fp, fn=fn)


def scores_to_dict(
    scores: Mapping[str, Score], *, f_betas: Iterable[float] = ()
) -> dict[str, dict[str, float | int]]:
    """Flatten scores into plain dictionaries for JSON output.

    Args:
        scores: Scores by name, e.g. the result of :func:`punctuation_scores`.
        f_betas: Extra F-beta values to include, each stored as ``f<beta>`` (``f0.5``).

    Returns:
        ``{name: {"precision", "recall", "f1", ["f0.5", ...], "tp", "fp", "fn"}}``.

    Raises:
        ValueError: If a beta is not positive.
    """
    betas = list(f_betas)
    result: dict[str, dict[str, float | int]] = {}
    for name, score in scores.items():
        entry: dict[str, float | int] = {
            "precision": score.precision,
            "recall": score.recall,
            "f1": score.f1,
        }
        for beta in betas:
            entry[f"f{beta:g}"] = score.f_beta(beta)
        entry.update(tp=score.tp, fp=score.fp, fn=score.fn)
        result[name] = entry
    return result


def _check_tags(ref_tags: Sequence[str], hyp_tags: Sequence[str]) -> None:
    """Reject misaligned or unknown tags, which would otherwise skew the counts silently."""
    if len(ref_tags) != len(hyp_tags):
        raise ValueError(f"reference has {len(ref_tags)} tags but hypothesis has {len(hyp_tags)}")
    for side, tags in (("reference", ref_tags), ("hypothesis", hyp_tags)):
        for index, tag in enumerate(tags):
            if tag not in _KNOWN_TAGS:
                raise ValueError(
                    f"{side} tag {tag!r} at position {index} is not one of {', '.join(TAGS)}"
                )


def word_accuracy(reference: str, hypothesis: str) -> float:
    """1 - word error rate of ``hypothesis`` against ``reference``, ignoring case and punctuation
    (apostrophes kept), floored at 0: substitutions, insertions and deletions all count."""
    import re

    def words(text: str) -> list[str]:
        return re.sub(r"[^\w' ]", " ", text.lower()).split()

    ref, hyp = words(reference), words(hypothesis)
    if not ref:
        return 1.0 if not hyp else 0.0
    return max(0.0, 1.0 - edit_distance(ref, hyp) / len(ref))
