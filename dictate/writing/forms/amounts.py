"""Rules for a parsed amount: money, percentages, units, fractions, ranges, negative numbers
and plain cardinals and ordinals."""

from __future__ import annotations

from dictate.writing.forms.lexicon import (
    _ABBREVIATED,
    _CARDINAL_WORDS,
    _CURRENCY,
    _DEGREE_SCALES,
    _DENOM_MANY,
    _DENOM_ONE,
    _HOUR_UNITS,
    _MONTHS,
    _ORD_BIG,
    _PER_HOUR,
    _POSSESSIVES,
    _POWERS,
    _SUBUNIT,
    _TEENS,
    _TENS,
    _WEIGHT_AFTER,
    _WEIGHT_CUES,
    _WORDED,
)
from dictate.writing.forms.mixed import _feet_inches, _label_range, _labelled
from dictate.writing.forms.numbers import (
    _Amount,
    _group,
    _Int,
    _number,
    _ordinal,
    _parse_amount,
    _parse_int,
)
from dictate.writing.forms.options import WrittenOptions
from dictate.writing.forms.tokens import _Match, _Text


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
    if word in ("foot", "feet") and not (a.decimals or a.fraction or a.scale):
        m = _feet_inches(t, a.first, number, a.integer, k)
        if m is not None:
            return m
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
    # "page five", "chapters three and four": a small number after a label is in digits
    labelled = a.small and (
        _labelled(t, a.first, a.last)
        or (p is not None and low[p] in ("and", "to", "or", "through", "of") and _label_range(t, p))
    )
    if a.small and options.small_numbers_as_words and not (range_end or labelled):
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
