"""Tags to text."""

from __future__ import annotations

import pytest

from dictate.punctuation.render import case_word, case_words, join_text


@pytest.mark.parametrize(
    ("word", "case_tag", "start", "expected"),
    [
        ("hello", None, False, "hello"),
        ("hello", None, True, "Hello"),
        ("i", None, False, "I"),
        ("i'm", None, False, "I'm"),
        ("i'd", "LOWER", False, "I'd"),
        ("it", None, False, "it"),
        ("london", "CAPITALIZED", False, "London"),
        ("nasa", "ALL_CAPS", False, "NASA"),
        ("nasa", "ALL_CAPS", True, "NASA"),
        ("the", "LOWER", True, "The"),
        ("ärger", None, True, "Ärger"),
        ("2010", None, True, "2010"),
    ],
)
def test_case_word(word: str, case_tag: str | None, start: bool, expected: str) -> None:
    assert case_word(word, case_tag, sentence_start=start) == expected


def test_capital_after_every_sentence_end() -> None:
    words = ["so", "what", "now", "i", "think", "we", "go"]
    tags = ["COMMA", "O", "QUESTION", "O", "O", "O", "PERIOD"]
    cased = case_words(words, tags)
    assert cased == ["So", "what", "now", "I", "think", "we", "go"]
    assert join_text(cased, tags) == "So, what now? I think we go."


def test_sentence_start_can_be_off_and_casing_tags_apply() -> None:
    words = ["in", "london", "today"]
    cased = case_words(
        words, ["O", "O", "O"], ["LOWER", "CAPITALIZED", "LOWER"], sentence_start=False
    )
    assert join_text(cased, ["O", "O", "O"]) == "in London today"


def test_mismatched_lengths_are_an_error() -> None:
    with pytest.raises(ValueError):
        case_words(["a", "b"], ["O"])


def test_a_full_stop_is_not_doubled_after_a_word_ending_with_one() -> None:
    """Found by trying the app under Xvfb: PocketSphinx's "d." at a sentence end came out
    "three d.." in the editor."""
    from dictate.punctuation.render import join_text

    cased = ["At", "nine", "a.m.", "Vitamin", "d.", "or", "e.g.", "this"]
    tags = ["O", "O", "PERIOD", "O", "PERIOD", "O", "COMMA", "QUESTION"]
    assert join_text(cased, tags) == "At nine a.m. Vitamin d. or e.g., this?"
    assert join_text(cased, tags, before=[""] * 8, after=[""] * 8) == join_text(cased, tags)
