"""Units joined before the shipped punctuation model sees them (``dictate punctuate``, in
process): the examples of issue 28, each of which came out wrong before."""

from __future__ import annotations

import io

from dictate.cli import run


def punctuate(line: str, *flags: str) -> str:
    out = io.StringIO()
    assert run(["punctuate", *flags], stdin=io.BytesIO((line + "\n").encode()), stdout=out) == 0
    return out.getvalue().strip()


def test_spelled_letters_are_one_acronym_never_split_by_punctuation() -> None:
    # Was "The U, S and the U. K. Signed it."
    assert punctuate("the u s and the u k signed it") == "The US and the UK signed it."
    assert punctuate("the f b i and the c i a did not agree on the report") == (
        "The FBI and the CIA did not agree on the report."
    )


def test_no_sentence_end_or_capital_inside_or_right_after_a_time() -> None:
    # Was "It starts at 8 p.m. Sharp. So do not be late."
    text = punctuate("it starts at eight p m sharp so do not be late", "--written")
    assert text.startswith("It starts at 8 p.m.") and "Sharp" not in text
    # Without written forms it was "three p M on the twenty first of March."
    text = punctuate("the meeting is at three p m on the twenty first of march")
    assert "three pm on the twenty first of March" in text
    text = punctuate("the call is at nine a m p s t so set an alarm", "--written")
    assert text.startswith("The call is at 9 a.m. PST")


def test_email_and_web_addresses_take_no_capitals_or_marks() -> None:
    # Was "My email is Jane Dot Doe at Gmail dot Com."
    text = punctuate("my email is jane dot doe at gmail dot com", "--written")
    assert text == "My email is jane.doe@gmail.com."
    text = punctuate("go to w w w dot example dot org slash news for the details", "--written")
    assert text == "Go to www.example.org/news for the details."
