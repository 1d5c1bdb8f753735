"""Number phrases: whole numbers (cardinal and ordinal) with decimals, mixed fractions and
scale words, and how they are written in digits (runs of spoken digits are in ``digits``)."""

from __future__ import annotations

from dictate.writing.forms.lexicon import (
    _BIG,
    _DENOM_MANY,
    _DENOM_ONE,
    _DIGITS,
    _MIXED_DECIMALS,
    _ORD_BIG,
    _ORD_TEENS,
    _ORD_TENS,
    _ORD_UNITS,
    _TEENS,
    _TENS,
    _UNITS,
)
from dictate.writing.forms.tokens import _Text

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
