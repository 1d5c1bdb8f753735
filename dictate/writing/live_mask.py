"""Obscenities and slurs in the live words, masked until the settled words confirm them.

The live (greyed) words are the first pass's: PocketSphinx writes a word its language model
knows where the speaker said something else, and a review saw an obscenity on the screen for
seconds ("good ol' fuck evil") over a classic sentence whose settled words were right. On a
shared screen or in a classroom that is the app's fault. So a live word in the list
(``assets/masked-words.txt``; the user's own copy beside the settings replaces it: docs/window.md)
is shown as its first letter and a dot for each other letter ("f•••"); the settled words, which
replace the live ones when the segment closes, are never masked, so a word the speaker did say
appears as said once Whisper has heard it too.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path

log = logging.getLogger("dictate.ui")

FILE_NAME = "masked-words.txt"
DOT = "\u2022"
_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)*")


def user_list_path() -> Path:
    """The user's list, beside the settings file (used instead of the shipped one if it
    exists)."""
    from dictate.config import settings_path

    return settings_path().parent / FILE_NAME


def read_list(path: Path) -> frozenset[str]:
    """The words of a list file: one a line, ``#`` starts a comment, compared in lower case."""
    words = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        word = line.split("#", 1)[0].strip().lower()
        if word:
            words.add(word)
    return frozenset(words)


class LiveMask:
    """Masks the listed words of live text; the list is read again when the user's file
    changes (a stat a call: the live words change a few times a second)."""

    def __init__(self, user_path: Path | None = None) -> None:
        self.user_path = user_path
        self._seen: tuple[float, int] | None = None
        self._words: frozenset[str] | None = None

    def words(self) -> frozenset[str]:
        """The list now: the user's file where it exists and can be read, else the shipped."""
        path = self.user_path or user_list_path()
        try:
            stat = path.stat()
            seen: tuple[float, int] | None = (stat.st_mtime, stat.st_size)
        except OSError:
            seen = None
        if self._words is None or seen != self._seen:
            self._seen, self._words = seen, self._read(path if seen else None)
        return self._words

    @staticmethod
    def _read(path: Path | None) -> frozenset[str]:
        from dictate.paths import asset_path

        if path is not None:
            try:
                return read_list(path)
            except OSError as exc:  # the shipped list, and say why
                log.warning("the masked words in %s could not be read (%s): the shipped list "
                            "is used", path, exc)  # fmt: skip
        try:
            return read_list(asset_path(FILE_NAME))
        except OSError as exc:  # an install without it: nothing masked, and said
            log.warning("the shipped list of masked words could not be read: %s", exc)
            return frozenset()

    def __call__(self, text: str) -> str:
        """``text`` with each listed word as its first letter and dots ("f•••"), the rest
        (spaces, punctuation, case of the first letter) as it was."""
        if not text:
            return text
        listed = self.words()
        if not listed:
            return text

        def masked(match: re.Match[str]) -> str:
            word = match.group(0)
            if word.lower() not in listed:
                return word
            return word[0] + DOT * (len(word) - 1)

        return _WORD.sub(masked, text)
