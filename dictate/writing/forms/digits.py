"""Runs of spoken digits: phone numbers (North American, UK and international, with an
extension), card numbers, and codes, PINs and zip codes said digit by digit."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice, pairwise, product

from dictate.writing.forms.lexicon import _DIGITS, _ORDINAL_WORDS, _TEENS, _TENS, _UNITS
from dictate.writing.forms.numbers import _parse_int
from dictate.writing.forms.tokens import _comma, _Match, _soft, _Text

_REPEAT = {"double": 2, "triple": 3}
_EXTENSION = frozenset({"extension", "ext"})
# Words after which a run of digits is a code, not a phone number: "my PIN is ...", "the order
# number is ...", "zip code ..." ("area code" is a phone number's).
_CODE_CUES = frozenset(
    "pin pins code codes passcode password zip postcode account card order serial id reference "
    "tracking confirmation policy member membership customer invoice ticket booking extension "
    "ext room apartment suite flight gate platform digits combination locker ssn security".split()
)
_SSN_CUES = frozenset({"ssn", "security"})
"""Cues of a US social security number: nine digits are written "123-45-6789"."""
# Words that may stand between a cue and its digits: "my pin number is", "the code was".
_FILLERS = frozenset("number numbers no is was are will be the my your his her our their".split())
# Country calling codes are prefix-free: 1 and 7 are one digit, these two, all others three.
_TWO_DIGIT_COUNTRIES = frozenset(
    "20 27 30 31 32 33 34 36 39 40 41 43 44 45 46 47 48 49 51 52 53 54 55 56 57 58 60 61 62 63 "
    "64 65 66 81 82 84 86 90 91 92 93 94 95 98".split()
)
_MAX_READINGS = 64

# A token is the digits of one spoken word or phrase and whether it was said as a number
# ("twelve", "eight hundred") rather than digit by digit; such a token must lie inside one
# group of a phone number ("five five five, twelve thirty four", not "fifty five five ...").
_Token = tuple[str, bool]


class _Reading:
    """One reading of a spoken run: its digits, the spans of the tokens said as numbers, and
    the offsets at which the speaker paused (a comma)."""

    __slots__ = ("commas", "digits", "spans")

    def __init__(self, items: list[tuple[list[_Token], bool]]) -> None:
        self.digits = ""
        self.spans: list[tuple[int, int]] = []
        self.commas: list[int] = []
        for tokens, comma in items:
            if comma:
                self.commas.append(len(self.digits))
            for digits, number in tokens:
                if number:
                    self.spans.append((len(self.digits), len(self.digits) + len(digits)))
                self.digits += digits

    def groups(self) -> list[int]:
        """The number of digits between commas."""
        bounds = [0, *self.commas, len(self.digits)]
        return [b - a for a, b in pairwise(bounds)]

    def dial_out(self) -> _Reading:
        """The reading without the "00" that dials out of a country (a "+")."""
        out = _Reading([])
        out.digits = self.digits[2:]
        out.spans = [(a - 2, b - 2) for a, b in self.spans if a >= 2]
        out.commas = [c - 2 for c in self.commas if c > 2]
        return out

    def layout(self, sizes: tuple[int, ...], offset: int = 0) -> list[str] | None:
        """The digits after ``offset`` cut into parts of ``sizes``, or None when they have
        another length or a token said as a number straddles two parts."""
        digits = self.digits[offset:]
        if len(digits) != sum(sizes):
            return None
        cuts = [offset]
        for size in sizes:
            cuts.append(cuts[-1] + size)
        for start, end in self.spans:
            if any(start < cut < end for cut in cuts):
                return None
        return [self.digits[a:b] for a, b in pairwise(cuts)]


def _items(
    t: _Text, i: int, numbers_first: bool
) -> tuple[list[list[list[_Token]]], list[bool], int]:
    """The spoken digits from word ``i``: per item its readings (a token list each; "twenty
    seven" is "27" or "20" "7"), whether a comma came before it, and the last word."""
    low = t.low
    items: list[list[list[_Token]]] = []
    commas: list[bool] = []
    j, comma, end = i, False, i
    while True:
        word = low[j]
        nxt = t.next(j)
        last = j
        hundred = nxt is not None and low[nxt] == "hundred"
        readings: list[list[_Token]]
        if word in _DIGITS:
            digit = str(_DIGITS[word])
            readings = [[(f"{digit}00", True)] if hundred else [(digit, False)]]
            last = nxt if hundred and nxt is not None else j
        elif word in _REPEAT and nxt is not None and low[nxt] in _DIGITS:
            readings = [[(str(_DIGITS[low[nxt]]) * _REPEAT[word], False)]]
            last = nxt
        elif word in _TEENS and (items or numbers_first):
            readings = [[(f"{_TEENS[word]}{'00' if hundred else ''}", True)]]
            last = nxt if hundred and nxt is not None else j
        elif word in _TENS and (items or numbers_first):
            tens = _TENS[word]
            if nxt is not None and low[nxt] in _UNITS:
                unit, last = _UNITS[low[nxt]], nxt
                after = t.next(nxt)
                if after is not None and low[after] == "hundred":
                    readings, last = [[(f"{tens + unit}00", True)]], after
                else:
                    readings = [[(str(tens + unit), True)], [(str(tens), True), (str(unit), False)]]
            else:
                readings = [[(str(tens), True)]]
        else:
            break
        items.append(readings)
        commas.append(comma)
        end = last
        k = t.next(last, commas=True)
        if k is None:
            break
        comma = _comma(t.gap(last))
        j = k
    return items, commas, end


def _readings(items: list[list[list[_Token]]], commas: list[bool]) -> Iterator[_Reading]:
    """The readings of a run, the one with every "twenty seven" as 27 first."""
    for choice in islice(product(*items), _MAX_READINGS):
        yield _Reading(list(zip(choice, commas, strict=True)))


def _uk(national: str) -> tuple[int, ...]:
    """The groups of a UK number without its leading 0: London "20 7946 0958", mobiles
    "7700 900123", "161 496 0000" (01x1 and 011x), other 01 numbers "1632 960983"."""
    if national[0] == "2":
        return (2, 4, 4)
    if national[0] == "7" or (national[0] == "1" and "1" not in national[1:3]):
        return (4, 6)
    return (3, 3, 4)


def _code_cue(t: _Text, i: int) -> str | None:
    """The word before the digits at word ``i`` that makes them a code ("my PIN is"), if any."""
    low = t.low
    j = i - 1
    for _ in range(4):
        if j < 0 or any(mark in t.gap(j) for mark in ".!?;\n"):
            return None
        if low[j] in _CODE_CUES:
            return None if (low[j] == "code" and j > 0 and low[j - 1] == "area") else low[j]
        if low[j] not in _FILLERS:
            return None
        j -= 1
    return None


def _national(r: _Reading, cue: str | None) -> tuple[str, str] | None:
    """A run without "plus" (``cue``: the word that makes it a code): (written form, "phone",
    "card" or "code")."""
    digits, n, plain = r.digits, len(r.digits), not r.spans
    if cue in _SSN_CUES and n == 9:
        return f"{digits[:3]}-{digits[3:5]}-{digits[5:]}", "code"
    if plain and n == 16:
        return " ".join(digits[k : k + 4] for k in range(0, 16, 4)), "card"
    if plain and n == 15 and digits[:2] in ("34", "37"):
        return f"{digits[:4]} {digits[4:10]} {digits[10:]}", "card"  # American Express
    if cue:
        if plain and (n >= 3 or (n == 2 and not r.commas)):
            return digits, "code"
        return None
    counting = digits in "012345678910"
    if counting and (r.spans or all(g == 1 for g in r.groups())):
        return None  # "one, two, three, four, five, six, seven", "... nine ten"
    if n == 11 and digits[0] == "0":
        sizes = _uk(digits[1:])
        parts = r.layout((1 + sizes[0], *sizes[1:]))
        if parts is not None:
            return " ".join(parts), "phone"
    phone = {7: (3, 4), 10: (3, 3, 4), 11: (1, 3, 3, 4)}.get(n)
    if phone is not None and (n != 11 or digits[0] == "1") and not counting:
        parts = r.layout(phone)
        if parts is not None:
            return "-".join(parts), "phone"
    if plain and n >= 3 and not r.commas:
        return digits, "code"
    return None


def _international(readings: list[_Reading]) -> str | None:
    """A run after "plus": "+1 617-555-0142", "+44 20 7946 0958", "+49 3012345678"."""
    for strict in (True, False):
        for r in readings:
            d = r.digits
            size = 1 if d[:1] in ("1", "7") else 2 if d[:2] in _TWO_DIGIT_COUNTRIES else 3
            country, national = d[:size], d[size:]
            if any(start < size < end for start, end in r.spans) or not 4 <= len(national) <= 12:
                continue
            if strict and country == "1":
                parts = r.layout((3, 3, 4), size)
                if parts is not None:
                    return f"+1 {'-'.join(parts)}"
            elif strict and country == "44" and national[0] != "0":
                parts = r.layout(_uk(national), size)
                if parts is not None:
                    return f"+44 {' '.join(parts)}"
            elif not strict:
                cuts = [size, *(c for c in r.commas if c > size), len(d)]
                groups = [d[a:b] for a, b in pairwise(cuts)]
                return f"+{country} {' '.join(groups)}"
    return None


def _extension(t: _Text, last: int) -> tuple[int, str] | None:
    """ "extension two three" after a phone number: (last word, "23")."""
    low = t.low
    k = t.next(last, commas=True)
    if k is None or low[k] not in _EXTENSION:
        return None
    first = t.next(k)
    if first is None:
        return None
    digits, end = "", first
    j: int | None = first
    while j is not None and low[j] in _DIGITS:
        digits, end = digits + str(_DIGITS[low[j]]), j
        j = t.next(j)
    if not digits or t.numeric(j):  # "extension forty five"
        n = _parse_int(t, first, article=False)
        if n is None or n.ordinal:
            return None
        digits, end = str(n.value), n.last
    after = t.next(end, commas=True)
    if t.numeric(after) or t.low_at(after) in _ORDINAL_WORDS:
        return None
    return end, digits


def _digit_run(t: _Text, i: int) -> _Match | None:
    """Phone numbers, card numbers and codes said digit by digit: "five five five one two three
    four" -> "555-1234", "plus four four twenty ..." -> "+44 20 ...", "my pin is four seven
    one two" -> "my pin is 4712"."""
    low = t.low
    plus = low[i] == "plus"
    start = i
    if plus:
        nxt = t.next(i)
        if nxt is None or t.numeric(t.prev(i)):
            return None  # "two plus two"
        start = nxt
    elif low[i] not in _DIGITS and low[i] not in _REPEAT:
        return None
    before = i - 1
    if (
        not plus
        and before >= 0
        and (_soft(t.gap(before)) or _comma(t.gap(before)))
        and (t.numeric(before) or low[before] in ("point", "oh", "nought", "naught"))
    ):
        return None
    items, commas, last = _items(t, start, numbers_first=plus)
    if not items:
        return None
    after = t.next(last, commas=True)
    if after is not None and (
        t.numeric(after) or low[after] in _ORDINAL_WORDS or low[after] == "point"
    ):
        return None
    readings = list(_readings(items, commas))
    kind = "phone"
    cue = None if plus else _code_cue(t, i)
    if plus:
        text = _international(readings)
    elif not cue and readings[0].digits[:2] == "00" and len(readings[0].digits) >= 10:
        text = _international([r.dial_out() for r in readings])  # "double oh four four ..."
    else:
        text = None
        for r in readings:
            found = _national(r, cue)
            if found is not None:
                text, kind = found
                break
        if low[i] == "oh" and kind == "code" and not cue:
            return None  # "Oh two three four people came": an interjection, perhaps
    if text is None:
        return None
    ext = _extension(t, last) if kind == "phone" else None
    if ext is not None:
        text = f"{text}{t.gap(last)}ext. {ext[1]}"
        last = ext[0]
    return _Match(i, last, text)
