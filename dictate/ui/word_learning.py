"""Learning from corrections: an alternative chosen with "correct that" ("choose 2"), or a word
spelled with "spell that", is a word the recognisers got wrong. The window offers to remember
it in the vocabulary (:mod:`dictate.writing.vocabulary`), once, in its message bar (never a
question in the middle of dictation); the same correction made a second time is remembered
without asking. The entry is the chosen words as written and, as how they sound, the words
that were heard, so the next time the same near miss is heard it is written as chosen.
Settings' "Learn words from my corrections" turns it off. The count of corrections is kept
across sessions in ``corrections.json`` beside the vocabulary (private, replaced whole on each
change: a crash leaves the old count or the new; a damaged file is logged and counting starts
again), so a correction made once on Monday and once on Tuesday is remembered.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from pathlib import Path
from typing import Any

from dictate.fileio import atomic_write_text, private_dir, read_regular
from dictate.ui.app_log import words_log
from dictate.writing.vocabulary import VocabularyFile, default_vocabulary_path, parse_entry

log = logging.getLogger("dictate.ui")

COUNTS_FILE = "corrections.json"
MAX_COUNTS = 500
"""Corrections counted at most (the most recent kept): the file stays small."""
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
        self._offered: set[tuple[str, str]] = set()
        self._spelling = False
        self._counts_path = (path or default_vocabulary_path()).parent / COUNTS_FILE
        self._counts: Counter[tuple[str, str]] = self._read_counts()

    def _read_counts(self) -> Counter[tuple[str, str]]:
        counts: Counter[tuple[str, str]] = Counter()
        try:
            data = json.loads(read_regular(self._counts_path, 2**20))
            for heard, chosen, count in data["counts"]:
                if isinstance(heard, str) and isinstance(chosen, str) and isinstance(count, int):
                    counts[(heard, chosen)] = count
        except FileNotFoundError:
            pass
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("the corrections counted before could not be read (%s): %s; "
                        "counting starts again", self._counts_path, exc)  # fmt: skip
        return counts

    def _write_counts(self) -> None:
        kept = list(self._counts.items())[-MAX_COUNTS:]
        self._counts = Counter(dict(kept))
        data = {"version": 1, "counts": [[h, c, n] for (h, c), n in kept]}
        try:
            private_dir(self._counts_path.parent)
            atomic_write_text(self._counts_path, json.dumps(data), private=True)
        except OSError as exc:
            log.warning("the corrections could not be counted on disk (%s): %s",
                        self._counts_path, exc)  # fmt: skip

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
        self._counts[key] = self._counts.pop(key, 0) + 1  # the most recent last
        self._write_counts()
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
        from dictate.writing.vocabulary_harvest import MisheardFile, misheard_path, start_harvest

        try:
            vocabulary = VocabularyFile(self._path)
            entry = parse_entry(f"{written} = {sounds}" if sounds else written)
            existing = vocabulary.get(written)
            if existing == entry or (existing is not None and not sounds):
                return True  # there already (its sounds-like and rules are the user's own)
            if existing is not None and sounds:
                # An entry already: the words heard become a form of it that Whisper's
                # judgement may write as it (its sounds-like stays the user's own).
                MisheardFile(misheard_path(vocabulary.path)).append(
                    existing, [tuple(sounds.split())], by="correction"
                )
                self._messages.show_message(
                    f"\u201c{sounds}\u201d is now known as a way \u201c{written}\u201d is "
                    "heard; it applies from the next dictation."
                )
                log.info("learned a way a word of the vocabulary is heard")
                words_log.info("learned %r as heard %r", written, sounds)
                return True
            vocabulary.add([entry])
        except (OSError, ValueError) as exc:
            self._messages.show_message(f"\u201c{written}\u201d could not be remembered: {exc}.")
            return False
        how = "" if asked else " (you corrected it twice)"
        self._messages.show_message(
            f"\u201c{written}\u201d is in your words now{how}; it applies from the next dictation."
        )
        log.info("learned a word")
        words_log.info("learned %r (heard as %r)", written, sounds)
        start_harvest(getattr(self._settings, "second_pass", "auto"))
        return True
