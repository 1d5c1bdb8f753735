"""Text helpers shared by the buffer, the journal and the view: context fitting, line breaks,
and the one conversion between Qt's UTF-16 positions and Python's code-point positions."""

from __future__ import annotations

import unicodedata

SENTENCE_END = (".", "?", "!", ":")


def normalize_newlines(text: str) -> str:
    """Line breaks as ``\\n`` only: what a Qt document stores as a block break (``\\r\\n``,
    ``\\r`` and U+2029 all become one) comes back as ``\\n``, so buffer and view agree."""
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.replace("\u2029", "\n")


CLOSING_MARKS = ",.;:?!)]}\u201d\u2019\u2026"
"""Marks that attach to the word before them: dictated text that begins with one (a mark said
after a pause committed the words) gets no space before it."""


def takes_mark(before: str) -> bool:
    """Whether a mark said or decided after words a pause committed can go right after
    ``before`` (what precedes it): after a word or a symbol, never after a space, nothing, or a
    mark already there ("9 a.m." + "." would double it)."""
    last = before[-1:]
    return bool(last) and not last.isspace() and last not in CLOSING_MARKS


def separator(text: str) -> str:
    """What goes between text already written and dictated ``text`` appended to it in plain
    output: a space, or nothing before a mark said after a pause."""
    return "" if text[:1] and text[0] in CLOSING_MARKS else " "


def fit_to_context(text: str, before: str, after: str, *, keep_case: bool = False) -> str:
    """Adjust dictated ``text`` for insertion between ``before`` and ``after``.

    A space is added where it joins a word, and the first letter is capitalised only where a
    sentence begins (document start, after a line break or a sentence end); mid-sentence the
    punctuator's sentence-initial capital is lowered unless the word is "I" or all capitals.
    ``keep_case``: the text goes on with a sentence committed open, and the punctuator already
    cased its first word as mid-sentence ("Paris" stays). Text that begins with a closing mark
    is attached to the word before it.
    """
    if not text:
        return text
    if text[0] in CLOSING_MARKS and before and not before[-1].isspace():
        return text + (" " if after and not after[0].isspace() else "")
    stripped = before.rstrip(" \t")
    at_sentence_start = not stripped or stripped.endswith(("\n", *SENTENCE_END))
    first = text.split(" ", 1)[0]
    if at_sentence_start:
        text = text[0].upper() + text[1:]
    elif (
        not keep_case
        and first[:1].isupper()
        and not first.isupper()
        and first not in ("I", "I'm", "I'll", "I've", "I'd")
    ):
        text = text[0].lower() + text[1:]
    if before and not before[-1].isspace():
        text = " " + text
    if after and not after[0].isspace():
        text = text + " "
    return text


def utf16_len(text: str) -> int:
    """How many UTF-16 units ``text`` takes (what Qt counts)."""
    if text.isascii():
        return len(text)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def to_utf16(text: str, pos: int) -> int:
    """The UTF-16 position of code-point position ``pos`` in ``text``."""
    return utf16_len(text[:pos])


def from_utf16(text: str, pos16: int) -> int:
    """The code-point position of UTF-16 position ``pos16`` in ``text``; a position inside a
    surrogate pair (Qt never puts a cursor there) maps to the character's end."""
    if pos16 <= 0:
        return 0
    if text.isascii():
        return min(pos16, len(text))
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * pos16]
    return len(units.decode("utf-16-le", "surrogatepass"))


def diff(old: str, new: str, hint: int | None = None) -> tuple[int, str, str]:
    """The single replaced span that turns ``old`` into ``new``: (position, removed, inserted).

    ``hint`` (where the change began, if known) breaks ties in repeated text: typing "l" into
    "he|llo" is an insertion at 2, not at 4.
    """
    limit = min(len(old), len(new))
    if hint is not None:
        limit = min(limit, max(0, hint))
    # Binary searches over slice comparisons: linear work done in C, not a Python loop per
    # character (a keystroke in a long document stays fast).
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[:mid] == new[:mid]:
            lo = mid
        else:
            hi = mid - 1
    start = lo
    lo, hi = 0, min(len(old), len(new)) - start
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if old[len(old) - mid :] == new[len(new) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return start, old[start : len(old) - lo], new[start : len(new) - lo]


def _in_word(text: str, i: int) -> bool:
    """Whether character ``i`` belongs to a word: a letter, digit or mark, or an apostrophe or
    hyphen between two of those ("don't", "well-known")."""
    char = text[i]
    if char.isalnum() or unicodedata.category(char).startswith("M"):
        return True
    return (
        char in "'\u2019-"
        and 0 < i < len(text) - 1
        and text[i - 1].isalnum()
        and text[i + 1].isalnum()
    )


def joins_previous(char: str) -> bool:
    """Whether ``char`` belongs to the user-perceived character before it: a combining mark, a
    zero-width joiner, a variation selector, a skin-tone modifier or a flag's tag character.
    (The character after a zero-width joiner joins too; callers see that from the joiner.)"""
    code = ord(char)
    return (
        unicodedata.category(char).startswith("M")
        or char in "\u200d\ufe0e\ufe0f"
        or 0x1F3FB <= code <= 0x1F3FF
        or 0xE0020 <= code <= 0xE007F
    )


def _extends(text: str, i: int) -> bool:
    """Whether character ``i`` (``i`` > 0) is part of the character before it."""
    return joins_previous(text[i]) or text[i - 1] == "\u200d"


def word_start(text: str, pos: int) -> int:
    """Where the word that ends at ``pos`` begins ("one typ|" -> "one |typ"); ``pos`` itself
    after a space or punctuation. An apostrophe or hyphen just typed after a letter ("don'|")
    counts as part of the word."""
    while pos > 0:
        i = pos - 1
        inside = (
            _in_word(text, i)
            or (i > 0 and _extends(text, i))
            or (text[i] in "'\u2019-" and i > 0 and text[i - 1].isalnum())  # "don'|" typed
        )
        if not inside:
            break
        pos = i
    return pos


def word_end(text: str, pos: int) -> int:
    """``pos``, or the end of the word (or character) it is inside ("caf|é" -> "café|"):
    where dictation may go without splitting a word. Positions between words, and at a word's
    start or end, stay."""
    while 0 < pos < len(text) and _extends(text, pos):
        pos += 1
    if not 0 < pos < len(text) or not (_in_word(text, pos - 1) and _in_word(text, pos)):
        return pos
    while pos < len(text) and (_in_word(text, pos) or _extends(text, pos)):
        pos += 1
    return pos
