"""Times and dates: clock times ("nine thirty a m", "half past three"), years and dates
("the fourth of July", "July 4, 2026")."""

from __future__ import annotations

from dictate.writing.forms.lexicon import (
    _ABBREVIATED,
    _AMBIGUOUS_MONTHS,
    _CHAIN_WORDS,
    _CURRENCY,
    _DENOM_MANY,
    _HOURS,
    _MONTHS,
    _PLURAL_TENS,
    _SUBUNIT,
    _TEENS,
    _TENS,
    _TIME_PREPS,
    _UNITS,
    _VERB_MONTHS,
    _WORDED,
    _YEAR_CUES,
)
from dictate.writing.forms.numbers import _Int, _parse_int
from dictate.writing.forms.tokens import _Match, _soft, _Text


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
    if word in ("oh", "o"):  # a recogniser writes the "oh" of "eight oh six" as the letter
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


# "It is eight forty five", "the time now is ...", "the deadline was ...": the subjects of a
# "be" that tell the time; "set the alarm for", "moved to": the words before "for" and "to".
_TELLING = frozenset("it time deadline curfew kickoff sunrise sunset checkout".split())
_IT_IS = frozenset({"it's", "it\u2019s"})
_SET_FOR = frozenset(
    "alarm alarms set scheduled booked moved pushed changed rescheduled postponed delayed "
    "brought reservation appointment".split()
)


def _time_context(t: _Text, i: int) -> bool:
    """Whether an hour at word ``i`` follows "at", "by", ..., "it is [now]", "the time is",
    "set the alarm for", "moved to" or a time just written."""
    p = t.prev(i)
    if p is None:
        return False
    low = t.low
    if low[p] in _TIME_PREPS:
        return True
    if low[p] in ("for", "to") and t.low_at(t.prev(p)) in _SET_FOR:
        return True
    if low[p] == "now" and t.prev(p) is not None:
        p = p - 1
    if low[p] in _IT_IS:
        return True
    if low[p] in ("is", "was"):
        s = t.prev(p)
        if t.low_at(s) == "now" and s is not None:
            s = t.prev(s)
        return t.low_at(s) in _TELLING
    return low[p] in _CHAIN_WORDS and p - 1 == t.last_time and p > 0 and _soft(t.gap(p - 1))


# A time is not followed by these: "at twelve fifteen dollars", "it is one thirty percent".
_NOT_AFTER_TIME = frozenset(
    {*_CURRENCY, *_SUBUNIT, *_ABBREVIATED, *_WORDED, "percent", "per", "point", "minutes",
     "hours", "seconds", "days", "weeks", "months", "years", "times", "people"}
)  # fmt: skip


def _military(t: _Text, i: int) -> _Match | None:
    """Military times from "oh" or "zero": "oh five hundred [hours]" -> "0500 [hours]", "at oh
    six thirty" -> "0630"; with no "at"... or "hours", only at the end of a phrase."""
    low = t.low
    j = t.next(i)
    if low[i] not in ("oh", "zero") or j is None or low[j] not in _UNITS:
        return None
    k = t.next(j)
    if k is None:
        return None
    if low[k] == "hundred":
        clock, last = f"0{_UNITS[low[j]]}00", k
    else:
        minutes = _minutes(t, k)
        if minutes is None:
            return None
        clock, last = f"0{_UNITS[low[j]]}{minutes[0]:02d}", minutes[1]
    after = t.next(last)
    if t.low_at(after) == "hours" and after is not None:
        return _Match(i, after, f"{clock} {t.words[after]}")
    if t.numeric(after) or not (_time_context(t, i) or (after is None and t.prev(i) is not None)):
        return None  # "Oh five hundred people came": an interjection
    return _Match(i, last, clock)


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
    if low[j] == "oclock":
        return _Match(i, j, f"{hour} o'clock")
    if low[j] == "o" and t.next(j) is not None and low[j + 1] == "clock":
        return _Match(i, j + 1, f"{hour} o'clock")
    if hour == 12 and low[j] in ("noon", "midnight"):
        return _Match(i, i, "12")  # "twelve noon": the word stays
    minutes = _minutes(t, j)
    last = i if minutes is None else minutes[1]
    # An hour and minutes said as a whole phrase ("Two thirty." as an answer) tell the time.
    alone = minutes is not None and i == 0 and last == t.n - 1
    context = alone or _time_context(t, i)
    if minutes is not None and t.numeric(t.next(last)):
        return None  # "nine thirty five": not a time
    if minutes is not None and t.low_at(t.next(last)) in _NOT_AFTER_TIME:
        return None  # "it is one thirty percent", "at twelve fifty dollars"
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


_MINUTE_WORDS = frozenset({"minute", "minutes", "min", "mins"})


def _counted_minutes(t: _Text, j: int) -> tuple[int, int | None] | None:
    """ "one minute", "three minutes", "twenty two mins" at word ``j`` (1 to 29, a minutes
    word said): the minutes and the word after it."""
    low = t.low
    value = _UNITS.get(low[j]) or _TEENS.get(low[j])
    last = j
    if value is None and low[j] == "twenty":
        k = t.next(j)
        if k is not None and low[k] in _UNITS:
            value, last = 20 + _UNITS[low[k]], k
        else:
            value = 20
    m = t.next(last)
    if value is None or not 0 < value < 30 or m is None or low[m] not in _MINUTE_WORDS:
        return None
    return value, t.next(m)


_CLOCK_FOLLOWERS = frozenset("tonight today tomorrow sharp exactly and then when".split())
_PAST_MINUTES = {"five": 5, "ten": 10, "twenty": 20, "quarter": 15, "half": 30}


def _time_past(t: _Text, i: int) -> _Match | None:
    """Clock phrases: "half past three", "quarter to five", "a quarter past six"."""
    low = t.low
    j: int | None = t.next(i) if low[i] in ("a", "an") else i
    if j is None or (j != i and low[j] != "quarter"):
        return None
    word = low[j]
    counted = _counted_minutes(t, j)
    if word not in _PAST_MINUTES and counted is None:
        return None
    said_minutes = counted is not None
    if counted is not None:
        minutes, k = counted  # "one minute to one", "three minutes past six"
    else:
        minutes = _PAST_MINUTES[word]
        k = t.next(j)
        if word == "twenty" and k is not None and low[k] == "five":
            minutes, j, k = 25, k, t.next(k)
        if k is not None and low[k] in _MINUTE_WORDS and word not in ("quarter", "half"):
            k, said_minutes = t.next(k), True
    if k is None or low[k] not in ("past", "after", "to", "till"):
        return None
    if (
        low[k] in ("to", "till")
        and word != "quarter"
        and not (said_minutes and (t.prev(i) is None or _meridiem(t, t.next(k) or k, "", True)))
        and not _time_context(t, i)
    ):
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
        return None  # with "minutes" said too: "it takes five minutes to ten people" """
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


_SCORES = frozenset("score scores scored won lost beat led leads".split())


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
    if before not in _YEAR_CUES and any(t.low[k] in _SCORES for k in range(max(0, i - 3), i)):
        return None  # "the score is twenty fifteen": two numbers, no year
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
