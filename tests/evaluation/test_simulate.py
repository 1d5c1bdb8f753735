"""The long-form dictation simulator: reproducible cuts that respect its probabilities."""

from __future__ import annotations

import itertools

import pytest

from dictate.evaluation.simulate import simulate_segments

# Three sentences of 4, 3 and 5 words.
WORDS = ["so", "here", "we", "are", "is", "it", "true", "yes", "we", "really", "did", "it"]
TAGS = ["O", "O", "O", "PERIOD", "O", "O", "QUESTION", "O", "COMMA", "O", "O", "PERIOD"]


def _long_input(n: int) -> tuple[list[str], list[str]]:
    words = [f"w{i}" for i in range(n)]
    tags = ["PERIOD" if i % 7 == 6 else ("COMMA" if i % 5 == 4 else "O") for i in range(n)]
    return words, tags


def test_sentence_ends_only() -> None:
    segments = simulate_segments(WORDS, TAGS, p_end=1.0, p_mid=0.0)
    assert segments == [WORDS[0:4], WORDS[4:7], WORDS[7:12]]


def test_last_segment_ends_at_the_end_without_a_sentence_end() -> None:
    tags = [*TAGS[:-1], "O"]
    assert simulate_segments(WORDS, tags, p_end=1.0, p_mid=0.0)[-1] == WORDS[7:12]


@pytest.mark.parametrize("max_words", [1, 2, 5, 12, 100])
def test_no_random_cuts_only_max_words(max_words: int) -> None:
    segments = simulate_segments(WORDS, TAGS, p_end=0.0, p_mid=0.0, max_words=max_words)
    expected = [WORDS[i : i + max_words] for i in range(0, len(WORDS), max_words)]
    assert segments == expected


def test_every_boundary_with_certain_cuts() -> None:
    segments = simulate_segments(WORDS, TAGS, p_end=1.0, p_mid=1.0)
    assert segments == [[word] for word in WORDS]


@pytest.mark.parametrize(
    ("seed", "p_end", "p_mid", "max_words"),
    list(itertools.product([0, 1, 7], [0.0, 0.5, 0.8], [0.0, 0.1, 0.6], [1, 3, 10])),
)
def test_segments_reassemble_and_respect_max_words(
    seed: int, p_end: float, p_mid: float, max_words: int
) -> None:
    words, tags = _long_input(300)
    segments = simulate_segments(
        words, tags, seed=seed, p_end=p_end, p_mid=p_mid, max_words=max_words
    )
    assert [word for segment in segments for word in segment] == words
    assert all(1 <= len(segment) <= max_words for segment in segments)


def test_deterministic_per_seed() -> None:
    words, tags = _long_input(500)
    first = simulate_segments(words, tags, seed=3)
    assert simulate_segments(words, tags, seed=3) == first
    assert simulate_segments(words, tags, seed=4) != first


def test_does_not_touch_global_random_state() -> None:
    import random

    words, tags = _long_input(200)
    random.seed(123)
    expected = random.random()
    random.seed(123)
    simulate_segments(words, tags, seed=5)
    assert random.random() == expected


def test_cuts_follow_probabilities_roughly() -> None:
    # With p_end=0.8 and p_mid=0.1 most sentence ends are cut and few other boundaries.
    words, tags = _long_input(7000)
    segments = simulate_segments(words, tags, seed=0, max_words=10_000)
    ends = set(itertools.accumulate(len(segment) for segment in segments[:-1]))
    sentence_ends = {i + 1 for i, tag in enumerate(tags[:-1]) if tag == "PERIOD"}
    other = len(words) - 1 - len(sentence_ends)
    assert len(ends & sentence_ends) / len(sentence_ends) == pytest.approx(0.8, abs=0.05)
    assert len(ends - sentence_ends) / other == pytest.approx(0.1, abs=0.02)


def test_empty_input() -> None:
    assert simulate_segments([], []) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"p_end": 1.5}, "p_end must be in"),
        ({"p_end": -0.1}, "p_end must be in"),
        ({"p_mid": float("nan")}, "p_mid must be in"),
        ({"max_words": 0}, "max_words must be"),
        ({"max_words": 2.5}, "max_words must be"),
    ],
)
def test_rejects_bad_arguments(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        simulate_segments(WORDS, TAGS, **kwargs)  # type: ignore[arg-type]


def test_rejects_length_mismatch() -> None:
    with pytest.raises(ValueError, match="12 words but 11 tags"):
        simulate_segments(WORDS, TAGS[:-1])


def test_rejects_unknown_tag() -> None:
    with pytest.raises(ValueError, match="tag 'Period' at position 0"):
        simulate_segments(["a"], ["Period"])
