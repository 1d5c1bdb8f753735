"""The first pass on a live run's audio thread: the streaming recogniser fed each piece of the
open segment, its partial words, its final words for a closed segment, and the first-pass words
of closed segments whose settled words are not shown yet (they stay in front of the partial
words, greyed, until the settled words replace them in one step)."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from dictate.asr.engine import Engine, Word
from dictate.asr.registry import recognizer_with
from dictate.audio.format import SAMPLE_RATE
from dictate.errors import close_quietly
from dictate.events import COMMAND_MARK
from dictate.seam.cutter import Piece
from dictate.seam.segment import ClosedSegment
from dictate.text.stage import without_fillers

log = logging.getLogger("dictate.run.first_pass")

CATCH_UP_PIECE_S = 1.0
"""Seconds of audio in one piece fed to the recogniser while catching up."""
AGREEMENT_ENV = "DICTATE_LIVE_AGREEMENT"
"""Set (to anything but "" or "0"): of each preview, only the words the one before it agreed
on are shown (whisper_streaming's local agreement), then the first pass's words heard after
it. Measured against showing each preview whole and not taken: the last live words lacked
the unagreed tails (12.3% from the settled words against 3.3%; docs/performance.md)."""


class FirstPass:
    """One streaming recogniser and what it has shown (see the module's docstring)."""

    def __init__(self, engine: Engine, vocabulary: Sequence[Any] = ()) -> None:
        self.recognizer = recognizer_with(engine, vocabulary)
        self.lock = threading.Lock()
        self.unshown: dict[int, tuple[float, list[str]]] = {}
        """Closed segments whose settled words are not shown yet: their end (how far behind
        recognition is counts from there) and their first-pass words."""
        self.open_start: float | None = None
        """Start of the segment the recogniser decodes; None between segments."""
        self.partial: list[str] = []
        self.open_number = 0
        self.preview: tuple[list[str], int, float | None] | None = None
        """The open segment's last preview (:meth:`previewed`): the second pass's words of its
        audio then, how many of the partial words had been shown then, and the end of speech
        it heard to where it was the early decode (None for a preview)."""
        self._unfed: list[np.ndarray] = []
        self._previewed: list[str] | None = None  # the open segment's last preview's words
        self.reset()

    def reset(self) -> None:
        """Before a run (:data:`AGREEMENT_ENV` is read again)."""
        self.unshown, self.open_start, self.partial, self._unfed = {}, None, [], []
        self.open_number, self.preview, self._previewed = 0, None, None
        self.agreement = os.environ.get(AGREEMENT_ENV, "") not in ("", "0")

    def open_words(self) -> list[str]:
        """The open segment's words to show: its last preview's, then the partial words
        heard after it (PocketSphinx's newer words), else the partial words."""
        if self.preview is None:
            return self.partial
        words, heard, _end = self.preview
        return [*words, *self.partial[heard:]]

    def previewed(
        self, number: int, words: list[str], heard: int, end: float | None = None
    ) -> list[str] | None:
        """The second pass's ``words`` for open segment ``number``'s audio when ``heard``
        partial words had been shown: the words to show now, or None where the segment has
        closed since (the preview is stale). ``end``: the end of the speech they are of, where
        they are the early decode's, made in a pause (if the segment closes there, they are all
        its words: the first pass's words after ``heard`` are then of the pause, not shown;
        and if it closed there while they were decoded, they replace its live words)."""
        with self.lock:
            closed = self.unshown.get(number)
            if closed is not None and end is not None and abs(closed[0] - end) < 1e-6:
                if closed[1] == [COMMAND_MARK]:
                    return None  # (a possible command shows its mark until it is settled)
                self.unshown[number] = (closed[0], list(words))
                return self._unshown_words() + (self.open_words() if self.open_start else [])
            if number != self.open_number or self.open_start is None:
                return None
            if self.agreement and end is None:  # a preview: what the last one agreed on
                last, self._previewed = self._previewed, list(words)
                if last is None:
                    return None
                agreed = 0
                while agreed < min(len(last), len(words)) and last[agreed] == words[agreed]:
                    agreed += 1
                words = words[:agreed]
            self.preview = (list(words), heard, end)
            return self._unshown_words() + self.open_words()

    def feed(self, piece: Piece, catching_up: bool) -> list[str] | None:
        """Give the recogniser ``piece`` (while catching up, gathered into pieces of
        :data:`CATCH_UP_PIECE_S`: fewer calls, fewer partial results); the words to show as
        partial (the unshown segments' and the open one's), or None when nothing changed."""
        if piece.first:
            with self.lock:
                self.open_start, self.partial = piece.start, []
                self.open_number, self.preview, self._previewed = piece.number, None, None
            self.recognizer.start(piece.start)
        self._unfed.append(piece.samples)
        if catching_up and sum(len(p) for p in self._unfed) < CATCH_UP_PIECE_S * SAMPLE_RATE:
            return None
        words = self.recognizer.accept(self._take())
        if words is None:
            return None
        with self.lock:
            self.partial = without_fillers(words)
            return self._unshown_words() + self.open_words()

    def _take(self) -> np.ndarray:
        pieces, self._unfed = self._unfed, []
        return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)

    def close(self, segment: ClosedSegment, rescue: bool = False) -> None:
        """Put the recogniser's final words in ``segment`` (and its other guesses). If it
        fails, the segment gets the last partial words, and the failure is raised after that
        (``rescue``: a failure already ended the run; it is logged instead)."""
        with self.lock:
            self.open_start = None
        failure: Exception | None = None
        try:
            if self._unfed:
                self.recognizer.accept(self._take())
            words: list[Word] = self.recognizer.finish()
            segment.alternatives = list(self.recognizer.alternatives)
        except Exception as exc:
            if rescue:
                log.exception("the recogniser could not finish the interrupted segment")
            else:
                failure = exc
            words = [
                Word(text, segment.start, max(segment.start, segment.end)) for text in self.partial
            ]  # fmt: skip (no times: the segment's span)
        segment.words = list(words)
        with self.lock:
            final = [w.text for w in without_fillers(words)]
            if self.preview is not None:  # until settled: the preview, then the newer words
                shown, heard, end = self.preview
                whole = end is not None and abs(end - segment.end) < 1e-6
                final = list(shown) if whole else [*shown, *final[heard:]]
            self.unshown[segment.number] = (segment.end, final)
            self.partial, self.preview = [], None
        if failure is not None:
            raise failure

    def mark(self, segment: int) -> list[str]:
        """Closed segment ``segment`` may be a command: until it is settled, show
        :data:`~dictate.events.COMMAND_MARK` in place of its words. The words to show now."""
        with self.lock:
            if segment in self.unshown:
                self.unshown[segment] = (self.unshown[segment][0], [COMMAND_MARK])
            return self._unshown_words() + (self.open_words() if self.open_start else [])

    def shown(self, segment: int) -> list[str] | None:
        """Segment ``segment``'s settled words are shown: the partial words to show now, without
        its first-pass words (None: nothing to show again)."""
        with self.lock:
            if self.unshown.pop(segment, None) is None:
                return None
            if self.open_start is None and not self.unshown:
                return None  # nothing open: the pending text replaced the partial words
            return self._unshown_words() + (self.open_words() if self.open_start else [])

    def shown_of(self, segment: int) -> list[str] | None:
        """The live words shown for closed ``segment`` until its settled words are shown."""
        with self.lock:
            entry = self.unshown.get(segment)
            return list(entry[1]) if entry is not None else None

    def oldest_unshown(self) -> float | None:
        """The end of the oldest closed segment whose words are not shown yet."""
        with self.lock:
            return min((end for end, _ in self.unshown.values()), default=None)

    def _unshown_words(self) -> list[str]:
        return [w for number in sorted(self.unshown) for w in self.unshown[number][1]]

    def free(self) -> None:
        close_quietly(self.recognizer, log, "the recogniser")  # a child process (the window's)
