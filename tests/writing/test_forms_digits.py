"""Written forms of phone numbers, card numbers, codes and PINs said digit by digit."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from dictate.writing import forms
from dictate.writing.forms import written

FORMS = [
    # North American numbers, with the pauses the punctuation model writes as commas
    ("Call five five five, one two three four, extension nine.", "Call 555-1234, ext. 9."),
    ("Call me at five five five, twelve thirty four.", "Call me at 555-1234."),
    ("It's eight six seven, fifty three oh nine.", "It's 867-5309."),
    ("Dial seven oh three, five five five, seventy one hundred.", "Dial 703-555-7100."),
    ("dial eight hundred five five five one two three four", "dial 800-555-1234"),
    ("Call one eight eight eight, five five five, twelve twelve.", "Call 1-888-555-1212."),
    ("It's one eight hundred, five five five, twenty two twenty two.", "It's 1-800-555-2222."),
    ("It's two one two, five five five, double oh one nine.", "It's 212-555-0019."),
    ("area code three one two, five five five, oh one hundred", "area code 312-555-0100"),
    # extensions after a phone number
    ("Call five five five one two three four, extension five.", "Call 555-1234, ext. 5."),
    ("call four one five five five five two six seven one extension four oh two",
     "call 415-555-2671 ext. 402"),
    ("Call nine one seven, five five five, zero one two three, extension forty five.",
     "Call 917-555-0123, ext. 45."),
    # international numbers
    ("My cell is plus one, six one seven, five five five, zero one four two.",
     "My cell is +1 617-555-0142."),
    ("Ring plus four four two zero seven nine four six zero nine five eight.",
     "Ring +44 20 7946 0958."),
    ("Ring plus four four twenty seven nine four six oh nine five eight.",
     "Ring +44 20 7946 0958."),
    ("my mobile is plus forty four seven seven double oh nine double oh one two three",
     "my mobile is +44 7700 900123"),
    ("Call plus three five three, one, two three four, five six seven eight.",
     "Call +353 1 234 5678."),
    ("Call plus four nine three oh one two three four five six seven eight.",
     "Call +49 3012345678."),
    # UK numbers from the leading "oh"
    ("Call me on oh two oh seven nine four six oh nine five eight.", "Call me on 020 7946 0958."),
    ("Call me on oh seven seven double oh, nine double oh, one two three.",
     "Call me on 07700 900123."),
    ("It's oh one six one, four nine six, oh oh oh oh.", "It's 0161 496 0000."),
    # "double", "triple", "oh", "nought"
    ("Agent double oh seven.", "Agent 007."),
    ("In the UK you call triple nine.", "In the UK you call 999."),
    ("The alarm code is double one double two.", "The alarm code is 1122."),
    ("My pin code is nought four nought nine.", "My pin code is 0409."),
    # card numbers: groups of four (American Express 4-6-5), never a phone number
    ("My card number is four one one one, one one one one, one one one one, one one one one.",
     "My card number is 4111 1111 1111 1111."),
    ("the card is five five five five five five five five five five five five four four four four",
     "the card is 5555 5555 5555 4444"),
    ("Card number three seven eight two, eight two two four six three, one oh oh oh five.",
     "Card number 3782 822463 10005."),
    # codes: after "code", "PIN", "account", "order", ... the digits are one string
    ("The order number is five five five one two three four.",
     "The order number is 5551234."),
    ("Enter the verification code, four eight two, nine one six.",
     "Enter the verification code, 482916."),
    ("The PIN is four, seven, one, two.", "The PIN is 4712."),
    ("The extension is four two.", "The extension is 42."),
    ("The account number is oh oh four seven, three two one nine.",
     "The account number is 00473219."),
]  # fmt: skip

KEPT = [
    "He rolled a double six.",
    "Count with me: one, two, three, four.",
    "The code is forty seven twelve.",
    "Two plus two is four.",
    "It is plus or minus two.",
    "Oh two three four people came.",
    "Pick one two, three four.",
    "we counted one two three four five six seven eight nine ten",
    "Seven forty seven, one twenty, one thirty.",
    "a triple w and a double two",
]


@pytest.mark.parametrize(("spoken", "expected"), FORMS)
def test_digit_strings_and_phone_numbers(spoken: str, expected: str) -> None:
    assert written(spoken) == expected


@pytest.mark.parametrize(("spoken", "expected"), FORMS)
def test_digit_forms_are_idempotent(spoken: str, expected: str) -> None:
    assert written(expected) == expected


@pytest.mark.parametrize("text", KEPT)
def test_numbers_that_are_not_digit_strings_stay(text: str) -> None:
    assert written(text) == text


DIGITISH = [
    "one", "two", "five", "seven", "nine", "oh", "zero", "nought", "double", "triple", "plus",
    "twenty", "forty", "twelve", "hundred", "extension", "ext", "four", "eight", "area", "code",
    "pin", "is", "card", "My", "Call", "people",
]  # fmt: skip
GAPS = [" ", " ", " ", " ", ", ", ". ", "-", "\n", ""]


@st.composite
def digit_heavy_text(draw: st.DrawFn) -> str:
    words = draw(st.lists(st.sampled_from(DIGITISH), min_size=0, max_size=24))
    return "".join(word + draw(st.sampled_from(GAPS)) for word in words)


@settings(max_examples=600, deadline=None)
@given(digit_heavy_text())
@example("plus four four twenty seven nine four six oh nine five eight extension forty five")
@example("five five five twelve thirty four, extension one hundred and five")
@example("plus one plus one two three four five six seven eight nine ten")
@example("double double five triple oh oh oh")
def test_digit_heavy_text_never_raises_and_is_idempotent(text: str) -> None:
    out = forms._rewrite(text, forms._DEFAULT)  # no safety net: every exception shows
    assert forms._rewrite(out, forms._DEFAULT) == out, (text, out)


def test_double_oh_dials_out_like_plus() -> None:
    assert (
        written("Call double oh four four two zero seven nine four six oh nine five eight.")
        == "Call +44 20 7946 0958."
    )
    assert written("the code is zero zero one two three") == "the code is 00123"


def test_a_social_security_number_is_grouped_three_two_four() -> None:
    said = "the ssn is seven double nine one two three double one three"
    assert written(said) == "the ssn is 799-12-3113"
    said = "My social security number is one two three four five six seven eight nine."
    assert written(said) == "My social security number is 123-45-6789."
