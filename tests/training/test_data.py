"""Training data preparation: cleaning, spoken forms and label alignment, on small fixtures."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from dictate.punctuation.labels import PUNCT_TAGS
from dictate.training.data import (
    ALL_CAPS,
    CAPITALIZED,
    LOWER,
    NO_VARIATION,
    Variation,
    case_label,
    clean_transcript,
    expand_symbols,
    label_text,
    read_talks,
    spoken_form,
)

O, COMMA, PERIOD, QUESTION = range(len(PUNCT_TAGS))  # noqa: E741 - the tag names


@pytest.mark.parametrize(
    ("token", "spoken"),
    [
        ("hello", ["hello"]),
        ("Hello", ["hello"]),
        ("1990", ["nineteen", "ninety"]),
        ("2008", ["two", "thousand", "eight"]),
        ("1905", ["nineteen", "oh", "five"]),
        ("1990s", ["nineteen", "nineties"]),
        ("80s", ["eighties"]),
        ("4,800", ["four", "thousand", "eight", "hundred"]),
        ("123", ["one", "hundred", "twenty", "three"]),
        ("3.5", ["three", "point", "five"]),
        ("21st", ["twenty", "first"]),
        ("9:30", ["nine", "thirty"]),
        ("9:05", ["nine", "oh", "five"]),
        ("9/11", ["nine", "eleven"]),
        ("10-15", ["ten", "to", "fifteen"]),
        ("CO2", ["co", "two"]),
        ("3D", ["three", "d"]),
        ("U.S", ["us"]),
        ("AT&T", ["at", "and", "t"]),
        ("don't", ["don't"]),
    ],
)
def test_spoken_form(token: str, spoken: list[str]) -> None:
    assert spoken_form(token) == spoken


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("It costs $5 million.", "It costs 5 million dollars."),
        ("about 50% of it", "about 50 percent of it"),
        ("#1 fan", "number 1 fan"),
        ("salt & pepper", "salt and pepper"),
        ("£3.50 each", "3.50 pounds each"),
        ("30°C", "30 degrees C"),
    ],
)
def test_expand_symbols(text: str, expanded: str) -> None:
    assert expand_symbols(text) == expanded


def test_clean_transcript() -> None:
    raw = (
        "Translator: Joe Smith Reviewer: Ann Lee\n"
        "I&#39;m here &amp;amp; &quot;ready&quot; --\n(Laughter)\n"
        "CA: So what? ♫ la la ♫\n(Applause)\n"
    )
    assert clean_transcript(raw) == 'I\'m here & "ready" -- So what? la la'


@pytest.mark.parametrize(
    ("word", "label"),
    [
        ("the", LOWER),
        ("The", CAPITALIZED),
        ("I", CAPITALIZED),
        ("NASA", ALL_CAPS),
        ("NASA's", ALL_CAPS),
        ("I'm", CAPITALIZED),
        ("iPhone", LOWER),
        ("42", LOWER),
    ],
)
def test_case_label(word: str, label: int) -> None:
    assert case_label(word) == label


def labelled(text: str, variation: Variation = NO_VARIATION) -> list[tuple[str, int, int]]:
    out = label_text(text, random.Random(0), variation)
    return list(zip(out.words, out.punct, out.case, strict=True))


def test_labels_follow_the_words_and_the_iwslt_convention() -> None:
    assert labelled("Hi, I'm Ann; and you? Fine: thanks -- really! NASA.") == [
        ("hi", COMMA, CAPITALIZED),
        ("i'm", O, CAPITALIZED),
        ("ann", PERIOD, CAPITALIZED),
        ("and", O, LOWER),
        ("you", QUESTION, LOWER),
        ("fine", COMMA, CAPITALIZED),
        ("thanks", COMMA, LOWER),
        ("really", PERIOD, LOWER),
        ("nasa", PERIOD, ALL_CAPS),
    ]


def test_punctuation_goes_to_the_last_spoken_word() -> None:
    assert labelled("It was 1990, or $5.") == [
        ("it", O, CAPITALIZED),
        ("was", O, LOWER),
        ("nineteen", O, LOWER),
        ("ninety", COMMA, LOWER),
        ("or", O, LOWER),
        ("five", O, LOWER),
        ("dollars", PERIOD, LOWER),
    ]


def test_a_sentence_starting_with_a_number_starts_with_a_capital() -> None:
    assert labelled("Yes. 20 people came.")[1] == ("twenty", O, CAPITALIZED)


def test_abbreviation_dots_are_not_sentence_ends() -> None:
    words = labelled("Mr. Smith went to the U.S. and came back. Then Dr. Who.")
    assert ("mr", O, CAPITALIZED) in words
    assert ("us", O, ALL_CAPS) in words
    assert ("back", PERIOD, LOWER) in words
    assert words[-1] == ("who", PERIOD, CAPITALIZED)


def test_contractions_split_like_iwslt() -> None:
    words = labelled("I don't know.", Variation(keep_digits=0.0, split_contractions=1.0))
    assert words == [
        ("i", O, CAPITALIZED),
        ("don", O, LOWER),
        ("'t", O, LOWER),
        ("know", PERIOD, LOWER),
    ]


def test_digits_can_be_kept() -> None:
    words = labelled("In 1990.", Variation(keep_digits=1.0, split_contractions=0.0))
    assert words == [("in", O, CAPITALIZED), ("1990", PERIOD, LOWER)]


def test_text_without_words() -> None:
    assert labelled("-- ... ♫") == []


def test_read_talks(tmp_path: Path) -> None:
    path = tmp_path / "talks.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(json.dumps({"id": "a", "text": "One."}) + "\n\n")
        out.write(json.dumps({"id": "b", "text": "Two?"}) + "\n")
    assert list(read_talks(path)) == ["One.", "Two?"]
