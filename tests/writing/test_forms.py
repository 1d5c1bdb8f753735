"""Written forms of spoken numbers: the case table, unit tests and properties."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from num2words import num2words
from text_to_num import text2num

from dictate.writing import forms
from dictate.writing.forms import VOCABULARY, WrittenOptions, written
from dictate.writing.units import join_in_text

TABLE = Path(__file__).with_name("written_cases.tsv")
CLASSES = {
    "cardinal", "ordinal", "decimal", "fraction", "percent", "money", "time", "date", "year",
    "phone", "measure", "small_number_prose", "passthrough",
    "digits", "mixed", "acronym", "address",
}  # fmt: skip
# Measured: 708/711 (99.6%) with these thresholds (issue 28 added 211 cases, each batch written
# before its rules, first runs: time+mixed+cardinal 51/96, phone+digits 26/65, acronym 21/25,
# address 24/25). The three failures: "Forty Second Street" (a capitalised number is kept as a
# name), "a Boeing seven forty seven" (adjacent numbers are left as words) and "bit dot ly slash
# three x y z" (number words inside a web address stay words).
OVERALL_FLOOR = 0.97
CLASS_FLOOR = 0.9
GUARD_CLASSES = ("passthrough", "small_number_prose")


def load_cases() -> list[tuple[str, str, str]]:
    cases = []
    for number, line in enumerate(TABLE.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        assert len(parts) == 3, f"{TABLE.name}:{number}: {line!r}"
        cases.append((parts[0], parts[1], parts[2]))
    return cases


CASES = load_cases()


def test_the_table_is_large_and_spread_over_every_class() -> None:
    counts = Counter(kind for kind, _, _ in CASES)
    assert set(counts) == CLASSES
    assert len(CASES) >= 300
    assert min(counts.values()) >= 20, counts
    assert len({spoken for _, spoken, _ in CASES}) == len(CASES), "duplicate spoken sides"


def test_pass_rates_overall_and_per_class() -> None:
    passed: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for kind, spoken, expected in CASES:
        totals[kind] += 1
        passed[kind] += written(spoken) == expected
    overall = sum(passed.values()) / len(CASES)
    assert overall >= OVERALL_FLOOR, f"{overall:.3f}"
    for kind in totals:
        assert passed[kind] / totals[kind] >= CLASS_FLOOR, (kind, passed[kind], totals[kind])


@pytest.mark.parametrize(
    ("spoken", "expected"),
    [(s, w) for kind, s, w in CASES if kind in GUARD_CLASSES],
)
def test_false_trigger_guards_pass_exactly(spoken: str, expected: str) -> None:
    assert written(spoken) == expected


@pytest.mark.parametrize(("kind", "spoken", "expected"), CASES)
def test_every_case_is_idempotent(kind: str, spoken: str, expected: str) -> None:
    once = written(spoken)
    assert written(once) == once
    assert written(expected) == expected  # a written text is left alone


@pytest.mark.parametrize(
    ("spoken", "expected"),
    [
        ("At nine thirty a m, we paid twenty five dollars.", "At 9:30 a.m., we paid $25."),
        ("the fourth of july twenty twenty six", "July 4, 2026"),
        ("The fourth of July, twenty twenty six was hot.", "July 4, 2026 was hot."),
        ("five five five, one two three, four five six seven", "555-123-4567"),
        ("three point five billion euros", "€3.5 billion"),
        ("It costs a dollar fifty.", "It costs $1.50."),
        ("We met at nine a M.", "We met at 9 a.m."),
        ("from nine thirty to ten fifteen", "from 9:30 to 10:15"),
        ("The room is twelve square meters.", "The room is 12 m²."),
        ("It was minus five degrees Celsius.", "It was -5°C."),
        # Found in review: "minus 2.5", "May 4 be with you".
        ("It was minus two point five.", "It was -2.5."),
        ("The score was minus twelve.", "The score was -12."),
        ("The answer is negative one.", "The answer is -1."),
        ("Growth was minus five percent.", "Growth was -5%."),
        ("Ten minus two is eight.", "10 minus two is eight."),
        ("It is plus or minus two.", "It is plus or minus two."),
        ("The balance is minus five dollars.", "The balance is minus $5."),
        ("May the fourth be with you.", "May the fourth be with you."),
        ("March the third battalion forward.", "March the third battalion forward."),
        ("On May the fourth, we met.", "On May 4, we met."),
        ("May fifth is fine.", "May 5 is fine."),
        ("Update to version one point two point three.", "Update to version 1.2.3."),
        ("Call one eight hundred five five five one two one two.", "Call 1-800-555-1212."),
        ("a thirty second spot", "a 30-second spot"),
        ("twenty-first", "21st"),
        ("", ""),
    ],
)
def test_examples(spoken: str, expected: str) -> None:
    assert written(spoken) == expected


def test_words_next_to_the_numbers_are_kept_exactly() -> None:
    text = "«Well»,  she said:\tTWELVE  people — “twenty five dollars”!\n"
    assert written(text) == "«Well»,  she said:\t12  people — “$25”!\n"


def test_uppercase_text_is_converted_but_a_capitalised_name_is_not() -> None:
    assert written("WE PAID TWENTY FIVE DOLLARS") == "WE PAID $25"
    assert written("They read the Ten Commandments.") == "They read the Ten Commandments."
    assert written("Twelve came.") == "12 came."  # sentence-initial capital: digits


def test_options_spell_nothing_out() -> None:
    options = WrittenOptions(small_numbers_as_words=False)
    assert written("I have two cats.", options) == "I have 2 cats."
    assert written("the first time", options) == "the 1st time"
    assert written("two thirds", options) == "2/3"


def test_options_group_from() -> None:
    assert written("one thousand two hundred") == "1200"
    assert written("one thousand two hundred", WrittenOptions(group_from=1000)) == "1,200"
    assert written("one thousand two hundred dollars") == "$1,200"  # money: always from 1,000


def test_words_glued_to_digits_are_not_numbers() -> None:
    assert written("5five and twenty5") == "5five and twenty5"


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_a_huge_line_is_written_whole() -> None:
    """20,000 number phrases in one line, every one written. Quadratic work would take hours
    here and stop the suite; no wall-clock limit (it failed at 10 s on a loaded machine):
    time belongs in benchmarks."""
    line = "We paid twenty five dollars at nine thirty a m on July fourth. " * 20_000
    out = written(line)
    assert out.count("$25 at 9:30 a.m. on July 4.") == 20_000


def test_an_internal_error_leaves_the_text_as_dictated(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(text: str, options: WrittenOptions) -> str:
        raise IndexError("bug")

    monkeypatch.setattr(forms, "_rewrite", broken)
    assert written("twenty five dollars") == "twenty five dollars"


# ------------------------------------------------------------------------------------------
# Properties

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")
ORDINARY = ["people", "cats", "we", "paid", "I", "like", "The", "it", "Monday", "café", "😀"]
NUMBERISH = sorted(VOCABULARY | {"oh", "o'clock", "a.m.", "A", "M", "Twenty", "May", "March"})
SEPARATORS = [" ", " ", " ", ", ", ". ", "-", "\n", "! ", "? ", ""]


def kept_words(text: str) -> Counter[str]:
    """The words that no written form may remove (lowercase; numbers and their companions
    are in VOCABULARY)."""
    return Counter(
        w.lower() for w in _WORD.findall(text) if w.lower() not in VOCABULARY and w != "s"
    )


@st.composite
def number_heavy_text(draw: st.DrawFn) -> str:
    words = draw(
        st.lists(st.sampled_from(NUMBERISH + ORDINARY + NUMBERISH), min_size=0, max_size=14)
    )
    parts = []
    for word in words:
        parts.append(word)
        parts.append(draw(st.sampled_from(SEPARATORS)))
    return "".join(parts)


def check(text: str) -> None:
    out = forms._rewrite(text, forms._DEFAULT)  # no safety net: every exception shows
    assert forms._rewrite(out, forms._DEFAULT) == out, (text, out)
    lost = kept_words(text) - kept_words(out)
    assert not lost, (text, out, lost)


@pytest.mark.slow  # over 2 s: the fast lane stays short
@settings(max_examples=1500, deadline=None)
@given(number_heavy_text())
@example("twenty twenty twenty six")
@example("five five five five five five five five five five five five")
@example("one, two, three, four, five, six, seven")
@example("nine oh five a m oh five")
@example("the first of the fourth of May May fifth")
@example("a a quarter past twelve to one")
def test_number_heavy_text_never_raises_is_idempotent_and_keeps_words(text: str) -> None:
    check(text)


@settings(max_examples=500, deadline=None)
@given(st.text())
@example("")
@example("😀 twenty 😀 five")
@example("twenty\u0301 five")
@example("İstanbul twenty")
def test_any_text_never_raises_and_is_idempotent(text: str) -> None:
    check(text)
    assert written(text) == forms._rewrite(join_in_text(text), forms._DEFAULT)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=999_999_999_999), st.booleans())
def test_cardinals_agree_with_text2num(n: int, hyphens: bool) -> None:
    """Our number grammar reads num2words' English as text2num does."""
    phrase = num2words(n).replace(",", "")
    if not hyphens:
        phrase = phrase.replace("-", " ")
    t = forms._Text(phrase)
    parsed = forms._parse_int(t, 0)
    assert parsed is not None and parsed.last == t.n - 1, phrase
    assert parsed.value == n == text2num(phrase.replace("-", " "), "en")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=10, max_value=999_999))
def test_ordinals_from_num2words(n: int) -> None:
    phrase = num2words(n, to="ordinal").replace(",", "").replace("-", " ")
    out = written(f"the {phrase} time")
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    number = f"{n:,}" if n >= 10_000 else str(n)
    assert out == f"the {number}{suffix} time"
