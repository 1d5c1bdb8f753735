"""User replacements: spoken words or phrases the user wants written their own way
("jay ess" -> "JS", "my email" -> "me@example.com").

A replacement matches its spoken phrase case-insensitively, as whole words (one or more,
separated by any spaces in the text), and writes its written form exactly as the user wrote it,
except that at the start of a sentence (the start of the text, or after ``.``, ``?`` or ``!``
and a space or newline) its first letter is capitalised, where it has no capital after its
first letter ("iPhone" stays as written). Marks around the phrase stay where
they are ("by jay ess." -> "by JS."). Where several phrases match at one place, the longest
wins; the text is scanned once, left to right, so no replacement is applied to what another
(or itself) wrote.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["Replacement", "apply_replacements", "parse_replacements"]

MAX_SPOKEN_CHARS = 200
"""A spoken phrase longer than this is refused by :func:`parse_replacements` (no one says it)."""
MAX_WRITTEN_CHARS = 2000
"""A written form longer than this is refused by :func:`parse_replacements`."""


@dataclass(frozen=True)
class Replacement:
    """One user replacement.

    Attributes:
        spoken: The words as recognised, matched case-insensitively as whole words.
        written: What is written instead, exactly as given.
    """

    spoken: str
    written: str


_SENTENCE_END = ".?!"


_SPACE = " "  # the trie's key for "one or more spaces between two words"


def _key(words: Sequence[str]) -> str:
    return " ".join(words).lower()


def _trie_pattern(node: dict[str, Any]) -> str:
    """A regular expression for a trie of phrases (``None`` marks the end of a phrase):
    alternatives grouped by their common prefix, so matching costs the length of the phrase,
    not the number of phrases; a longer phrase is tried before its prefix."""
    branches = []
    for char, child in node.items():
        if char is None:
            continue
        text = r"\s+" if char == _SPACE else re.escape(char)
        while len(child) == 1 and None not in child:  # a chain: no recursion per character
            ((char, child),) = child.items()
            text += r"\s+" if char == _SPACE else re.escape(char)
        branches.append(text + _trie_pattern(child))
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if None in node:
        return f"(?:{body})?"
    return body


@lru_cache(maxsize=32)
def _compile(
    replacements: tuple[Replacement, ...],
) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    """One pattern for all phrases, and the written form of each phrase by its lowercase
    words joined by single spaces. Of two entries with the same phrase (ignoring case and
    spacing) the first is used."""
    by_key: dict[str, str] = {}
    trie: dict[Any, Any] = {}
    for r in replacements:
        words = r.spoken.split()
        if not words or len(r.spoken) > MAX_SPOKEN_CHARS:
            continue  # an empty or blank spoken phrase matches nothing; nor does a huge one
        key = _key(words)
        if key in by_key:
            continue
        by_key[key] = r.written
        node = trie
        for index, word in enumerate(words):
            for char in (_SPACE if index else "") + word.lower():
                node = node.setdefault(char, {})
        node[None] = True
    if not by_key:
        return None, by_key
    # Whole words: no word character may touch either end of the match.
    pattern = re.compile(rf"(?<!\w)(?:{_trie_pattern(trie)})(?!\w)", re.IGNORECASE)
    return pattern, by_key


def _starts_sentence(text: str, start: int) -> bool:
    """Whether ``start`` is the start of the text or follows . ? ! and whitespace."""
    i = start - 1
    while i >= 0 and text[i].isspace():
        i -= 1
    if i < 0:
        return True
    return i < start - 1 and text[i] in _SENTENCE_END


def _capitalised(written: str) -> str:
    """``written`` with its first letter capitalised (the start of a sentence), unless a later
    letter is a capital: "iPhone" and "eBay" are a casing the user chose, and stay."""
    if any(c.isupper() for c in written[1:]):
        return written
    for index, char in enumerate(written):
        if char.isalpha():
            return written[:index] + char.upper() + written[index + 1 :]
    return written


def apply_replacements(text: str, replacements: Sequence[Replacement]) -> str:
    """Write the user's replacements into ``text``, in one pass.

    Args:
        text: Punctuated text.
        replacements: The user's replacements; blank spoken phrases and phrases longer than
            ``MAX_SPOKEN_CHARS`` are ignored, and of two with the same spoken phrase (ignoring
            case and spacing) the first is used.

    Returns:
        The text with every whole-word, case-insensitive match of a spoken phrase replaced by
        its written form (the longest phrase where several match at one place), capitalised
        at the start of a sentence (unless it has a capital after its first letter).
    """
    if not text or not replacements:
        return text
    pattern, by_key = _compile(tuple(replacements))
    if pattern is None:
        return text

    def replace(match: re.Match[str]) -> str:
        written = by_key.get(_key(match.group().split()))
        if written is None:  # a case the pattern matches but lower() does not (rare Unicode)
            return match.group()
        if _starts_sentence(text, match.start()):
            return _capitalised(written)
        return written

    return pattern.sub(replace, text)


def parse_replacements(obj: Any) -> tuple[list[Replacement], list[str]]:
    """Read replacements from settings: a list of ``{"spoken": ..., "written": ...}``.

    Never raises: every entry that cannot be used is left out with one message saying why.

    Args:
        obj: The value read from the settings file (anything JSON can hold; None is no
            replacements).

    Returns:
        The valid replacements in their order, and one problem message per bad entry (for
        the log or the settings dialog).
    """
    if obj is None:
        return [], []
    if isinstance(obj, (str, bytes)) or not isinstance(obj, Sequence):
        return [], [f"replacements must be a list, not {type(obj).__name__}"]
    valid: list[Replacement] = []
    problems: list[str] = []
    seen: dict[str, int] = {}
    for number, entry in enumerate(obj, 1):
        where = f"replacement {number}"
        if not isinstance(entry, Mapping):
            problems.append(
                f'{where}: expected {{"spoken": ..., "written": ...}}, got {_kind(entry)}'
            )
            continue
        spoken, written = entry.get("spoken"), entry.get("written")
        if not isinstance(spoken, str):
            problems.append(f'{where}: "spoken" must be text, not {_kind(spoken)}')
        elif not isinstance(written, str):
            problems.append(
                f'{where} ("{_short(spoken)}"): "written" must be text, not {_kind(written)}'
            )
        elif not spoken.split():
            problems.append(f'{where}: "spoken" is empty')
        elif len(spoken) > MAX_SPOKEN_CHARS:
            problems.append(f'{where}: "spoken" is longer than {MAX_SPOKEN_CHARS} characters')
        elif not written.strip():
            problems.append(f'{where} ("{_short(spoken)}"): "written" is empty')
        elif len(written) > MAX_WRITTEN_CHARS:
            problems.append(
                f'{where} ("{_short(spoken)}"): "written" is longer than {MAX_WRITTEN_CHARS} '
                "characters"
            )
        else:
            key = " ".join(spoken.split()).casefold()
            if key in seen:
                problems.append(
                    f'{where}: "{_short(spoken)}" is already replaced by replacement '
                    f"{seen[key]}; this one is ignored"
                )
                continue
            seen[key] = number
            valid.append(Replacement(spoken, written))
    return valid, problems


def _kind(value: Any) -> str:
    return "nothing" if value is None else type(value).__name__


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"
