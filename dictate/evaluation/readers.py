"""Read punctuation references: IWSLT word/tag TSV files and plain punctuated, cased text.

Both formats end up as a :class:`Reference`: lowercase words without punctuation (what the model
sees) and one tag per word naming the punctuation that follows it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from dictate.errors import InputError

TAGS = ("O", "COMMA", "PERIOD", "QUESTION")

# Higher rank wins when a token carries several marks, e.g. `why?!` or `wait...?`.
_RANK = {"O": 0, "COMMA": 1, "PERIOD": 2, "QUESTION": 3}

# Marks the IWSLT convention folds into the three classes; every other trailing character
# (quotes, brackets, music notes) carries no sentence-level meaning and is ignored.
_MARK_TAGS = {
    "?": "QUESTION",
    ".": "PERIOD",
    "!": "PERIOD",
    ";": "PERIOD",
    "\u2026": "PERIOD",  # the single-character ellipsis
    ",": "COMMA",
    ":": "COMMA",
    "-": "COMMA",
    "\u2013": "COMMA",  # en dash
    "\u2014": "COMMA",  # em dash
}

_ABBREVIATION_DOTS = re.compile("[.\u2026]+(?=[,:])")

_TSV_LINE = re.compile(r"\S+\t(?:" + "|".join(TAGS) + r")")

# How many leading non-blank lines read_reference looks at to recognise a TSV file.
_SNIFF_LINES = 5


@dataclass(frozen=True)
class Reference:
    """A reference transcript as the evaluation sees it.

    Attributes:
        words: Lowercase words with punctuation stripped, i.e. the model's input form.
        tags: One of :data:`TAGS` per word: the punctuation that follows the word.
        cased: The same words in their original casing (punctuation stripped), or ``None``
            when the source has no casing (IWSLT TSV).
    """

    words: list[str]
    tags: list[str]
    cased: list[str] | None


def read_iwslt_tsv(path: str | Path) -> Reference:
    """Read an IWSLT-style file with one ``word<TAB>TAG`` per line; blank lines are skipped.

    Args:
        path: The TSV file.

    Returns:
        The reference with lowercased words and ``cased`` set to ``None``.

    Raises:
        InputError: If the file cannot be read, is binary or empty, or a line is malformed or
            carries an unknown tag (the message names the line).
    """
    return _parse_iwslt_tsv(_read_text(path), str(path))


def parse_punctuated_text(text: str) -> Reference:
    """Turn punctuated, cased text into words and tags following the IWSLT convention.

    Tokens are split on whitespace; leading non-alphanumeric characters (quotes, brackets, ``♫``)
    are dropped and the trailing ones decide the tag: ``?`` is QUESTION; ``.`` ``!`` ``;`` and
    the ellipsis are PERIOD; ``,`` ``:`` ``-`` and en and em dashes are COMMA; quotes and brackets
    are ignored and the strongest mark wins, except that a dot directly before ``,`` or ``:``
    is taken as an abbreviation (``D.C.,`` is COMMA). A token with no letters or digits
    (``--``, ``♫``) is not a word: its mark upgrades the previous word's tag. Internal
    characters stay (``4,800``, ``I'm``, ``9/11``).

    Args:
        text: Plain text such as ``'I said "yes." Did you know?'``.

    Returns:
        The reference with lowercase ``words``, ``tags`` and the original-cased ``cased``.

    Raises:
        InputError: If the text contains no words.
    """
    return _parse_text(text, "the punctuated text")


def read_punctuated_text(path: str | Path) -> Reference:
    """Read a plain punctuated, cased text file (see :func:`parse_punctuated_text`).

    Args:
        path: The text file.

    Returns:
        The reference with lowercase ``words``, ``tags`` and the original-cased ``cased``.

    Raises:
        InputError: If the file cannot be read, is binary, empty or contains no words.
    """
    return _parse_text(_read_text(path), f"reference file {path}")


def read_reference(path: str | Path) -> Reference:
    """Read a reference in either format, telling them apart by their first non-blank lines.

    The file is read as IWSLT TSV when at least half (and at least one) of its first five
    non-blank lines look like ``word<TAB>TAG`` with a known tag, otherwise as punctuated text.
    A half-majority rather than all lines lets a TSV file with a bad line near the top still be
    read as TSV, so the user gets the line number instead of a silent misreading as text.

    Args:
        path: The reference file.

    Returns:
        The reference; ``cased`` is ``None`` for TSV input.

    Raises:
        InputError: If the file cannot be read, is binary or empty, or is malformed.
    """
    text = _read_text(path)
    head = [line.strip() for line in text.split("\n") if line.strip()][:_SNIFF_LINES]
    matches = sum(1 for line in head if _TSV_LINE.fullmatch(line))
    if matches and 2 * matches >= len(head):
        return _parse_iwslt_tsv(text, str(path))
    return _parse_text(text, f"reference file {path}")


def _read_text(path: str | Path) -> str:
    """Read a whole file as UTF-8 text, turning every failure into one actionable InputError."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"reference file {path} does not exist; check the path") from None
    except IsADirectoryError:
        raise InputError(
            f"reference file {path} is a directory; pass a .tsv or .txt file"
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot read reference file {path}: {exc.strerror or exc}; check its permissions"
        ) from None
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise InputError(
            f"reference file {path} looks binary (NUL byte on line {line}); "
            "pass a UTF-8 text or TSV file"
        )
    try:
        # utf-8-sig drops the byte-order mark some editors on Windows prepend.
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(
            f"reference file {path} is not UTF-8 text (invalid byte on line {line}); "
            "convert it to UTF-8"
        ) from None
    if not text.strip():
        raise InputError(f"reference file {path} is empty; pass a file with a reference text")
    return text


def _parse_iwslt_tsv(text: str, source: str) -> Reference:
    """Parse TSV text; ``source`` names the file in error messages."""
    words: list[str] = []
    tags: list[str] = []
    # Split on "\n" only: str.splitlines also breaks on form feeds and U+2028, which would make
    # the reported line numbers disagree with what an editor shows.
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        if raw.lstrip(" ").startswith("\t") and line in _RANK:
            # A tag whose word was lost (dev2012 has a few, where a lone symbol stood): like a
            # free-standing mark in text, it punctuates the word before it, upgrade only.
            if tags and _RANK[line] > _RANK[tags[-1]]:
                tags[-1] = line
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not fields[0] or any(ch.isspace() for ch in fields[0]):
            raise InputError(
                f"{source}: line {number}: expected 'word<TAB>TAG', got {line[:60]!r}; "
                "fix or remove the line"
            )
        word, tag = fields[0], fields[1].strip()
        if tag not in _RANK:
            raise InputError(
                f"{source}: line {number}: unknown tag {tag!r}; use one of {', '.join(TAGS)}"
            )
        words.append(word.lower())
        tags.append(tag)
    if not words:
        raise InputError(f"{source} contains no words; pass a file with word<TAB>TAG lines")
    return Reference(words=words, tags=tags, cased=None)


def _parse_text(text: str, source: str) -> Reference:
    """Parse punctuated text; ``source`` names the input in error messages."""
    cased: list[str] = []
    tags: list[str] = []
    for token in text.split():
        word, tag = _split_token(token)
        if word:
            cased.append(word)
            tags.append(tag)
        elif cased and _RANK[tag] > _RANK[tags[-1]]:
            # A free-standing `--` or `;` punctuates the word before it; upgrade only, so a
            # dash after `end.` does not turn the sentence end into a comma.
            tags[-1] = tag
    if not cased:
        raise InputError(f"{source} contains no words; pass text with at least one word")
    return Reference(words=[word.lower() for word in cased], tags=tags, cased=cased)


def _split_token(token: str) -> tuple[str, str]:
    """Split a whitespace token into its word (possibly empty) and the tag of its marks."""
    start = 0
    while start < len(token) and not token[start].isalnum():
        start += 1
    end = len(token)
    while end > start and not token[end - 1].isalnum():
        end -= 1
    # For a punctuation-only token start == end == len(token), so its marks sit in token[:start].
    marks = token[end:] if end > start else token
    # A sentence end is never followed by a comma, so in `D.C.,` or `St.,` the dot belongs to an
    # abbreviation and the comma is the real mark; otherwise "strongest wins" would say PERIOD.
    marks = _ABBREVIATION_DOTS.sub("", marks)
    tag = "O"
    for ch in marks:
        mark_tag = _MARK_TAGS.get(ch, "O")
        if _RANK[mark_tag] > _RANK[tag]:
            tag = mark_tag
    return token[start:end], tag
