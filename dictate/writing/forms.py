"""Written forms of spoken English numbers (inverse text normalisation).

:func:`written` rewrites number words in text that the punctuation model has already punctuated
and cased: ``"At nine thirty a m, we paid twenty five dollars."`` becomes ``"At 9:30 a.m., we
paid $25."``. Only the words of a recognised number phrase (and the words it consumes, such as
``dollars``, ``percent``, ``a m``, ``the ... of`` around a date) are replaced; every other word,
mark, space and capital is copied unchanged, the function never raises, and it is idempotent.

House style (the choices a careful editor has to make, following AP style where it is clear):

* Small numbers: zero to nine and first to ninth stay words in running prose ("two cats", "the
  first time", "no one"); 10 and above are digits ("12 people", "the 20th century"). A small
  number becomes digits when it carries a unit, money, time, date, percent, decimal or mixed
  fraction ("2%", "$5", "5 km", "2.5 hours"), or is one end of a range whose other end is
  written in digits ("5 to 10 people", "12 to 9"; "5% to 7%" and "$5 to $10" repeat the
  sign). "a hundred", "a thousand", "a million" stay words unless more follows ("a hundred and
  fifty" -> "150") or they carry money, a percent or a unit ("a hundred dollars" -> "$100").
* Sentence-initial numbers are written like any other (digits from 10): dictation is not
  edited prose, and "25 people came." is what most users expect to see.
* Thousands separators: plain numbers from 10,000 ("12,500"); four-digit numbers have none
  ("1200 people", which also keeps years such as "2008" right); money always from 1,000
  ("$1,200"). Round millions, billions and trillions keep the word: "2 million", "$3.5 billion".
* Decimals are always digits ("3.5", "0.25", "0.5" for "point five" before a unit or percent,
  "1.2.3" for a version number); mixed numbers become decimals where exact in two
  places ("two and a half" -> "2.5", "three and three quarters" -> "3.75") and ``n a/b``
  otherwise ("one and a third" -> "1 1/3"). Simple fractions below one stay words, hyphenated
  ("two-thirds", "three-quarters", "one-half"); with a two-digit part they are digits
  ("11/16"). "half", "a half", "a quarter of" stay words.
* Money: "$25", "$5.50", "€3.5 billion", "£10", "¥500"; an amount in cents alone is "99¢",
  in pence "50p". "pounds" after weighing words or before "of" is a weight ("10 pounds").
* Times: "9:30 a.m.", "9 a.m.", "5 p.m.", "3:30" (half past three), "4:45" (quarter to five),
  "10 o'clock". "a m" / "p m" / "am" / "A M" become "a.m." / "p.m.". An hour and minutes with
  no a.m./p.m. are a time only after "at", "by", "until", "from", "around", "before", "after",
  "since", "about" or "between", or after a time just written ("from 9:30 to 10:15").
* Dates: "July 4", "July 4, 2026", "the fourth of July" -> "July 4" (a capitalised "the Fourth
  of July" without a year is the holiday and stays). A day said as a cardinal ("June twelve")
  is a day only before a year or a mark ("By June ten people left" stays as it is). "May",
  "March" and "August" are months only when capitalised and followed by an ordinal day, or
  after "the fourth of"; "May the ..." and "March the ..." starting a sentence are the verbs
  ("May the fourth be with you").
* Negative numbers: "minus twelve" -> "-12", "negative two point five" -> "-2.5", "minus five
  percent" -> "-5%", "minus five degrees" -> "-5°"; "ten minus two" and "plus or minus two"
  are arithmetic and stay.
* Years: "nineteen ninety nine" -> "1999", "twenty twenty six" -> "2026", "nineteen oh five"
  -> "1905", "two thousand and eight" -> "2008", "the nineteen eighties" -> "the 1980s";
  "the eighties" stays.
* Phone numbers: 7 or 10 (or 11 with a leading one) spoken digits -> "555-1234",
  "555-123-4567", "1-800-555-1234"; other runs of three or more single digits with no commas
  between them are written together ("room one oh one" -> "room 101").
* Units: metric and data units are abbreviated ("5 km", "3.2 kg", "100 MB", "20°C", "60 km/h"),
  imperial units keep their word ("10 miles", "6 feet"), bare degrees are "20°". Durations
  ("five minutes") are prose, not units.
* A number word capitalised in the middle of a sentence is part of a name or title ("the Ten
  Commandments") and stays. Two number phrases side by side that form no known pattern
  ("twelve fifteen" with nothing to say it is a time, "twenty four seven") stay words: there is
  no safe reading.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Any

from dictate.errors import log_failure

__all__ = ["VOCABULARY", "WrittenOptions", "written"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class WrittenOptions:
    """How :func:`written` writes numbers.

    Attributes:
        small_numbers_as_words: Keep one to nine (and zero, and first to ninth) as words in
            running prose. When False, every number is written in digits.
        group_from: Plain numbers at or above this get thousands separators (money always
            from 1,000).
    """

    small_numbers_as_words: bool = True
    group_from: int = 10_000


_DEFAULT = WrittenOptions()

# ------------------------------------------------------------------------------------------
# Vocabulary

_UNITS = dict(
    zip("one two three four five six seven eight nine".split(), range(1, 10), strict=True)
)
_TEENS = dict(
    zip(
        "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(),
        range(10, 20),
        strict=True,
    )
)
_TENS = dict(
    zip(
        "twenty thirty forty fifty sixty seventy eighty ninety".split(),
        range(20, 100, 10),
        strict=True,
    )
)
_BIG = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_ORD_UNITS = dict(
    zip(
        "first second third fourth fifth sixth seventh eighth ninth".split(),
        range(1, 10),
        strict=True,
    )
)
_ORD_TEENS = dict(
    zip(
        "tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth "
        "eighteenth nineteenth".split(),
        range(10, 20),
        strict=True,
    )
)
_ORD_TENS = dict(
    zip(
        "twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split(),
        range(20, 100, 10),
        strict=True,
    )
)
_ORD_BIG = {"thousandth": 10**3, "millionth": 10**6, "billionth": 10**9}
_DIGITS = {"zero": 0, "oh": 0, **_UNITS}
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
        "minus", "negative", "point",
    }
)  # fmt: skip

VOCABULARY: frozenset[str] = frozenset(
    {
        *_TRIGGERS, *_DIGITS, *_DENOM_ONE, *_DENOM_MANY, *_CURRENCY, *_SUBUNIT, *_ABBREVIATED,
        *_HOUR_UNITS, *_POWERS, *_DEGREE_SCALES, "degree", "degrees", "kelvin", "hours",
        "hour", "per", "second", "percent", "cent", "and", "of", "point", "past", "after",
        "to", "till", "o'clock", "o\u2019clock", "o", "clock", "am", "pm", "a", "p", "m", "mph",
        *_PLURAL_TENS,
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


# ------------------------------------------------------------------------------------------
# Tokens


class _Text:
    """The words of a text with their positions; ``low`` has "" for words glued to digits."""

    __slots__ = ("end", "last_digits", "last_time", "low", "n", "start", "text", "words")

    def __init__(self, text: str) -> None:
        self.text = text
        matches = list(_WORD.finditer(text))
        self.words = [m.group() for m in matches]
        self.start = [m.start() for m in matches]
        self.end = [m.end() for m in matches]
        self.n = len(matches)
        low = [w.lower() for w in self.words]
        for i in range(self.n):
            # "5five", "9am", "mp3": a word touching a digit run is not a number word.
            if (i > 0 and self.end[i - 1] == self.start[i]) or (
                i + 1 < self.n and self.end[i] == self.start[i + 1]
            ):
                low[i] = ""
        self.low = low
        self.last_time = -10
        self.last_digits = -10

    def gap(self, i: int) -> str:
        """The text between word ``i`` and word ``i + 1``."""
        return self.text[self.end[i] : self.start[i + 1]]

    def next(self, i: int, commas: bool = False) -> int | None:
        """The word after ``i`` when a space or a tight hyphen (or, if ``commas``, a comma)
        separates them; None otherwise."""
        if i + 1 >= self.n:
            return None
        gap = self.gap(i)
        if _soft(gap) or (commas and _comma(gap)):
            return i + 1
        return None

    def prev(self, i: int) -> int | None:
        """The word before ``i`` when only spaces or a tight hyphen separate them."""
        if i <= 0 or not _soft(self.gap(i - 1)):
            return None
        return i - 1

    def numeric(self, i: int | None) -> bool:
        """Whether word ``i`` is a cardinal number word or digits."""
        return i is not None and (self.low[i] in _CARDINAL_WORDS or self.words[i][0].isdigit())

    def low_at(self, i: int | None) -> str:
        return "" if i is None else self.low[i]

    def sentence_start(self, i: int) -> bool:
        """Whether word ``i`` starts a sentence (or the text)."""
        start = self.start[i]
        before = self.text[max(0, start - 12) : start]
        stripped = before.rstrip(" \t\"'\u201c\u2018([«")
        if not stripped or "\n" in before[len(stripped) :]:
            return True
        return stripped[-1] in ".!?…:"


def _soft(gap: str) -> bool:
    return gap == " " or gap == "-" or (gap.isspace() and "\n" not in gap)


def _comma(gap: str) -> bool:
    return gap[:1] == "," and (len(gap) == 1 or (gap[1:].isspace() and "\n" not in gap))


# ------------------------------------------------------------------------------------------
# Numbers

_START, _UNIT, _TEEN, _TEN, _TEN_UNIT, _HUNDRED, _SCALE, _AND, _ARTICLE = range(9)
_OPEN = (_START, _HUNDRED, _SCALE, _AND)


class _Int:
    """A parsed whole number phrase (cardinal or ordinal) over words ``first..last``."""

    __slots__ = ("article", "first", "last", "lead", "ordinal", "scale", "value", "words")

    def __init__(
        self,
        first: int,
        last: int,
        value: int,
        words: int,
        *,
        ordinal: bool = False,
        article: bool = False,
        scale: str = "",
        lead: int = 0,
    ) -> None:
        self.first, self.last, self.value, self.words = first, last, value, words
        self.ordinal, self.article, self.scale, self.lead = ordinal, article, scale, lead


def _parse_int(t: _Text, i: int, article: bool = True) -> _Int | None:
    """The longest whole number phrase starting at word ``i``.

    "two hundred and five", "twenty five hundred", "twenty first", "one hundred and first",
    "a hundred" (``article`` allows "a"/"an" before a scale word).
    """
    low = t.low
    word = low[i]
    if word == "zero":
        return _Int(i, i, 0, 1)
    total, group, last_scale, final = 0, 0, 10**15, False
    state, words, is_article = _START, 0, False
    j = i
    if word in ("a", "an"):
        nxt = t.next(i)
        if not article or nxt is None or (low[nxt] != "hundred" and low[nxt] not in _BIG):
            return None
        group, state, is_article, j = 1, _ARTICLE, True, nxt
    best: tuple[int, int, int, str] | None = None
    while True:
        word = low[j]
        ordinal = False
        if word in _UNITS:
            if state in _OPEN:
                state = _UNIT
            elif state == _TEN:
                state = _TEN_UNIT
            else:
                break
            group += _UNITS[word]
        elif word in _TEENS:
            if state not in _OPEN:
                break
            group += _TEENS[word]
            state = _TEEN
        elif word in _TENS:
            if state not in _OPEN:
                break
            group += _TENS[word]
            state = _TEN
        elif word == "hundred":
            if state not in (_UNIT, _TEEN, _TEN_UNIT, _ARTICLE) or final or not 0 < group < 100:
                break
            group *= 100
            state = _HUNDRED
        elif word in _BIG:
            scale = _BIG[word]
            # "one hundred and fifty thousand": a scale may follow the "and" of a group.
            if (
                state not in (_UNIT, _TEEN, _TEN, _TEN_UNIT, _HUNDRED, _ARTICLE)
                or scale >= last_scale
                or group <= 0
            ):
                break
            total += group * scale
            group, last_scale, state, final = 0, scale, _SCALE, False
        elif word == "and":
            if state not in (_HUNDRED, _SCALE) or final:
                break
            state, final = _AND, True
        elif word in _ORD_UNITS:
            if state not in (_START, _TEN, _HUNDRED, _SCALE, _AND):
                break
            group += _ORD_UNITS[word]
            ordinal = True
        elif word in _ORD_TEENS or word in _ORD_TENS:
            if state not in _OPEN:
                break
            group += _ORD_TEENS.get(word) or _ORD_TENS[word]
            ordinal = True
        elif word == "hundredth":
            if state not in (_UNIT, _TEEN, _TEN_UNIT) or final or not 0 < group < 100:
                break
            group *= 100
            ordinal = True
        elif word in _ORD_BIG:
            scale = _ORD_BIG[word]
            if (
                state not in (_UNIT, _TEEN, _TEN, _TEN_UNIT, _HUNDRED)
                or scale >= last_scale
                or group <= 0
            ):
                break
            total += group * scale
            group = 0
            ordinal = True
        else:
            break
        if word != "and":
            words += 1
        if ordinal:
            return _Int(i, j, total + group, words, ordinal=True, article=is_article)
        if state != _AND:
            best = (j, total + group, words, word if state == _SCALE else "")
        k = t.next(j)
        if k is None:
            break
        j = k
    if best is None:
        return None
    last, value, count, scale_word = best
    result = _Int(i, last, value, count, article=is_article)
    if scale_word in ("million", "billion", "trillion"):
        scale = _BIG[scale_word]
        if value % scale == 0 and value // scale < 1000:
            result.scale, result.lead = scale_word, value // scale
    return result


class _Amount:
    """A number phrase with its decimals, mixed fraction and scale word."""

    __slots__ = (
        "article", "decimals", "first", "fraction", "integer", "last", "ordinal", "scale", "words",
    )  # fmt: skip

    def __init__(self, n: _Int) -> None:
        self.first, self.last, self.words = n.first, n.last, n.words
        self.integer, self.ordinal, self.article = n.value, n.ordinal, n.article
        self.decimals = ""
        self.fraction = ""
        self.scale = ""

    @property
    def small(self) -> bool:
        """A single word from zero to nine (first to ninth): prose, not digits."""
        return (
            self.words == 1
            and self.integer <= 9
            and not (self.decimals or self.fraction or self.scale or self.article)
        )


def _point_digits(t: _Text, k: int) -> tuple[str, int] | None:
    """Digits spoken after "point" at word ``k``: "five" -> "5", "two five" -> "25"."""
    low = t.low
    j = t.next(k)
    digits: list[str] = []
    last = k
    while j is not None and low[j] in _DIGITS:
        digits.append(str(_DIGITS[low[j]]))
        last = j
        j = t.next(j)
    if digits:
        return "".join(digits), last
    j = t.next(k)
    if j is None:
        return None
    if low[j] in _TEENS:
        return str(_TEENS[low[j]]), j
    if low[j] in _TENS:
        value, last = _TENS[low[j]], j
        u = t.next(j)
        if u is not None and low[u] in _UNITS:
            value, last = value + _UNITS[low[u]], u
        return str(value), last
    return None


def _mixed(t: _Text, k: int) -> tuple[int, int, int] | None:
    """A fraction after "and" at word ``k``: "and a half" -> (1, 2, last)."""
    low = t.low
    j = t.next(k)
    if j is None:
        return None
    d = t.next(j)
    if d is None:
        return None
    if low[j] in ("a", "an", "one") and low[d] in _DENOM_ONE:
        return 1, _DENOM_ONE[low[d]], d
    if low[j] in _UNITS and low[d] in _DENOM_MANY:
        num, den = _UNITS[low[j]], _DENOM_MANY[low[d]]
        if 1 < num < den:
            return num, den, d
    return None


def _parse_amount(t: _Text, i: int) -> _Amount | None:
    """A number phrase at word ``i`` with decimals ("three point five"), a mixed fraction
    ("two and a half") and a scale word after them ("three point five billion")."""
    n = _parse_int(t, i)
    if n is None:
        return None
    amount = _Amount(n)
    if n.ordinal:
        return amount
    low = t.low
    k = t.next(n.last)
    extended = False
    if k is not None and low[k] == "point" and not n.article:
        at_one_point = n.words == 1 and n.value == 1 and t.low_at(t.prev(i)) in ("at", "one")
        found = None if at_one_point else _point_digits(t, k)
        if found is not None:
            amount.decimals, amount.last = found
            extended = True
            # "one point two point three": a version number, 1.2.3
            k = t.next(amount.last)
            while k is not None and low[k] == "point" and (more := _point_digits(t, k)):
                amount.decimals += "." + more[0]
                amount.last = more[1]
                k = t.next(amount.last)
            if "." in amount.decimals:
                return amount
    elif k is not None and low[k] == "and" and not n.article and not n.scale:
        mixed = _mixed(t, k)
        if mixed is not None:
            num, den, amount.last = mixed
            decimals = _MIXED_DECIMALS.get((num, den))
            if decimals is not None:
                amount.decimals = decimals
            else:
                amount.fraction = f"{num}/{den}"
            extended = True
    if extended:
        k = t.next(amount.last)
        if k is not None and low[k] in ("million", "billion", "trillion") and n.value < 1000:
            amount.scale, amount.last = low[k], k
    elif n.scale:
        amount.integer, amount.scale = n.lead, n.scale
    return amount


def _group(n: int, group_from: int) -> str:
    return f"{n:,}" if n >= group_from else str(n)


def _number(a: _Amount, group_from: int, money: bool = False) -> str:
    text = _group(a.integer, group_from)
    if a.decimals:
        decimals = a.decimals
        if money and not a.scale and len(decimals) == 1:
            decimals += "0"
        text += "." + decimals
    if a.fraction:
        text += " " + a.fraction
    if a.scale:
        text += " " + a.scale
    return text


def _ordinal(n: int, group_from: int) -> str:
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return _group(n, group_from) + suffix


# ------------------------------------------------------------------------------------------
# Matches


@dataclass
class _Match:
    """Replace words ``first..last`` (up to ``end`` in the text, if given) by ``text``."""

    first: int
    last: int
    text: str
    end: int = -1


def _meridiem(t: _Text, after: int, hour_word: str, loose: bool) -> tuple[int, str, int] | None:
    """The a.m./p.m. ("a m", "a.m.", "am", "P M") after word ``after``: its last word,
    "a.m." or "p.m.", and where it ends in the text (a period after it is its own)."""
    k = t.next(after)
    if k is None:
        return None
    low = t.low
    word = low[k]
    if word in ("am", "pm"):
        # "Which one am I?": a bare "am" after "one" needs a time to be a time.
        if word == "am" and hour_word == "one" and not loose:
            return None
        last = k
    elif word in ("a", "p") and k + 1 < t.n and low[k + 1] == "m":
        if t.gap(k) not in ("", ".", " ", ". "):
            return None
        last = k + 1
    else:
        return None
    end = t.end[last]
    if t.text[end : end + 1] == ".":
        end += 1
    return last, "a.m." if word[0] == "a" else "p.m.", end


def _minutes(t: _Text, j: int) -> tuple[int, int] | None:
    """Minutes after an hour, at word ``j``: "thirty" (30, j), "oh five" (5, ...)."""
    low = t.low
    word = low[j]
    if word == "oh":
        k = t.next(j)
        if k is not None and low[k] in _UNITS:
            return _UNITS[low[k]], k
        return None
    if word in _TEENS:
        return _TEENS[word], j
    if word in _TENS and _TENS[word] <= 50:
        k = t.next(j)
        if k is not None and low[k] in _UNITS:
            return _TENS[word] + _UNITS[low[k]], k
        return _TENS[word], j
    return None


def _time_context(t: _Text, i: int) -> bool:
    """Whether an hour at word ``i`` follows "at", "by", ... or a time just written."""
    p = t.prev(i)
    if p is None:
        return False
    if t.low[p] in _TIME_PREPS:
        return True
    return t.low[p] in _CHAIN_WORDS and p - 1 == t.last_time and p > 0 and _soft(t.gap(p - 1))


def _time(t: _Text, i: int) -> _Match | None:
    """Times from an hour: "nine thirty a m", "nine a m", "ten o'clock", "at nine thirty"."""
    low = t.low
    hour = _HOURS.get(low[i])
    if hour is None:
        return None
    j = t.next(i)
    if j is None:
        return None
    if low[j] in ("o'clock", "o\u2019clock"):
        return _Match(i, j, f"{hour} {t.words[j]}")
    if low[j] == "o" and t.next(j) is not None and low[j + 1] == "clock":
        return _Match(i, j + 1, f"{hour} o'clock")
    context = _time_context(t, i)
    minutes = _minutes(t, j)
    last = i if minutes is None else minutes[1]
    if minutes is not None and t.numeric(t.next(last)):
        return None  # "nine thirty five": not a time
    mer = _meridiem(t, last, low[i], context or minutes is not None)
    clock = str(hour) if minutes is None else f"{hour}:{minutes[0]:02d}"
    if mer is not None:
        return _Match(i, mer[0], f"{clock} {mer[1]}", mer[2])
    if (minutes is not None or context) and _part_of_day(t, last):
        return _Match(i, last, clock)  # "at nine in the morning", "six thirty at night"
    if minutes is not None and context:
        return _Match(i, last, clock)
    return None


def _part_of_day(t: _Text, i: int) -> bool:
    """Whether "in the morning" (afternoon, evening) or "at night" follows word ``i``."""
    k = t.next(i)
    if k is None or t.low[k] not in ("in", "at"):
        return False
    k2 = t.next(k)
    if t.low[k] == "at":
        return t.low_at(k2) == "night"
    k3 = t.next(k2) if k2 is not None and t.low[k2] == "the" else None
    return t.low_at(k3) in ("morning", "afternoon", "evening")


_CLOCK_FOLLOWERS = frozenset("tonight today tomorrow sharp exactly and then when".split())
_PAST_MINUTES = {"five": 5, "ten": 10, "twenty": 20, "quarter": 15, "half": 30}


def _time_past(t: _Text, i: int) -> _Match | None:
    """Clock phrases: "half past three", "quarter to five", "a quarter past six"."""
    low = t.low
    j: int | None = t.next(i) if low[i] in ("a", "an") else i
    if j is None or (j != i and low[j] != "quarter"):
        return None
    word = low[j]
    if word not in _PAST_MINUTES:
        return None
    minutes = _PAST_MINUTES[word]
    k = t.next(j)
    if word == "twenty" and k is not None and low[k] == "five":
        minutes, j, k = 25, k, t.next(k)
    if k is not None and low[k] == "minutes" and word not in ("quarter", "half"):
        k = t.next(k)
    if k is None or low[k] not in ("past", "after", "to", "till"):
        return None
    if low[k] in ("to", "till") and word != "quarter" and not _time_context(t, i):
        return None  # "five to ten" is a range far more often than 9:55 ("at five to ten")
    h = t.next(k)
    if h is None or low[h] not in _HOURS:
        return None
    after = t.next(h)
    if after is not None and (t.numeric(after) or low[after] in _DENOM_MANY):
        return None
    # After "about", "by", "from"...: "five to ten minutes" is a range, unless the phrase ends
    # there or a clock word follows ("by five to ten", "by five to ten tonight", "... p m").
    p = t.prev(i)
    if (
        low[k] in ("to", "till")
        and word != "quarter"
        and (p is None or low[p] != "at")
        and not (after is None or low[after] in _CLOCK_FOLLOWERS or _meridiem(t, h, "", True))
    ):
        return None
    hour = _HOURS[low[h]]
    if low[k] in ("to", "till"):
        hour, minutes = (hour - 2) % 12 + 1, 60 - minutes
    clock = f"{hour}:{minutes:02d}"
    mer = _meridiem(t, h, "", True)
    if mer is not None:
        return _Match(i, mer[0], f"{clock} {mer[1]}", mer[2])
    return _Match(i, h, clock)


def _year_at(t: _Text, i: int | None, loose: bool) -> tuple[int, int, bool] | None:
    """A year at word ``i``: (year, last word, plural), e.g. "twenty twenty six" -> 2026,
    "nineteen eighties" -> (1980, ..., True); with ``loose``, also any whole number from 1000
    to 2999 ("two thousand and eight")."""
    if i is None:
        return None
    low = t.low
    first = _TEENS.get(low[i]) or (20 if low[i] == "twenty" else 0)
    j = t.next(i)
    if first >= 11 and j is not None:
        word = low[j]
        second, last, plural = -1, j, False
        if word == "oh":
            k = t.next(j)
            if k is not None and low[k] in _UNITS:
                second, last = _UNITS[low[k]], k
        elif word in _TEENS:
            second = _TEENS[word]
        elif word in _TENS:
            second = _TENS[word]
            k = t.next(j)
            if k is not None and low[k] in _UNITS:
                second, last = second + _UNITS[low[k]], k
        elif word in _PLURAL_TENS:
            second, plural = _PLURAL_TENS[word], True
        if second >= 0:
            after = t.next(last)
            if after is not None and (t.numeric(after) or low[after] == "point"):
                return None
            return first * 100 + second, last, plural
    if loose:
        n = _parse_int(t, i, article=False)
        if n is not None and not n.ordinal and 1000 <= n.value <= 2999:
            return n.value, n.last, False
    return None


def _year(t: _Text, i: int) -> _Match | None:
    """Years: "nineteen ninety nine" -> 1999, "the nineteen eighties" -> the 1980s."""
    low = t.low
    if low[i] not in _TEENS and low[i] != "twenty":
        return None
    before = t.low_at(i - 1) if i > 0 and t.gap(i - 1).isspace() else ""
    if low[i] in _TEENS and _TEENS[low[i]] < 13 and before not in ("in", "since", "year"):
        return None  # "eleven thirty", "twelve fifteen": times, not the year 1130
    p = t.prev(i)
    if t.numeric(p):
        return None
    found = _year_at(t, i, loose=False)
    if found is None:
        return None
    year, last, plural = found
    after = t.next(last)
    low_after = t.low_at(after)
    if (
        low_after in _CURRENCY
        or low_after in _SUBUNIT
        or low_after in ("percent", "per", "degrees")
        or low_after in _ABBREVIATED
        or low_after in _WORDED
    ):
        return None
    # "sixteen twenty" is a year after "in", "since", ...; "fifteen twenty minutes" is not.
    if year < 1900 and not plural and before not in _YEAR_CUES and after is not None:
        return None
    return _Match(i, last, f"{year}{'s' if plural else ''}")


def _day(t: _Text, j: int | None, ordinal_only: bool) -> _Int | None:
    if j is None:
        return None
    n = _parse_int(t, j, article=False)
    if n is None or not 1 <= n.value <= 31 or (ordinal_only and not n.ordinal):
        return None
    return n


def _month_at(t: _Text, j: int | None, strict: bool) -> str | None:
    """The month name at word ``j`` ("may" and "march" need a capital when ``strict``)."""
    if j is None:
        return None
    month = _MONTHS.get(t.low[j])
    if month is None:
        return None
    if strict and t.low[j] in _AMBIGUOUS_MONTHS and not t.words[j][0].isupper():
        return None
    return month


def _with_year(t: _Text, m: _Match) -> _Match:
    """Extend a "July 4" match with a year after it: "July 4, 2026"."""
    found = _year_at(t, t.next(m.last, commas=True), loose=True)
    if found is None or found[2]:
        return m
    year, last, _ = found
    return _Match(m.first, last, f"{m.text}, {year}")


def _date_of(t: _Text, i: int) -> _Match | None:
    """Dates: "the fourth of July [twenty twenty six]", "fourth of July" -> "July 4[, 2026]"."""
    d_at = t.next(i) if t.low[i] == "the" else i
    day = _day(t, d_at, ordinal_only=True)
    if day is None:
        return None
    of = t.next(day.last)
    if t.low_at(of) != "of" or of is None:
        return None
    month_at = t.next(of)
    month = _month_at(t, month_at, strict=False)
    if month is None or month_at is None:
        return None
    after = t.next(month_at, commas=True)
    if after is not None and t.words[after][0].isdigit():
        return None  # "the first of May 4": the month has its day already
    m = _with_year(t, _Match(i, month_at, f"{month} {day.value}"))
    holiday = t.words[day.first][0].isupper() and not t.sentence_start(day.first)
    if holiday and m.last == month_at:
        return None  # "the Fourth of July": the holiday
    return m


def _date_month(t: _Text, i: int) -> _Match | None:
    """Dates from a month: "July fourth", "July the fourth", "July twenty twenty six"."""
    month = _month_at(t, i, strict=True)
    if month is None:
        return None
    j = t.next(i)
    if j is None:
        return None
    ordinal_only = t.low[j] == "the"
    if ordinal_only and t.low[i] in _VERB_MONTHS and t.sentence_start(i):
        return None  # "May the fourth be with you", "March the third battalion": the verb
    day_at = t.next(j) if ordinal_only else j
    if t.low[i] in _AMBIGUOUS_MONTHS:
        ordinal_only = True
    day = _day(t, day_at, ordinal_only)
    if day is not None:
        m = _with_year(t, _Match(i, day.last, f"{month} {day.value}"))
        if day.ordinal or m.last != day.last or t.next(day.last) is None:
            return m
        return None  # "By June ten people had left"
    if t.low[i] in _AMBIGUOUS_MONTHS:
        return None
    found = _year_at(t, t.next(i), loose=True)
    if found is None or found[2]:
        return None
    return _Match(i, found[1], f"{month} {found[0]}")


def _digit_run(t: _Text, i: int) -> _Match | None:
    """Phone numbers and other runs of spoken digits: "five five five one two three four"."""
    low = t.low
    if low[i] not in _DIGITS or low[i] == "oh":
        return None
    before = i - 1
    if (
        before >= 0
        and (_soft(t.gap(before)) or _comma(t.gap(before)))
        and (t.numeric(before) or low[before] in ("point", "oh"))
    ):
        return None
    digits = [_DIGITS[low[i]]]
    groups = [1]
    j = i
    toll_free = False
    while True:
        k = t.next(j, commas=True)
        if k is not None and low[k] == "hundred" and digits[0] == 1 and len(digits) == 2:
            # "one eight hundred five five five ...": 1-800-555-...
            digits += [0, 0]
            groups[-1] += 2
            j, toll_free = k, True
            continue
        if k is None or low[k] not in _DIGITS:
            break
        if _comma(t.gap(j)):
            groups.append(1)
        else:
            groups[-1] += 1
        digits.append(_DIGITS[low[k]])
        j = k
    after = t.next(j, commas=True)
    if after is not None and (
        t.numeric(after) or low[after] in _ORDINAL_WORDS or low[after] == "point"
    ):
        return None
    count = len(digits)
    text = "".join(map(str, digits))
    if toll_free and count != 11:
        return None
    phone = count in (7, 10) or (count == 11 and digits[0] == 1)
    if phone:
        counting = all(g == 1 for g in groups) and text in "0123456789"
        if counting:
            return None  # "one, two, three, four, five, six, seven"
        if count == 7:
            return _Match(i, j, f"{text[:3]}-{text[3:]}")
        if count == 10:
            return _Match(i, j, f"{text[:3]}-{text[3:6]}-{text[6:]}")
        return _Match(i, j, f"1-{text[1:4]}-{text[4:7]}-{text[7:]}")
    if count >= 3 and len(groups) == 1:
        return _Match(i, j, text)
    return None


def _weight(t: _Text, first: int, unit: int) -> bool:
    """Whether "pounds" at word ``unit`` is a weight rather than money."""
    after = t.next(unit)
    if after is not None and t.low[after] in _WEIGHT_AFTER:
        return True
    return any(t.low[k] in _WEIGHT_CUES for k in range(max(0, first - 4), first))


def _money(t: _Text, a: _Amount, k: int, options: WrittenOptions) -> _Match | None:
    low = t.low
    word = low[k]
    if word in _SUBUNIT:
        if a.scale or a.fraction or t.low_at(t.prev(a.first)) in _POSSESSIVES:
            return None  # "my two cents": an opinion
        return _Match(a.first, k, _number(a, options.group_from) + _SUBUNIT[word])
    symbol = _CURRENCY[word]
    cents = None
    last = k
    if not (a.decimals or a.scale or a.fraction):
        k2 = t.next(k)
        if k2 is not None and low[k2] == "and":
            k3 = t.next(k2)
            c = None if k3 is None else _parse_int(t, k3, article=False)
            unit = None if c is None else t.next(c.last)
            if (
                c is not None
                and unit is not None
                and not c.ordinal
                and 1 <= c.value <= 99
                and low[unit] in _SUBUNIT
            ):
                cents, last = c.value, unit
        elif k2 is not None and (low[k2] in _TEENS or low[k2] in _TENS):
            c = _parse_int(t, k2, article=False)
            if c is not None and not c.ordinal and 10 <= c.value <= 99:
                after = t.next(c.last)
                a_low = t.low_at(after)
                if after is not None and a_low in _SUBUNIT:
                    cents, last = c.value, after
                elif not (
                    t.numeric(after)
                    or a_low in _CURRENCY
                    or a_low in _ABBREVIATED
                    or a_low in _WORDED
                    or a_low in ("percent", "point", "and")
                ):
                    cents, last = c.value, c.last
    text = symbol + _number(a, 1000, money=True)
    if cents is not None:
        text = f"{symbol}{_group(a.integer, 1000)}.{cents:02d}"
    return _Match(a.first, last, text)


def _unit(t: _Text, a: _Amount, k: int, options: WrittenOptions, sign: str) -> _Match | None:
    """Measures: "five kilometers" -> "5 km", "twenty degrees Celsius" -> "20°C"."""
    low = t.low
    word = low[k]
    number = sign + _number(a, options.group_from)
    hyphen = t.gap(a.last) == "-"
    nxt = t.next(k)
    if word in ("degree", "degrees"):
        scale = _DEGREE_SCALES.get(t.low_at(nxt))
        if scale is not None and nxt is not None:
            return _Match(a.first, nxt, number + scale)
        return _Match(a.first, k, number + "°")
    if sign:
        return None
    if word == "kelvin":
        return _Match(a.first, k, f"{number} K")
    if word in _POWERS:
        if nxt is None or hyphen:
            return None
        symbol = _ABBREVIATED.get(low[nxt])
        if symbol is None or symbol not in ("km", "m", "cm", "mm"):
            return None
        return _Match(a.first, nxt, f"{number} {symbol}{_POWERS[word]}")
    if word in _HOUR_UNITS and t.low_at(nxt) in ("hour", "hours") and nxt is not None:
        return _Match(a.first, nxt, f"{number} {_HOUR_UNITS[word]}")
    symbol = _ABBREVIATED.get(word)
    if symbol is None and word not in _WORDED and word not in ("pound", "pounds"):
        return None
    if hyphen:  # "a five-kilometer run": keep the word, as an adjective
        return _Match(a.first, k, f"{number}-{t.words[k]}")
    per = t.next(nxt) if t.low_at(nxt) == "per" and nxt is not None else None
    key = symbol or word
    if per is not None and key in _PER_HOUR:
        unit_of_time = t.low[per]
        if unit_of_time == "hour" and key != "m":
            return _Match(a.first, per, f"{number} {_PER_HOUR[key]}")
        if unit_of_time == "second" and key == "m":
            return _Match(a.first, per, f"{number} m/s")
    if symbol is not None:
        return _Match(a.first, k, f"{number} {symbol}")
    return _Match(a.first, k, f"{number} {t.words[k]}")


def _fraction(t: _Text, a: _Amount, k: int, options: WrittenOptions) -> _Match | None:
    """Fractions: "two thirds" -> "two-thirds", "eleven sixteenths" -> "11/16"."""
    word = t.low[k]
    if a.decimals or a.fraction or a.scale or a.article or a.ordinal or a.integer == 0:
        return None
    if a.integer == 1 and a.words == 1:
        den = _DENOM_ONE.get(word)
    elif a.integer > 1:
        den = _DENOM_MANY.get(word)
    else:
        den = None
    if den is None or (word in ("quarter", "quarters") and t.low_at(t.next(k)) in ("past", "to")):
        return None
    if a.integer < 10 and den <= 10 and options.small_numbers_as_words:
        return _Match(a.first, k, f"{t.words[a.first]}-{t.words[k]}")
    return _Match(a.first, k, f"{a.integer}/{den}")


def _range_partner(t: _Text, a: _Amount, options: WrittenOptions) -> str | None:
    """How the first number of a range is written when its other end carries money or a
    percent sign ("between ten and twenty percent" -> "10%", "five to ten dollars" -> "$5"),
    or, for a small number, when the other end is written in digits ("five to ten people" ->
    "5"); None when ``a`` opens no such range."""
    k = t.next(a.last)
    word = t.low_at(k)
    if k is None or word not in ("to", "or", "through", "and"):
        return None
    if word == "and" and t.low_at(t.prev(a.first)) != "between":
        return None
    j = t.next(k)
    if j is None or t.low[j] not in _CARDINAL_WORDS:
        return None
    b = _parse_amount(t, j)
    if b is None or b.ordinal or b.article:
        return None
    after = t.next(b.last)
    following = t.low_at(after)
    if t.numeric(after):
        return None
    if following in _CURRENCY and not (a.scale or b.scale):
        return _CURRENCY[following] + _number(a, 1000, money=True)
    number = _number(a, options.group_from)
    if following == "percent" or (following == "per" and t.low_at(t.next(after or 0)) == "cent"):
        return number + "%"
    if following in _SUBUNIT:
        return number + _SUBUNIT[following]
    if a.small and (not b.small or following in _ABBREVIATED or following in _WORDED):
        return number
    return None


def _amount_rule(
    t: _Text, i: int, options: WrittenOptions, sign: str = "", amount: _Amount | None = None
) -> _Match | None:
    """Money, percentages, measures, fractions, and plain cardinals and ordinals (not plain
    when ``amount``, a bare "point five", is given)."""
    a = amount or _parse_amount(t, i)
    if a is None:
        return None
    if t.low_at(t.prev(i)) == "point":
        return None  # "the point five people made" (a bare "point five" is handled before)
    k = t.next(a.last)
    word = t.low_at(k)
    if k is not None and not a.ordinal and "." not in a.decimals:
        if sign and word not in ("degree", "degrees"):
            return None
        if word in _CURRENCY or word in _SUBUNIT:
            if word in ("pound", "pounds") and _weight(t, i, k):
                return _unit(t, a, k, options, sign)
            if t.numeric(t.prev(a.first)):
                # "fourteen fifty dollars": $1,450 or $14.50? Kept as said (it became "14 $50").
                return None
            return _money(t, a, k, options)
        if word == "percent" or (word == "per" and t.low_at(t.next(k)) == "cent"):
            last = k if word == "percent" else k + 1
            return _Match(a.first, last, _number(a, options.group_from) + "%")
        m = _unit(t, a, k, options, sign)
        if m is not None:
            return m
        m = _fraction(t, a, k, options)
        if m is not None:
            return m
    if sign or amount is not None:
        return None
    return _plain(t, a, options)


def _plain(t: _Text, a: _Amount, options: WrittenOptions) -> _Match | None:
    """A number with nothing around it that says what it is: digits from 10."""
    low = t.low
    if a.article and a.words <= 1:
        return None  # "a hundred", "a million": idiom as often as quantity
    p = t.prev(a.first)
    k = t.next(a.last)
    if t.numeric(p) or t.numeric(k):
        return None  # "twelve fifteen", "twenty four seven": no safe reading
    if t.low_at(k) in ("something", "somethings"):
        return None
    if p is not None and low[p] in _MONTHS and t.words[p][0].isupper():
        return None  # "By June ten people had left": not June 10
    first = t.words[a.first]
    if (
        first[0].isupper()
        and first[1:].islower()
        and low[a.first] not in ("a", "an")
        and not t.sentence_start(a.first)
    ):
        return None  # "the Ten Commandments", "Chapter Eleven": part of a name
    if a.ordinal:
        if a.words == 1 and (a.integer <= 9 and options.small_numbers_as_words):
            return None
        if a.words == 1 and low[a.first] in _ORD_BIG:
            return None  # "thousandth" alone
        before = t.low_at(p)
        if before in ("a", "an"):
            if low[a.last] == "second" and a.words > 1:  # "a thirty second spot"
                return _Match(a.first, a.last, f"{a.integer - 2}-{t.words[a.last]}")
            return None  # "a tenth of a second": a fraction
        return _Match(a.first, a.last, _ordinal(a.integer, options.group_from))
    partner = _range_partner(t, a, options)
    if partner is not None:
        return _Match(a.first, a.last, partner)
    # "twelve to nine", "ten or five": a small number is in digits after a range's other end
    range_end = p is not None and low[p] in ("to", "or", "through") and t.prev(p) == t.last_digits
    if a.small and options.small_numbers_as_words and not range_end:
        return None
    t.last_digits = a.last
    return _Match(a.first, a.last, _number(a, options.group_from))


def _negative(t: _Text, i: int, j: int, options: WrittenOptions) -> _Match | None:
    """A negative number said with "minus" or "negative" at ``i``, its number at ``j``: "minus
    twelve" -> "-12", "minus two point five" -> "-2.5", "minus five percent" -> "-5%". Not in
    arithmetic ("ten minus two"), in "plus or minus two", or before money or a unit other than
    degrees (those are handled before, with the sign)."""
    p = t.prev(i)
    if t.numeric(p) or t.low_at(p) in ("plus", "or"):
        return None
    a = _parse_amount(t, j)
    if a is None or a.ordinal or a.article:
        return None
    k = t.next(a.last)
    if k is not None:
        word = t.low[k]
        if word == "percent":
            return _Match(a.first, k, f"-{_number(a, options.group_from)}%")
        if t.numeric(k) or word in _CURRENCY or word in _SUBUNIT:
            return None  # "minus twelve fifty", "minus five dollars": no safe reading
        if _unit(t, a, k, options, "") is not None:
            return None  # "minus three kilometers": a change, said as such ("minus 3 km")
    return _Match(a.first, a.last, f"-{_number(a, options.group_from)}")


def _one_unit(t: _Text, i: int, options: WrittenOptions) -> _Match | None:
    """One unit of money with cents: "a dollar fifty" -> "$1.50" ("a dollar" stays)."""
    k = t.next(i)
    if k is None or t.low[k] not in ("dollar", "pound", "euro"):
        return None
    m = _money(t, _Amount(_Int(i, i, 1, 1)), k, options)
    return None if m is None or m.last == k else m


def _match_at(t: _Text, i: int, options: WrittenOptions) -> _Match | None:
    word = t.low[i]
    if word == "the":
        return _date_of(t, i)
    if word in _MONTHS:
        return _date_month(t, i)
    if word == "point":
        p = t.prev(i)
        found = _point_digits(t, i)
        if t.numeric(p) or found is None:
            return None
        bare = _Amount(_Int(i, found[1], 0, 1))
        bare.decimals = found[0]
        return _amount_rule(t, i, options, amount=bare)
    if word in ("minus", "negative"):
        j = t.next(i)
        if j is None or t.low[j] not in _CARDINAL_WORDS:
            return None
        m = _amount_rule(t, j, options, sign="-") or _negative(t, i, j, options)
        return None if m is None else _Match(i, m.last, m.text, m.end)
    if word in ("a", "an", "half", "quarter"):
        if word in ("a", "an"):
            return _time_past(t, i) or _one_unit(t, i, options) or _amount_rule(t, i, options)
        return _time_past(t, i)
    m = _time_past(t, i) if word in _PAST_MINUTES else None
    if m is None:
        m = _time(t, i)
    if m is not None:
        t.last_time = m.last
        return m
    return (
        (_date_of(t, i) if word in _ORDINAL_WORDS else None)
        or _year(t, i)
        or _digit_run(t, i)
        or _amount_rule(t, i, options)
    )


def _rewrite(text: str, options: WrittenOptions) -> str:
    """:func:`written` without its safety net (the tests call it to see every exception).

    Rewrites until nothing changes: a written form can change what its neighbour looks like
    (a number word next to another stays a word, but next to the other's written form it may
    be a number of its own), and the result must be idempotent. Every pass that changes the
    text removes number words, so this ends; two passes are the rule, three are rare.
    """
    for _ in range(_MAX_PASSES):
        rewritten = _rewrite_once(text, options)
        if rewritten == text:
            break
        text = rewritten
    return text


_MAX_PASSES = 6


def _rewrite_once(text: str, options: WrittenOptions) -> str:
    """One pass of :func:`written` over ``text``."""
    if not text or _ANY.search(text.lower()) is None:
        return text
    t = _Text(text)
    parts: list[str] = []
    pos = 0
    i = 0
    while i < t.n:
        if t.low[i] in _TRIGGERS:
            m = _match_at(t, i, options)
            if m is not None:
                parts.append(text[pos : t.start[m.first]])
                parts.append(m.text)
                pos = m.end if m.end >= 0 else t.end[m.last]
                i = m.last + 1
                continue
        i += 1
    if not parts:
        return text
    parts.append(text[pos:])
    return "".join(parts)


def written(text: str, options: WrittenOptions | None = None) -> str:
    """Write the spoken numbers in punctuated, cased text in their written forms.

    Args:
        text: Text as the punctuation model writes it: "We met at nine thirty a m."
        options: House style; the defaults are described in the module documentation.

    Returns:
        The text with numbers, money, times, dates, percentages, measures and phone numbers in
        their written forms ("We met at 9:30 a.m."); every other word, mark and space as it
        was. Never raises: on an internal error the text comes back unchanged (and is logged).
    """
    try:
        return _rewrite(text, options or _DEFAULT)
    except Exception:  # a bug must never lose the user's dictation
        log_failure(log, "written forms failed; text left as dictated")
        return text
