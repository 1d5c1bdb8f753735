"""Correcting by voice: what "select ...", "cap that", "insert before ...", "go back", "delete
last word" and the rest act on, found in a :class:`DictationBuffer`'s text, and carried out
with its voice primitives (each change one undoable step, journaled).

Words are matched case-insensitively and whole, ignoring punctuation between them: "select
red car" finds "Red, car" but not "bored cars". The nearest match that ends at or before the
dictation point wins; failing that, the first one after it.
"""

from __future__ import annotations

import re

from dictate.editing.buffer import DictationBuffer
from dictate.editing.text import word_start

_WORD = re.compile(r"[\w'\u2019-]+")
_SENTENCE_BREAK = re.compile(r"(?<=[.?!])[\")\u201d\u2019]*\s+|\n")


def find_words(text: str, words: str, point: int) -> tuple[int, int] | None:
    """The span of ``words`` in ``text`` nearest before ``point``, else the first after it."""
    wanted = [w.lower() for w in _WORD.findall(words)]
    if not wanted:
        return None
    tokens = list(_WORD.finditer(text))
    spans = [
        (tokens[i].start(), tokens[i + len(wanted) - 1].end())
        for i in range(len(tokens) - len(wanted) + 1)
        if [t.group().lower() for t in tokens[i : i + len(wanted)]] == wanted
    ]
    before = [span for span in spans if span[1] <= point]
    if before:
        return before[-1]
    after = [span for span in spans if span[0] >= point]
    return after[0] if after else (spans[-1] if spans else None)


def select(buffer: DictationBuffer, words: str) -> tuple[int, int] | None:
    """ "Select WORDS" (``words`` "": the last dictated sentence); the span, or None if there
    is nothing to select."""
    span = find_words(buffer.text, words, buffer.point) if words else last_sentence_span(buffer)
    if span is None:
        return None
    buffer.voice_select(*span)
    return span


def last_sentence_span(buffer: DictationBuffer) -> tuple[int, int] | None:
    span = buffer.last_dictated
    if span is None:
        return None
    start, end = span
    text = buffer.text[start:end]
    lead = len(text) - len(text.lstrip())
    trail = len(text) - len(text.rstrip())
    return (start + lead, end - trail) if end - trail > start + lead else None


def recase(buffer: DictationBuffer, style: str) -> tuple[int, int] | None:
    """ "Cap that" ("cap": each word capitalised), "all caps that" ("upper"), "no caps that"
    ("lower"): the selection, else the last dictated sentence; it stays selected."""
    span = buffer.selection or last_sentence_span(buffer)
    if span is None:
        return None
    start, end = span
    old = buffer.text[start:end]
    new = recased(old, style)
    if new != old:
        buffer.voice_edit(start, end, new, select=True)
    else:
        buffer.voice_select(start, end)
    return span


def recased(text: str, style: str) -> str:
    """``text`` in ``style``, character for character (a character whose other case is longer,
    "ß" -> "SS", stays as it is, so the text keeps its length)."""
    if style not in ("cap", "upper", "lower"):
        raise ValueError(f"style must be cap, upper or lower, not {style!r}")
    change = str.lower if style == "lower" else str.upper
    out = []
    for i, char in enumerate(text):
        word_begins = i == 0 or not (text[i - 1].isalnum() or text[i - 1] in "'\u2019")
        other = change(char) if style != "cap" or word_begins else char
        out.append(other if len(other) == 1 else char)
    return "".join(out)


def replace_selection(buffer: DictationBuffer, text: str) -> tuple[int, int] | None:
    """An alternative chosen for the selection ("choose N"): it takes the selection's place,
    with a capital where the selection began with one, and stays selected."""
    if buffer.selection is None or not text:
        return None
    start, end = buffer.selection
    if buffer.text[start : start + 1].isupper() and text[:1].islower():
        text = text[:1].upper() + text[1:]
    buffer.voice_edit(start, end, text, select=True)
    return start, start + len(text)


def delete_selection(buffer: DictationBuffer) -> bool:
    """ "Delete that" (or "scratch that") with a voice selection: the selected text goes, with
    one of the spaces around it."""
    if buffer.selection is None:
        return False
    start, end = buffer.selection
    text = buffer.text
    if end < len(text) and text[end] == " " and (start == 0 or text[start - 1] in " \n"):
        end += 1
    elif start > 0 and text[start - 1] == " ":
        start -= 1
    buffer.voice_edit(start, end, "")
    return True


def insert_at(buffer: DictationBuffer, words: str, after: bool) -> bool:
    """ "Insert before/after WORDS": the dictation point goes there; False if not found."""
    span = find_words(buffer.text, words, buffer.point)
    if span is None:
        return False
    buffer.voice_move(span[1] if after else span[0])
    return True


def go(buffer: DictationBuffer, where: str) -> bool:
    """ "Go to end", "go to start", "go back"; False where there is nowhere to go back to."""
    if where == "end":
        buffer.voice_move(len(buffer.text), inside=False)
    elif where == "start":
        buffer.voice_move(0, inside=bool(buffer.text))  # an empty text has no sentence yet
    elif where == "back":
        if buffer.back is None:
            return False
        buffer.voice_move(min(buffer.back, len(buffer.text)), inside=buffer.back < len(buffer.text))
    else:
        raise ValueError(f"where must be end, start or back, not {where!r}")
    return True


def delete_last(buffer: DictationBuffer, unit: str) -> str:
    """ "Delete last word" ("word") or "delete last sentence" ("sentence") before the
    dictation point; the text removed ("" if nothing was)."""
    text, point = buffer.text, buffer.point
    end = point
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if unit == "word":
        start = end
        while start > 0 and not text[start - 1].isalnum() and text[start - 1] not in " \n":
            start -= 1  # the mark after the word goes with it
        start = word_start(text, start)
    elif unit == "sentence":
        body = text[:end]
        inner = body.rstrip('.?!\u201d\u2019)"')
        breaks = list(_SENTENCE_BREAK.finditer(inner))
        start = breaks[-1].end() if breaks else 0
    else:
        raise ValueError(f"unit must be word or sentence, not {unit!r}")
    if start >= end:
        return ""
    while start > 0 and text[start - 1] == " ":  # no space left dangling before the point
        start -= 1
    removed = text[start:point]
    buffer.voice_edit(start, point, "")
    return removed
