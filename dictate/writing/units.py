"""Written units: runs of spoken words that are written as one word.

* Spelled letters said apart become one acronym: "u s" -> "US", "f b i" -> "FBI", "a i" ->
  "AI", "e s t" -> "EST" (house style: capitals, no dots); "i e" and "e g" are "i.e." and
  "e.g."; "a m" / "p m" after a number or "o'clock" are "a.m." / "p.m.". Known acronyms heard as
  one word are written in capitals ("nasa" -> "NASA", :data:`ACRONYMS`).
* E-mail and web addresses: "jane dot doe at gmail dot com" -> "jane.doe@gmail.com", "w w w dot
  example dot org slash news" -> "www.example.org/news", "example dot co dot uk" ->
  "example.co.uk"; "dash"/"hyphen" and "underscore" inside them are "-" and "_". An address
  ends in a known top-level domain (:data:`TOP_LEVEL_DOMAINS`), is written in lower case and
  takes no punctuation or capital inside.

:class:`~dictate.text.stage.TextStage` joins them *before* the punctuation model sees the words
(:func:`join_words`), so the model cannot end a sentence inside a time ("three p M. On") or put a
comma between letters ("the U, S"), and its casing is kept out of them (they are fed with the
forced tag :data:`~dictate.punctuation.labels.VERBATIM`). :func:`join_in_text` does the same in
text that was punctuated without it (a unit said across two segments, or a table case), and is
part of :func:`dictate.writing.forms.written`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

TOP_LEVEL_DOMAINS = frozenset(
    "com org net edu gov mil int io co uk de fr es nl ch se dk fi ie pt pl cz ru ua jp cn kr "
    "au nz ca mx br ar za eu info biz ai app dev tv ly gg xyz online site tech shop blog "
    "store cloud".split()
)
"""Top-level domains an address may end in (said as a word: "dot com", "dot co dot uk").
Those that are English words are left out ("in", "it", "me", "us", "no", "at", "be",
"news"): "our pale blue dot in the cosmos" is no address (it was, on the TED dev set)."""

ACRONYMS = frozenset(
    "fbi cia nsa nasa nato usa bbc cnn nba nfl nhl nhs irs fda cdc dna rna hiv ceo cfo cto "
    "pdf url urls html css usb gps dvd faq gdp ufo vip atm diy unesco unicef covid json api "
    "apis sql ios cpu gpu ssd lcd nyc lgbt".split()
)
"""Acronyms a recogniser may give as one word that is never an ordinary English word ("led" and
"ram" were taken out: "which led to", the name Ram, in the TED dev set)."""

_SEPARATORS = {"dot": ".", "dash": "-", "hyphen": "-", "underscore": "_"}
_LETTER = re.compile(r"^[a-z]$")
_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$")
_A_ACRONYMS = frozenset("ai abc api apis atm aws aol ap ac asap au awol".split())
"""Acronyms starting with "a": in any other run of letters a first "a" is the article."""
_AFTER_I = frozenset(
    "am was do did don't didn't think thought know knew mean meant guess started have had "
    "haven't hadn't wasn't 'm 've 'd got get went said want wanted remember feel felt".split()
)
"""Words that follow the pronoun "I" and hardly ever "AI": after them "a i" is a hesitation
("as a i do n't know" in the TED dev set, 3 of its 4 "a i")."""
_SPECIAL: dict[tuple[str, ...], str] = {("i", "e"): "i.e.", ("e", "g"): "e.g."}
_CLOCK: dict[tuple[str, ...], str] = {("a", "m"): "am", ("p", "m"): "pm"}
_NUMBER_WORDS = frozenset(
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
    "sixteen seventeen eighteen nineteen twenty thirty forty fifty oh o'clock hundred".split()
)
_NOT_LOCAL = frozenset(
    "a an the me us him her them it you i we they he she is are was were be been look looking "
    "go went visit visiting find found online available here there this that site website "
    "page home us shop buy read write email mail address contact reach him".split()
)
"""Words before "at" that are not the name of a mailbox ("have a look at example dot com")."""


@dataclass(frozen=True)
class Unit:
    """``words[start:end]`` are written ``text``."""

    start: int
    end: int
    text: str


def find_units(words: Sequence[str], addresses: bool = True) -> list[Unit]:
    """The units in ``words`` (lower case, no marks), in order and not overlapping.

    Args:
        words: Words as spoken.
        addresses: Find e-mail and web addresses too.
    """
    low = [w.lower() for w in words]
    units: list[Unit] = []
    i = 0
    fresh = True  # no letter just before ``i`` that a run of letters could have started at
    while i < len(low):
        unit = (
            (_address(low, i) if addresses else None)
            or (_letters(low, i) if fresh else None)
            or _acronym(low, i)
        )
        if unit is None:
            fresh = not _LETTER.match(low[i])
            i += 1
            continue
        units.append(unit)
        i, fresh = unit.end, True
    return units


def _acronym(low: list[str], i: int) -> Unit | None:
    return Unit(i, i + 1, low[i].upper()) if low[i] in ACRONYMS else None


def _letters(low: list[str], i: int) -> Unit | None:
    """The run of letters said apart that starts at ``i`` (at least two), as one unit."""
    end = i
    while end < len(low) and _LETTER.match(low[end]):
        end += 1
    run = tuple(low[i:end])
    if len(run) < 2:
        return None
    if run[:2] in _CLOCK:
        before = low[i - 1] if i else ""
        if before in _NUMBER_WORDS or before.isdigit() or before.endswith("teen"):
            return Unit(i, i + 2, _CLOCK[run[:2]])  # a zone may follow: "p m e s t"
    if run in _SPECIAL:
        return Unit(i, end, _SPECIAL[run])
    if run == ("a", "i") and end < len(low) and low[end] in _AFTER_I:
        return None  # "as a, I don't know", "yeah a I was going to": a hesitation, not AI
    if "".join(run) in _A_ACRONYMS:
        return Unit(i, end, "".join(run).upper())
    if run[0] == "a":  # the article before letters: "a p d f", "a t shirt"
        rest = run[1:]
        if len(rest) < 2 or rest[0] == "a" or set(rest) <= {"a", "i"}:
            return None
        return Unit(i + 1, end, "".join(rest).upper())
    if set(run) <= {"a", "i"}:
        return None  # "did i a ..."
    return Unit(i, end, "".join(run).upper())


def _www(low: list[str], i: int) -> int:
    """How many words from ``i`` say "www" ("w w w", "double u double u double u", "triple
    w", "www"); 0 if they do not."""
    if low[i : i + 3] == ["w", "w", "w"]:
        return 3
    if low[i : i + 6] == ["double", "u"] * 3:
        return 6
    if low[i : i + 2] == ["triple", "w"]:
        return 2
    return 1 if i < len(low) and low[i] == "www" else 0


def _chain(low: list[str], i: int) -> list[tuple[str, int]]:
    """Labels joined by separators from ``i``: each written piece and the index after it."""
    label = _label_at(low, i)
    if label is None:
        return []
    pieces = [label]
    j = label[1]
    while j + 1 < len(low) and low[j] in _SEPARATORS:
        label = _label_at(low, j + 1)
        if label is None:
            break
        pieces += [(_SEPARATORS[low[j]], j + 1), label]
        j = label[1]
    return pieces


def _label_at(low: list[str], i: int) -> tuple[str, int] | None:
    """The label of an address at ``i``: a word, or letters said apart ("i b m" dot com)."""
    if i >= len(low) or not _is_label(low[i]):
        return None
    end = i
    while end < len(low) and _LETTER.match(low[end]):
        end += 1
    if end - i >= 2:
        return "".join(low[i:end]), end
    return low[i], i + 1


def _is_label(word: str) -> bool:
    return bool(_LABEL.match(word)) and word not in _SEPARATORS and word not in ("at", "slash")


def _domain(low: list[str], i: int) -> tuple[str, int] | None:
    """A domain from ``i`` ("example dot co dot uk", "w w w dot example dot org"), with any
    path after it ("slash news"): its text and end."""
    www = _www(low, i)
    if www:
        rest = _chain(low, i + www - 1)  # the last word of "www" stands for it in the chain
        pieces = [("www", i + www), *rest[1:]] if rest else []
    else:
        pieces = _chain(low, i)
    # The last dot and top-level domain in the chain end the domain ("example dot com dash
    # ..." is not an address past "com").
    last = None
    for k in range(1, len(pieces) - 1, 2):
        if pieces[k][0] == "." and pieces[k + 1][0] in TOP_LEVEL_DOMAINS:
            last = k + 1
    if last is None:
        return None
    text = "".join(piece for piece, _ in pieces[: last + 1])
    end = pieces[last][1]
    while end + 1 < len(low) and low[end] == "slash":
        path = _chain(low, end + 1)
        if not path:
            break
        text += "/" + "".join(piece for piece, _ in path)
        end = path[-1][1]
    return text, end


def _address(low: list[str], i: int) -> Unit | None:
    """An e-mail address whose mailbox starts at ``i``, or a web address starting at ``i``."""
    local = _chain(low, i)
    at = local[-1][1] if local else i
    mailbox = "".join(piece for piece, _ in local)
    if local and at < len(low) and low[at] == "at" and mailbox not in _NOT_LOCAL:
        domain = _domain(low, at + 1)
        if domain is not None:
            return Unit(i, domain[1], mailbox + "@" + domain[0])
    domain = _domain(low, i)
    if domain is not None:
        return Unit(i, domain[1], domain[0])
    return None


def join_words(words: Sequence[str], addresses: bool = True) -> tuple[list[str], list[Unit]]:
    """``words`` with every unit made one word, and the units (indexed in the result)."""
    found = find_units(words, addresses)
    if not found:
        return list(words), []
    out: list[str] = []
    placed: list[Unit] = []
    at = 0
    for unit in found:
        out += words[at : unit.start]
        placed.append(Unit(len(out), len(out) + 1, unit.text))
        out.append(unit.text)
        at = unit.end
    out += words[at:]
    return out, placed


_MAYBE = re.compile(
    r"(?i)\b[a-z]\b\.? +\b[a-z]\b|\bdot\b|\b(?:"
    + "|".join(sorted(ACRONYMS, key=len, reverse=True))
    + r")\b"
)
"""Text that may hold a unit: two letters said apart, "dot", or a known acronym."""
_TOKEN = re.compile("^([\"'(\\[\u201c\u2018]*)(.*?)([.,;:!?\"')\\]\u201d\u2019]*)$")


def join_in_text(text: str, addresses: bool = True) -> str:
    """The units in punctuated, cased text joined (:func:`find_units`); a unit's words must
    have no mark between them (a letter's own dot aside: "U. K." is "UK"), and the marks after
    its last word stay after it. Spaces other than between a unit's words are kept."""
    if not _MAYBE.search(text):
        return text  # the common case, found at a fraction of the cost
    parts = re.split(r"(\s+)", text)
    tokens = parts[0::2]
    if len(tokens) < 2 and not (tokens and tokens[0].lower().strip(".,;:!?") in ACRONYMS):
        return text
    split = [_TOKEN.match(t) for t in tokens]
    cores = [m.group(2).lower() if m else t.lower() for m, t in zip(split, tokens, strict=True)]
    found = find_units(cores, addresses)
    if not found:
        return text
    out: list[str] = []
    at = 0
    for unit in found:
        inner = range(unit.start, unit.end)
        if not all(_joinable(split[k], k == unit.start, k == unit.end - 1) for k in inner):
            continue
        if any(parts[2 * k + 1].strip(" ") for k in range(unit.start, unit.end - 1)):
            continue  # a line break (or a tab) between them: not one unit
        out += [tokens[k] + parts[2 * k + 1] for k in range(at, unit.start)]
        first, last = split[unit.start], split[unit.end - 1]
        assert first is not None and last is not None
        tail = last.group(3)
        if unit.text.endswith(".") and tail.startswith("."):
            tail = tail[1:]  # "p.m." at a sentence end takes no second dot
        out.append(first.group(1) + unit.text + tail)
        if 2 * (unit.end - 1) + 1 < len(parts):
            out.append(parts[2 * (unit.end - 1) + 1])
        at = unit.end
    out += [
        tokens[k] + (parts[2 * k + 1] if 2 * k + 1 < len(parts) else "")
        for k in range(at, len(tokens))
    ]
    return "".join(out)


def _joinable(match: re.Match[str] | None, first: bool, last: bool) -> bool:
    if match is None:
        return False
    lead, core, tail = match.groups()
    if lead and not first:
        return False
    # Inside a unit only a letter's own dot may follow a word ("U. K.").
    return last or not tail or (tail == "." and bool(_LETTER.match(core.lower())))
