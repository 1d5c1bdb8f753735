"""The vocabulary of the written forms: the number, month, fraction, money and unit word
tables shared by the other modules, :data:`VOCABULARY`, and the word and fast-test patterns."""

from __future__ import annotations

import re
from typing import Any


def _numbered(words: str, values: range) -> dict[str, int]:
    """The words of ``words`` (split on spaces) numbered by ``values``, one for one."""
    return dict(zip(words.split(), values, strict=True))


_UNITS = _numbered("one two three four five six seven eight nine", range(1, 10))
_TEENS = _numbered(
    "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen",
    range(10, 20),
)
_TENS = _numbered("twenty thirty forty fifty sixty seventy eighty ninety", range(20, 100, 10))
_BIG = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_ORD_UNITS = _numbered("first second third fourth fifth sixth seventh eighth ninth", range(1, 10))
_ORD_TEENS = _numbered(
    "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth "
    "eighteenth nineteenth",
    range(10, 20),
)
_ORD_TENS = _numbered(
    "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth",
    range(20, 100, 10),
)
_ORD_BIG = {"thousandth": 10**3, "millionth": 10**6, "billionth": 10**9}
_DIGITS = {"zero": 0, "oh": 0, "nought": 0, "naught": 0, **_UNITS}
_HOURS = {w: v for w, v in {**_UNITS, **_TEENS}.items() if 1 <= v <= 12}
_CARDINAL_WORDS = frozenset({"zero", *_UNITS, *_TEENS, *_TENS, "hundred", *_BIG})
_ORDINAL_WORDS = frozenset({*_ORD_UNITS, *_ORD_TEENS, *_ORD_TENS, "hundredth", *_ORD_BIG})

_MONTHS = {
    m.lower(): m
    for m in "January February March April May June July August September October November "
    "December".split()
}
_AMBIGUOUS_MONTHS = frozenset({"may", "march", "august"})
_VERB_MONTHS = frozenset({"may", "march"})

# Denominators of fractions: singular (after "one", "a", "an") and plural.
_DENOM_ONE = {
    "half": 2, "third": 3, "quarter": 4, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7,
    "eighth": 8, "ninth": 9, "tenth": 10, "twelfth": 12, "sixteenth": 16,
}  # fmt: skip
_DENOM_MANY = {
    "halves": 2, "thirds": 3, "quarters": 4, "fourths": 4, "fifths": 5, "sixths": 6,
    "sevenths": 7, "eighths": 8, "ninths": 9, "tenths": 10, "twelfths": 12, "sixteenths": 16,
}  # fmt: skip
_MIXED_DECIMALS = {(1, 2): "5", (1, 4): "25", (2, 4): "5", (3, 4): "75"}

_CURRENCY = {
    "dollar": "$", "dollars": "$", "euro": "€", "euros": "€", "pound": "£", "pounds": "£",
    "yen": "¥",
}  # fmt: skip
_SUBUNIT = {"cent": "¢", "cents": "¢", "pence": "p", "penny": "p"}
_POSSESSIVES = frozenset("my your his her our their its".split())
_WEIGHT_CUES = frozenset(
    "weigh weighs weighed weighing weight lost lose losing gained gain gaining heavy lift lifts "
    "lifted lifting bench press".split()
)
_WEIGHT_AFTER = frozenset("of heavier lighter overweight underweight".split())

# Units written as symbols; the keys are the spoken words, singular and plural.
_ABBREVIATED: dict[str, str] = {}
for _words, _symbol in (
    ("kilometer kilometers kilometre kilometres", "km"),
    ("meter meters metre metres", "m"),
    ("centimeter centimeters centimetre centimetres", "cm"),
    ("millimeter millimeters millimetre millimetres", "mm"),
    ("kilogram kilograms kilogramme kilogrammes kilo kilos", "kg"),
    ("gram grams gramme grammes", "g"),
    ("milligram milligrams", "mg"),
    ("liter liters litre litres", "L"),
    ("milliliter milliliters millilitre millilitres", "mL"),
    ("kilobyte kilobytes", "KB"),
    ("megabyte megabytes", "MB"),
    ("gigabyte gigabytes", "GB"),
    ("terabyte terabytes", "TB"),
    ("petabyte petabytes", "PB"),
    ("hertz", "Hz"),
    ("kilohertz", "kHz"),
    ("megahertz", "MHz"),
    ("gigahertz", "GHz"),
    ("watt watts", "W"),
    ("kilowatt kilowatts", "kW"),
    ("megawatt megawatts", "MW"),
    ("volt volts", "V"),
    ("kilocalorie kilocalories", "kcal"),
):
    for _word in _words.split():
        _ABBREVIATED[_word] = _symbol
# "kilowatt hours", "milliamp hours": two spoken words, one symbol.
_HOUR_UNITS = {"kilowatt": "kWh", "kilowatts": "kWh", "milliamp": "mAh", "milliamps": "mAh"}
# Units that keep their word (imperial and informal), with digits.
_WORDED = frozenset(
    "mile miles foot feet inch inches yard yards ounce ounces gallon gallons pint pints quart "
    "quarts acre acres ton tons tonne tonnes hectare hectares calorie calories amp amps "
    "pixel pixels percentage".split()
)
_PER_HOUR = {"km": "km/h", "mile": "mph", "miles": "mph", "m": "m/s"}
_POWERS = {"square": "²", "cubic": "³"}
_DEGREE_SCALES = {"celsius": "°C", "centigrade": "°C", "fahrenheit": "°F"}

_TIME_PREPS = frozenset("at by until till til from around before after since about between".split())
_CHAIN_WORDS = frozenset("to and until till through or".split())
_YEAR_CUES = frozenset(
    "in of since by until from the year circa around before after to and".split()
)
_PLURAL_TENS = {
    "tens": 10, "twenties": 20, "thirties": 30, "forties": 40, "fifties": 50, "sixties": 60,
    "seventies": 70, "eighties": 80, "nineties": 90, "hundreds": 0,
}  # fmt: skip

_TRIGGERS = frozenset(
    {
        *_CARDINAL_WORDS, *_ORDINAL_WORDS, *_MONTHS, "the", "a", "an", "half", "quarter",
        "minus", "negative", "point", "oh",
        "nought", "naught", "double", "triple", "plus",  # digit strings and phone numbers
    }
)  # fmt: skip

VOCABULARY: frozenset[str] = frozenset(
    {
        *_TRIGGERS, *_DIGITS, *_DENOM_ONE, *_DENOM_MANY, *_CURRENCY, *_SUBUNIT, *_ABBREVIATED,
        *_HOUR_UNITS, *_POWERS, *_DEGREE_SCALES, "degree", "degrees", "kelvin", "hours",
        "hour", "per", "second", "percent", "cent", "and", "of", "point", "past", "after",
        "to", "till", "o'clock", "o\u2019clock", "o", "clock", "am", "pm", "a", "p", "m", "mph",
        *_PLURAL_TENS, "foot", "feet", "inch", "inches", "extension", "ext",
    }
)  # fmt: skip
"""Every word (lowercase) that a written form may consume; all others are always kept."""


def _prefix_pattern(words: frozenset[str]) -> str:
    """A regular expression matching any of ``words``, as a trie of their letters (several
    times faster in Python's engine than a flat alternation)."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def pattern(node: dict[str, Any]) -> str:
        branches = [re.escape(c) + pattern(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return pattern(trie)


# Every written form has a cardinal or ordinal word: the fast test, on the lowercase text, for
# the text that has none (most of it), before any tokenising. It matches word starts only.
_ANY = re.compile(r"\b" + _prefix_pattern(_CARDINAL_WORDS | _ORDINAL_WORDS))
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*|\d+")
