"""The recogniser interface: 16 kHz audio in, partial words while speaking, final words at the end.

An :class:`Engine` holds a loaded model (slow to load, shared); a :class:`Recognizer` decodes one
segment at a time (cheap, one per pipeline). Segment boundaries come from our segmenter, not from
the engine: an engine that finds its own endpoints inside a segment keeps their words and goes on.
Loading an engine by name is :func:`dictate.asr.loader.load_engine`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import numpy as np


@dataclass(frozen=True)
class Word:
    """A recognised word with its time in the source (seconds) and the engine's confidence."""

    text: str
    start: float
    end: float
    confidence: float = 1.0
    mark: str = ""
    """The punctuation tag the recogniser wrote after the word ("PERIOD", "COMMA", "QUESTION";
    "O" for none: Whisper punctuates), a hint for the punctuator; "" where it gives none."""


MAX_ALTERNATIVES = 40
"""At most this many other hypotheses are kept for a segment ("correct that" lists a few;
a command said apart is often among them when the best one missed it)."""


class Recognizer(Protocol):
    """Decodes one segment at a time."""

    alternatives: list[list[str]]
    """What else the last segment could have been: its n-best hypotheses after the best, as
    word lists (at most :data:`MAX_ALTERNATIVES`); empty where the engine gives none."""

    def start(self, time: float) -> None:
        """A segment whose first sample is at ``time`` (source seconds) begins."""
        ...

    def accept(self, samples: np.ndarray) -> list[str] | None:
        """Feed int16 samples; return the current partial words if they changed, else None."""
        ...

    def finish(self) -> list[Word]:
        """End the segment and return its final words, with source times (and set
        :attr:`alternatives`)."""
        ...


class Warming(Recognizer, Protocol):
    """A recogniser of an engine declared able to ``warm`` (:mod:`dictate.asr.registry`)."""

    def warm(self, pieces: Sequence[np.ndarray]) -> None:
        """Hear one segment's audio, in the pieces the pipeline feeds, without decoding it: the
        recogniser's state (PocketSphinx's cepstral mean) is then as if it had decoded it."""
        ...


class Engine(Protocol):
    """A loaded recognition model."""

    name: str
    """Its name in :mod:`dictate.asr.registry` (what it can do is read there by this name)."""
    label: str
    """What the user sees: engine and model, with a warning if it is the inaccurate fallback."""
    model_path: Path | None

    def recognizer(self) -> Recognizer:
        """A new recogniser for one stream of segments."""
        ...


class CommandDecoding(Engine, Protocol):
    """An engine declared able to make a ``command_decoder`` (:mod:`dictate.asr.registry`)."""

    def command_decoder(self, phrases: Sequence[str]) -> Any:
        """A decoder of short segments against ``phrases`` (``decode(samples, heard) ->``
        :class:`~dictate.asr.command_decode.CommandDecode`), or None where this engine's model
        cannot make one."""
        ...


class VocabularyTaking(Recognizer, Protocol):
    """A recogniser of an engine declared able to take the ``vocabulary``
    (:mod:`dictate.asr.registry`)."""

    def add_vocabulary(self, entries: Sequence[Any]) -> int:
        """Put the user's entries (:class:`~dictate.writing.vocabulary.VocabularyEntry`) in
        its dictionary before :meth:`start`; how many were added."""
        ...
