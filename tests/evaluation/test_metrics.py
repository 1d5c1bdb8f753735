"""Hand-computed checks of the punctuation, segmentation and capitalization scores."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from dictate.evaluation.metrics import (
    CASE_ALL_CAPS,
    CASE_CAPITALIZED,
    CASE_LOWER,
    CASE_MIXED,
    Score,
    capitalization_scores,
    case_class,
    punctuation_scores,
    scores_to_dict,
    segmentation_scores,
)

TagScorer = Callable[[Sequence[str], Sequence[str]], object]

# Ten words; the per-position outcome is spelled out so the expected counts can be checked by eye.
REF = ["O", "COMMA", "O", "PERIOD", "O", "O", "QUESTION", "O", "COMMA", "PERIOD"]
HYP = ["O", "COMMA", "COMMA", "PERIOD", "O", "PERIOD", "PERIOD", "O", "O", "QUESTION"]
# 2: COMMA tp | 3: COMMA fp | 4: PERIOD tp | 6: PERIOD fp | 7: PERIOD fp + QUESTION fn
# 9: COMMA fn | 10: QUESTION fp + PERIOD fn


@pytest.mark.parametrize(
    ("name", "counts", "precision", "recall", "f1", "f05"),
    [
        ("COMMA", (1, 1, 1), 1 / 2, 1 / 2, 1 / 2, 1 / 2),
        ("PERIOD", (1, 2, 1), 1 / 3, 1 / 2, 2 / 5, 5 / 14),
        ("QUESTION", (0, 1, 1), 0.0, 0.0, 0.0, 0.0),
        ("OVERALL", (2, 4, 3), 1 / 3, 2 / 5, 4 / 11, 10 / 29),
    ],
)
def test_punctuation_scores_hand_computed(
    name: str,
    counts: tuple[int, int, int],
    precision: float,
    recall: float,
    f1: float,
    f05: float,
) -> None:
    score = punctuation_scores(REF, HYP)[name]
    assert (score.tp, score.fp, score.fn) == counts
    assert score.precision == pytest.approx(precision)
    assert score.recall == pytest.approx(recall)
    assert score.f1 == pytest.approx(f1)
    assert score.f_beta(0.5) == pytest.approx(f05)


def test_punctuation_scores_keys_and_perfect_match() -> None:
    scores = punctuation_scores(REF, REF)
    assert list(scores) == ["COMMA", "PERIOD", "QUESTION", "OVERALL"]
    assert scores["OVERALL"] == Score(tp=5, fp=0, fn=0)
    assert scores["OVERALL"].f1 == 1.0


@pytest.mark.parametrize(
    ("ref", "hyp", "counts", "precision", "recall", "f1", "f05"),
    [
        # Boundaries at 4, 7, 10 vs 4, 6, 7, 10; QUESTION at 10 matches PERIOD.
        (REF, HYP, (3, 1, 0), 3 / 4, 1.0, 6 / 7, 15 / 19),
        # Boundaries at 2, 4, 8 vs 2, 6, 8, 10; the COMMA mismatch at 1 is ignored.
        (
            ["O", "PERIOD", "O", "QUESTION", "O", "COMMA", "O", "PERIOD", "O", "O"],
            ["COMMA", "PERIOD", "O", "O", "O", "PERIOD", "O", "QUESTION", "O", "PERIOD"],
            (2, 2, 1),
            1 / 2,
            2 / 3,
            4 / 7,
            10 / 19,
        ),
        (["O", "COMMA"], ["COMMA", "O"], (0, 0, 0), 0.0, 0.0, 0.0, 0.0),
    ],
)
def test_segmentation_scores_hand_computed(
    ref: list[str],
    hyp: list[str],
    counts: tuple[int, int, int],
    precision: float,
    recall: float,
    f1: float,
    f05: float,
) -> None:
    score = segmentation_scores(ref, hyp)
    assert (score.tp, score.fp, score.fn) == counts
    assert score.precision == pytest.approx(precision)
    assert score.recall == pytest.approx(recall)
    assert score.f1 == pytest.approx(f1)
    assert score.f_beta(0.5) == pytest.approx(f05)


@pytest.mark.parametrize("scorer", [punctuation_scores, segmentation_scores])
def test_tag_scorers_reject_length_mismatch(scorer: TagScorer) -> None:
    with pytest.raises(ValueError, match="2 tags but hypothesis has 1"):
        scorer(["O", "O"], ["O"])


@pytest.mark.parametrize("scorer", [punctuation_scores, segmentation_scores])
def test_tag_scorers_reject_unknown_tags(scorer: TagScorer) -> None:
    with pytest.raises(ValueError, match="hypothesis tag ',' at position 1"):
        scorer(["O", "COMMA"], ["O", ","])


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("hello", CASE_LOWER),
        ("42", CASE_LOWER),
        ("9/11", CASE_LOWER),
        ("", CASE_LOWER),
        ("I", CASE_CAPITALIZED),
        ("Hello", CASE_CAPITALIZED),
        ("I'm", CASE_CAPITALIZED),
        ("TED", CASE_ALL_CAPS),
        ("CO2", CASE_ALL_CAPS),
        ("D.C", CASE_ALL_CAPS),
        ("iPhone", CASE_MIXED),
        ("WebMD", CASE_MIXED),
        ("McDonald", CASE_MIXED),
        ("e-Patient", CASE_MIXED),
    ],
)
def test_case_class(word: str, expected: str) -> None:
    assert case_class(word) == expected


def test_case_class_values() -> None:
    assert (CASE_LOWER, CASE_CAPITALIZED, CASE_ALL_CAPS, CASE_MIXED) == (
        "lower",
        "Capitalized",
        "ALL_CAPS",
        "MiXed",
    )


@pytest.mark.parametrize(
    ("ref", "hyp", "counts"),
    [
        # I: tp | Met: fp | Ted for TED: fp + fn | new for New: fn | York: tp
        # IPhones for iPhones: both MiXed but different strings, so fp + fn.
        (
            ["I", "met", "TED", "speakers", "in", "New", "York", "with", "iPhones", "today"],
            ["I", "Met", "Ted", "speakers", "in", "new", "York", "with", "IPhones", "today"],
            (2, 3, 3),
        ),
        (["WebMD", "TV", "ok"], ["WebMD", "TV", "ok"], (2, 0, 0)),
        (["a", "b"], ["a", "b"], (0, 0, 0)),
    ],
)
def test_capitalization_scores_hand_computed(
    ref: list[str], hyp: list[str], counts: tuple[int, int, int]
) -> None:
    score = capitalization_scores(ref, hyp)
    assert (score.tp, score.fp, score.fn) == counts


def test_capitalization_scores_ratios() -> None:
    score = capitalization_scores(
        ["I", "met", "TED", "speakers", "in", "New", "York", "with", "iPhones", "today"],
        ["I", "Met", "Ted", "speakers", "in", "new", "York", "with", "IPhones", "today"],
    )
    assert score.precision == pytest.approx(0.4)
    assert score.recall == pytest.approx(0.4)
    assert score.f1 == pytest.approx(0.4)
    assert score.f_beta(0.5) == pytest.approx(0.4)


def test_capitalization_scores_reject_length_mismatch() -> None:
    with pytest.raises(ValueError, match="reference has 1 words but hypothesis has 2"):
        capitalization_scores(["A"], ["A", "b"])


@pytest.mark.parametrize(
    ("score", "precision", "recall", "f1"),
    [
        (Score(0, 0, 0), 0.0, 0.0, 0.0),
        (Score(0, 3, 0), 0.0, 0.0, 0.0),
        (Score(0, 0, 3), 0.0, 0.0, 0.0),
        (Score(4, 0, 0), 1.0, 1.0, 1.0),
        (Score(3, 1, 2), 3 / 4, 3 / 5, 2 / 3),
    ],
)
def test_score_ratios(score: Score, precision: float, recall: float, f1: float) -> None:
    assert score.precision == pytest.approx(precision)
    assert score.recall == pytest.approx(recall)
    assert score.f1 == pytest.approx(f1)


def test_f_beta_matches_precision_recall_formula() -> None:
    score = Score(3, 1, 2)
    p, r = score.precision, score.recall
    for beta in (0.5, 1.0, 2.0):
        b2 = beta * beta
        assert score.f_beta(beta) == pytest.approx((1 + b2) * p * r / (b2 * p + r))


@pytest.mark.parametrize("beta", [0.0, -1.0, float("nan")])
def test_f_beta_rejects_non_positive_beta(beta: float) -> None:
    with pytest.raises(ValueError, match="beta must be positive"):
        Score(1, 1, 1).f_beta(beta)


def test_score_rejects_negative_counts() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        Score(1, -1, 0)


def test_scores_to_dict() -> None:
    result = scores_to_dict({"COMMA": Score(1, 1, 2)}, f_betas=[0.5])
    assert result == {
        "COMMA": {
            "precision": pytest.approx(1 / 2),
            "recall": pytest.approx(1 / 3),
            "f1": pytest.approx(2 / 5),
            "f0.5": pytest.approx(1.25 / 2.75),
            "tp": 1,
            "fp": 1,
            "fn": 2,
        }
    }
    assert list(scores_to_dict({"X": Score(0, 0, 0)})["X"]) == [
        "precision",
        "recall",
        "f1",
        "tp",
        "fp",
        "fn",
    ]
