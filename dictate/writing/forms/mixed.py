"""Mixed forms: numbers after labels ("chapter eleven verse three" -> "chapter 11 verse 3"),
heights ("six foot two" -> "6 ft 2 in") and the slashed pairs "24/7" and "20/20"."""

from __future__ import annotations

from dictate.writing.forms.lexicon import _ABBREVIATED, _CURRENCY, _SUBUNIT, _WORDED
from dictate.writing.forms.numbers import _parse_int
from dictate.writing.forms.tokens import _Match, _Text

# Words that name a numbered part or place: the number after one is written in digits even
# when it is small ("page 5", "season 1 episode 4"). Left out on purpose: "day", "week",
# "year" ("from day one"), "part" ("the best part one can hope for"), "floor", "class".
_LABELS = frozenset(
    """chapter chapters verse verses page pages step steps room rooms section sections volume
    volumes season seasons episode episodes level levels figure figures fig table tables
    exercise exercises line lines number numbers act acts scene scenes question questions
    item items grade grades lesson lessons paragraph paragraphs article articles appendix
    track tracks gate gates platform platforms slide slides row rows seat seats aisle lane
    terminal bay channel stage phase round game size unit units psalm version option""".split()
)
# After "one", a label's number is "1" only before one of these or at the end of a phrase:
# "season one episode four", "step one is", but "the line one must not cross", "number one fan";
# after the labels of books and shows also before "of" ("chapter one of the book").
_AFTER_ONE = frozenset("and or to through is was will has covers shows starts begins ends".split())
_PARTS = frozenset("chapter volume season episode act scene section lesson verse".split())
# A small number after a label that is a count, not a name: "in line two hours".
_COUNTED = frozenset(
    """times more hours minutes seconds days weeks months years people others other ways
    steps pages""".split()
)


def _labelled(t: _Text, first: int, last: int) -> bool:
    """Whether the small number at words ``first..last`` names a part after a label."""
    p = t.prev(first)
    if p is None or t.low[p] not in _LABELS:
        return False
    k = t.next(last)
    follower = t.low_at(k)
    if follower in _COUNTED:
        return False
    if t.low[first] == "one":
        if follower == "of":
            return t.low[p] in _PARTS
        return k is None or follower in _LABELS or follower in _AFTER_ONE
    return True


def _label_range(t: _Text, p: int) -> bool:
    """Whether the "and" (to, or, through, of) at word ``p`` follows a labelled number just
    written in digits: "chapters 3 and 4", "page 2 of 3"."""
    q = t.prev(p)
    if q is None or q != t.last_digits:
        return False
    label = t.prev(q)
    return label is not None and t.low[label] in _LABELS


def _feet_inches(t: _Text, first: int, number: str, feet: int, k: int) -> _Match | None:
    """Heights and lengths in feet and inches, from "foot"/"feet" at word ``k``: "six foot
    two [inches]" -> "6 ft 2 in"; without "inches", only up to eight feet (a height)."""
    j = t.next(k)
    if j is None or t.gap(k) == "-":
        return None
    n = _parse_int(t, j, article=False)
    if n is None or n.ordinal or not 0 <= n.value <= 11:
        return None
    after = t.next(n.last)
    word = t.low_at(after)
    if word in ("inch", "inches") and after is not None:
        return _Match(first, after, f"{number} ft {n.value} in")
    if (
        feet > 8
        or t.numeric(after)
        or word in ("and", "point", "by", "of", "or", "to", "foot", "feet")
        or word in _CURRENCY
        or word in _SUBUNIT
        or word in _ABBREVIATED
        or word in _WORDED
        or word in _COUNTED
    ):
        return None
    return _Match(first, n.last, f"{number} ft {n.value} in")


def _slashed(t: _Text, i: int) -> _Match | None:
    """ "twenty four seven" -> "24/7"; "twenty twenty vision", "hindsight is twenty twenty" ->
    "20/20"."""
    low = t.low
    j = t.next(i)
    if low[i] != "twenty" or j is None or t.numeric(t.prev(i)):
        return None
    k = t.next(j)
    if low[j] == "four" and t.low_at(k) == "seven" and k is not None:
        if t.numeric(t.next(k)):
            return None
        return _Match(i, k, "24/7")
    if low[j] != "twenty":
        return None
    if t.numeric(k):
        return None
    p = t.prev(i)
    hindsight = p is not None and t.low[p] in ("is", "was") and t.low_at(t.prev(p)) == "hindsight"
    if t.low_at(k) == "vision" or hindsight:
        return _Match(i, j, "20/20")
    return None
