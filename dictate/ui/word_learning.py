"""Learning from corrections: an alternative chosen with "correct that" ("choose 2"), or a word
spelled with "spell that", is a word the recognisers got wrong. The window offers to remember
it in the vocabulary (:mod:`dictate.writing.vocabulary`), once, in its message bar (never a
question in the middle of dictation); the same correction made a second time is remembered
without asking. The entry is the chosen words as written and, as how they sound, the words
that were heard, so the next time the same near miss is heard it is written as chosen.
Settings' "Learn words from my corrections" turns it off. The count of corrections is kept for
the app's session, not on disk.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

from dictate.writing.vocabulary import VocabularyFile, parse_entry

log = logging.getLogger("dictate.ui")

MAX_WORDS = 4
"""A correction of more words than this is a rephrasing, not a word to learn."""
_EDGES = re.compile("^[\\s\"'\u201c\u2018(]+|[\\s\"'\u201d\u2019).,;:!?]+$")


class WordLearning:
    """Args:
    settings: The user's settings (``learn_words``).
    messages: The window's message bar.
    path: The vocabulary file (None: the user's)."""

    def __init__(self, settings: Any, messages: Any, path: Path | None = None) -> None:
        self._settings = settings
        self._messages = messages
        self._path = path
        self._counts: Counter[tuple[str, str]] = Counter()
        self._offered: set[tuple[str, str]] = set()
        self._spelling = False

    def corrected(self, heard: str, chosen: str) -> None:
        """``heard`` (the words selected) was replaced by the alternative ``chosen``."""
        if not getattr(self._settings, "learn_words", True):
            return
        heard, chosen = _EDGES.sub("", heard), _EDGES.sub("", chosen)
        if not heard or not chosen or heard == chosen or len(chosen.split()) > MAX_WORDS:
            return
        sounds = " ".join(re.findall(r"[\w']+", heard.lower()))
        try:
            entry = parse_entry(f"{chosen} = {sounds}" if sounds else chosen)
        except ValueError:
            return
        key = (sounds, chosen)
        self._counts[key] += 1
        if self._counts[key] >= 2:
            self.remember(entry.written, entry.sounds, asked=False)
        elif key not in self._offered:
            self._offered.add(key)
            self._messages.add_message(
                f"Remember \u201c{chosen}\u201d in your words? Next time \u201c{heard}\u201d is "
                "heard it is written so (Dictation > Your words; Settings turn learning off).",
                [("&Remember it", lambda: self.remember(entry.written, entry.sounds))],
            )

    def expect_spelling(self) -> None:
        """ "Spell that": the next finalized text is the word spelled."""
        self._spelling = True

    def finalized(self, sentences: list[str]) -> None:
        """Text was finalized; after "spell that" it is the spelled word: offered once, as a
        chosen alternative is (a spelled word is one a recogniser missed)."""
        if not self._spelling:
            return
        self._spelling = False
        word = _EDGES.sub("", " ".join(sentences))
        if not getattr(self._settings, "learn_words", True) or not word or " " in word:
            return
        key = ("", word)
        if key in self._offered:
            return
        self._offered.add(key)
        self._messages.add_message(
            f"Remember \u201c{word}\u201d, which you spelled, in your words? (Dictation > Your "
            "words; Settings turn learning off.)",
            [("&Remember it", lambda: self.remember(word, ""))],
        )

    def add_words(self, text: str) -> bool:
        """ "Add that to my words": ``text`` (the selection) as an entry, as it is written."""
        written = _EDGES.sub("", text)
        if not written or len(written.split()) > MAX_WORDS:
            self._messages.show_message(
                f"Only a word or a short phrase (up to {MAX_WORDS} words) can be added to "
                "your words: select less."
            )
            return False
        return self.remember(written, "")

    def remember(self, written: str, sounds: str, asked: bool = True) -> bool:
        """Add the entry to the vocabulary; said in the message bar. False where it could not
        be written (said too)."""
        try:
            vocabulary = VocabularyFile(self._path)
            if vocabulary.get(written) == parse_entry(
                f"{written} = {sounds}" if sounds else written
            ):
                return True
            vocabulary.add([parse_entry(f"{written} = {sounds}" if sounds else written)])
        except (OSError, ValueError) as exc:
            self._messages.show_message(f"\u201c{written}\u201d could not be remembered: {exc}.")
            return False
        how = "" if asked else " (you corrected it twice)"
        self._messages.show_message(
            f"\u201c{written}\u201d is in your words now{how}; it applies from the next dictation."
        )
        log.info("learned %r (heard as %r)", written, sounds)
        return True
