"""Alternatives for "correct that": the recogniser's other hypotheses for the same stretch of
audio, aligned to the words, then the other casings."""

from __future__ import annotations

from dictate.editing.alternatives import alternatives, casings

HEARD = [
    (["we", "met", "in", "paris"], [["we", "met", "in", "peru"]]),
    (
        ["the", "cat", "sat", "on", "the", "mat"],
        [["the", "cap", "sat", "on", "the", "mat"], ["a", "cat", "set", "on", "that", "mat"]],
    ),
]


def test_the_other_hypotheses_of_the_segment_are_aligned_to_the_words() -> None:
    assert alternatives("cat", HEARD)[:1] == ["cap"]
    assert alternatives("sat on", HEARD)[:1] == ["set on"]
    assert alternatives("Paris", HEARD) == ["peru", "paris", "PARIS"]
    assert alternatives("mat.", HEARD) == ["Mat.", "MAT."]  # no hypothesis differs there


def test_words_heard_nowhere_get_their_casings_and_the_list_is_bounded() -> None:
    assert casings("new york") == ["New York", "NEW YORK"]
    assert casings("NASA") == ["nasa", "Nasa"]
    assert alternatives("zebra", HEARD) == ["Zebra", "ZEBRA"]
    many = [(["one"], [[f"w{i}"] for i in range(20)])]
    assert len(alternatives("one", many)) == 9


def test_the_newest_segment_that_holds_the_words_is_the_one() -> None:
    heard = [(["the", "cat"], [["the", "bat"]]), (["my", "cat"], [["my", "hat"]])]
    assert alternatives("cat", heard)[0] == "hat"
