"""Written units (dictate/writing/units.py): spelled letters, "p m" after a time, e-mail and web
addresses joined into one word, before punctuation and in punctuated text."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.writing.units import find_units, join_in_text, join_words


@pytest.mark.parametrize(
    ("said", "joined"),
    [
        ("the u s and the u k signed it", "the US and the UK signed it"),
        ("the f b i", "the FBI"),
        ("a i will change things", "AI will change things"),
        ("as a i do n't know", "as a i do n't know"),  # a hesitation before "I"
        ("yeah a i was going to ask", "yeah a i was going to ask"),
        ("send a p d f", "send a PDF"),  # the article before letters stays a word
        ("get a t shirt", "get a t shirt"),
        ("at three p m on monday", "at three pm on monday"),
        ("at nine a m p s t", "at nine am PST"),
        ("the p m said", "the PM said"),  # no time before it: the prime minister
        ("fruit i e apples", "fruit i.e. apples"),
        ("the fbi and nasa", "the FBI and NASA"),
        ("my email is jane dot doe at gmail dot com", "my email is jane.doe@gmail.com"),
        ("w w w dot example dot org slash news", "www.example.org/news"),
        ("double u double u double u dot bbc dot co dot uk", "www.bbc.co.uk"),
        ("triple w dot python dot org", "www.python.org"),
        ("jane underscore smith at my dash firm dot co dot uk", "jane_smith@my-firm.co.uk"),
        ("have a look at example dot com", "have a look at example.com"),
        ("a dot on the map", "a dot on the map"),  # no top-level domain: words
        ("example dot com dash one", "example.com dash one"),
        ("i went there", "i went there"),
    ],
)
def test_units_are_joined_before_punctuation(said: str, joined: str) -> None:
    assert " ".join(join_words(said.split())[0]) == joined


def test_addresses_can_be_left_as_words() -> None:
    words = "mail jane at example dot com from the u s".split()
    assert join_words(words, addresses=False)[0] == [*words[:-2], "US"]


@pytest.mark.parametrize(
    ("punctuated", "joined"),
    [
        ("The U. K. Signed it.", "The UK. Signed it."),
        ("My email is Jane Dot Doe at Gmail dot Com.", "My email is jane.doe@gmail.com."),
        ("We met at three p M. On March.", "We met at three pm. On March."),
        ("\u201cThe f b i,\u201d he said.", "\u201cThe FBI,\u201d he said."),
        ("The U, S and the UK.", "The U, S and the UK."),  # a comma between: not joined
        ("Go to Example. Com now.", "Go to Example. Com now."),
    ],
)
def test_units_in_punctuated_text(punctuated: str, joined: str) -> None:
    assert join_in_text(punctuated) == joined


VOCABULARY = [
    "a", "i", "u", "s", "p", "m", "e", "w", "x", "dot", "at", "slash", "dash", "underscore",
    "com", "org", "uk", "co", "example", "jane", "the", "three", "double", "triple", "fbi",
    "www", "nine", "said", "look",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(VOCABULARY), max_size=14))
def test_every_word_is_kept_in_order_outside_the_units(words: list[str]) -> None:
    joined, placed = join_words(words)
    units = find_units(words)
    assert len(units) == len(placed)
    # Taking the units out of both sides leaves the same words in the same order.
    inside = {k for u in units for k in range(u.start, u.end)}
    assert [w for k, w in enumerate(words) if k not in inside] == [
        w for k, w in enumerate(joined) if k not in {u.start for u in placed}
    ]
    for unit, put in zip(units, placed, strict=True):
        assert joined[put.start] == unit.text and " " not in unit.text


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([*VOCABULARY, "U.", "K.", "Dot", "Com.", ",", "S,"]), max_size=12))
def test_joining_text_is_idempotent_and_never_raises(words: list[str]) -> None:
    text = " ".join(words)
    once = join_in_text(text)
    assert join_in_text(once) == once
