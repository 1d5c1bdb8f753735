"""The rewrite loop: which rule runs at each trigger word, in order, and the passes over the
text until nothing changes."""

from __future__ import annotations

from dictate.writing.forms.amounts import _amount_rule, _negative, _one_unit
from dictate.writing.forms.digits import _digit_run
from dictate.writing.forms.lexicon import (
    _ANY,
    _CARDINAL_WORDS,
    _MONTHS,
    _ORDINAL_WORDS,
    _TRIGGERS,
)
from dictate.writing.forms.mixed import _slashed
from dictate.writing.forms.numbers import _Amount, _Int, _point_digits
from dictate.writing.forms.options import WrittenOptions
from dictate.writing.forms.times import (
    _MINUTE_WORDS,
    _PAST_MINUTES,
    _date_month,
    _date_of,
    _military,
    _time,
    _time_past,
    _year,
)
from dictate.writing.forms.tokens import _Match, _Text


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
    if word in ("oh", "zero"):
        m = _military(t, i)
        if m is not None:
            t.last_time = m.last
            return m
        if word == "oh":  # a digit run ("oh two oh seven ..."); a last "oh" starts none
            return None if t.next(i) is None else _digit_run(t, i)
    said = word in _PAST_MINUTES or t.low_at(t.next(i)) in _MINUTE_WORDS  # "one minute to one"
    m = _time_past(t, i) if said else None
    if m is None:
        m = _time(t, i)
    if m is not None:
        t.last_time = m.last
        return m
    return (
        (_date_of(t, i) if word in _ORDINAL_WORDS else None)
        or _slashed(t, i)
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
