"""Written forms, second round: clock times in more contexts, military times, labels, heights,
24/7 and 20/20."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dictate.writing import forms
from dictate.writing.forms import written

# Each of these fails on the rules before this round.
NEW_FORMS = [
    # Times after "it is", "it's", "it was", "the time is", "set ... for", "moved to"
    ("It is eight forty five.", "It is 8:45."),
    ("It's seven thirty.", "It's 7:30."),
    ("it was ten fifteen when we left", "it was 10:15 when we left"),
    ("It is now eleven twenty.", "It is now 11:20."),
    ("The time now is four oh five.", "The time now is 4:05."),
    ("The deadline is nine thirty tomorrow morning.", "The deadline is 9:30 tomorrow morning."),
    ("Set the alarm for six forty five.", "Set the alarm for 6:45."),
    ("The meeting was moved to ten thirty.", "The meeting was moved to 10:30."),
    ("It's twelve thirty.", "It's 12:30."),
    ("It's five till ten.", "It's 9:55."),
    # Military times
    ("Report at oh five hundred.", "Report at 0500."),
    ("We move out at oh six hundred hours.", "We move out at 0600 hours."),
    ("Formation is at zero six hundred hours.", "Formation is at 0600 hours."),
    ("Wake up is at oh six thirty.", "Wake up is at 0630."),
    # Labels
    ("chapter eleven verse three", "chapter 11 verse 3"),
    ("Turn to page five.", "Turn to page 5."),
    ("I'm on season one episode four.", "I'm on season 1 episode 4."),
    ("Act one scene two is short.", "Act 1 scene 2 is short."),
    ("Read pages five to nine.", "Read pages 5 to 9."),
    ("Read chapters three and four.", "Read chapters 3 and 4."),
    ("She read page two of three.", "She read page 2 of 3."),
    ("Take bus number seven.", "Take bus number 7."),
    # Heights
    ("He is six foot two.", "He is 6 ft 2 in."),
    ("She is five feet four inches tall.", "She is 5 ft 4 in tall."),
    ("He's five foot eleven.", "He's 5 ft 11 in."),
    ("The board is two feet six inches long.", "The board is 2 ft 6 in long."),
    # Slashed pairs
    ("twenty four seven", "24/7"),
    ("We offer twenty-four seven support.", "We offer 24/7 support."),
    ("She has twenty twenty vision.", "She has 20/20 vision."),
    ("Hindsight is twenty twenty.", "Hindsight is 20/20."),
    # A score is no year
    ("The score is twenty fifteen.", "The score is twenty fifteen."),
]

UNCHANGED = [
    "the price is four fifty",
    "It is one of the best.",
    "It's two to one he'll be late.",
    "It's eight.",
    "We meet at noon.",
    "He is my number one fan.",
    "The line one must not cross.",
    "I waited in line two hours.",
    "That's the best part one could hope for.",
]

# Forms that were right before this round and must stay so.
KEPT = [
    ("Lunch is at twelve noon.", "Lunch is at 12 noon."),
    ("The store closes at twelve midnight.", "The store closes at 12 midnight."),
    ("The call is at three p.m. EST.", "The call is at 3 p.m. EST."),
    ("The demo is at three pm.", "The demo is at 3 p.m."),
    ("I'll call you at four p.m. PST.", "I'll call you at 4 p.m. PST."),
    ("We landed at three in the afternoon.", "We landed at 3 in the afternoon."),
    ("The briefing is at thirteen hundred hours.", "The briefing is at 1300 hours."),
    ("Come by at a quarter after nine.", "Come by at 9:15."),
    ("We'll leave at ten past six.", "We'll leave at 6:10."),
    ("The fence is six feet high.", "The fence is 6 feet high."),
    ("The store is open twenty four hours a day.", "The store is open 24 hours a day."),
    ("Invite five to ten people.", "Invite 5 to 10 people."),
    ("One hundred and five people came.", "105 people came."),
    ("In twenty twenty we stayed home.", "In 2020 we stayed home."),
    ("Oh five hundred people came.", "Oh 500 people came."),  # an interjection, not 0500
    ("The balance is minus fifty dollars.", "The balance is minus $50."),
]


@pytest.mark.parametrize(("spoken", "expected"), NEW_FORMS + KEPT)
def test_new_forms(spoken: str, expected: str) -> None:
    assert written(spoken) == expected


@pytest.mark.parametrize("spoken", UNCHANGED)
def test_new_rules_leave_these_alone(spoken: str) -> None:
    assert written(spoken) == spoken


@pytest.mark.parametrize(("spoken", "expected"), NEW_FORMS + KEPT)
def test_new_forms_are_idempotent(spoken: str, expected: str) -> None:
    once = written(spoken)
    assert written(once) == once
    assert written(expected) == expected


def test_an_hour_above_twelve_is_no_time_after_it_is() -> None:
    assert written("It is thirteen forty.") != "It is 13:40."
    assert written("it is twenty fifteen") == "it is 2015"  # a year, as before


PIECES = [
    "it is", "it's", "it was", "now", "the time is", "set the alarm for", "moved to", "at",
    "eight", "forty five", "twelve", "noon", "midnight", "oh", "zero", "five", "hundred",
    "hours", "thirty", "till", "ten", "past", "quarter", "after", "chapter", "eleven", "verse",
    "three", "page", "to", "nine", "and", "of", "season", "one", "episode", "number", "six",
    "foot", "feet", "two", "inches", "twenty", "four", "seven", "vision", "hindsight", "is",
    "minus", "fifty", "dollars", "score", "p m", "pm", "p.m.", "EST", "in the afternoon",
]  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=12),
    st.sampled_from([" ", ", ", ". ", "-"]),
    st.booleans(),
)
def test_the_new_forms_never_raise_and_are_idempotent(
    pieces: list[str], separator: str, capital: bool
) -> None:
    text = separator.join(pieces)
    if capital:
        text = text[:1].upper() + text[1:]
    out = forms._rewrite(text, forms._DEFAULT)  # no safety net: every exception shows
    assert forms._rewrite(out, forms._DEFAULT) == out, (text, out)
    once = written(text)
    assert written(once) == once, (text, once)


# Forms found by reading a public inverse-normalisation test list (NeMo's English ITN cases,
# in their own house style) after the rules above were written; each was wrong before.
@pytest.mark.parametrize(
    ("said", "want"),
    [
        ("eight o six", "8:06"),  # the recogniser's letter "o" for "oh"
        ("We met at eleven o six p m.", "We met at 11:06 p.m."),  # was "11 o 6 p.m."
        ("eight oclock g m t", "8 o'clock GMT"),
        ("Two thirty.", "2:30."),  # an hour and minutes said as the whole phrase
        ("eight fifty one", "8:51"),
        ("one min to one am", "12:59 a.m."),
        ("It ends at three minutes past six.", "It ends at 6:03."),
        ("Five minutes to ten p m.", "9:55 p.m."),
    ],
)
def test_forms_from_an_outside_list(said: str, want: str) -> None:
    assert written(said) == want
    assert written(want) == want


@pytest.mark.parametrize(
    "said",
    [
        "Seven forty seven, one twenty, one thirty.",  # a list of numbers, not one phrase
        "wait five minutes to ten",  # no clock word: a count and a number
        "It takes five minutes to ten people.",
    ],
)
def test_counted_minutes_need_a_clock_reading(said: str) -> None:
    assert ":" not in written(said)
