"""The recogniser interface: 16 kHz audio in, partial words while speaking, final words at the end.

An :class:`Engine` holds a loaded model (slow to load, shared); a :class:`Recognizer` decodes one
segment at a time (cheap, one per pipeline). Segment boundaries come from our segmenter, not from
the engine: an engine that finds its own endpoints inside a segment keeps their words and goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from dictate.errors import InputError


@dataclass(frozen=True)
class Word:
    """A recognised word with its time in the source (seconds) and the engine's confidence."""

    text: str
    start: float
    end: float
    confidence: float = 1.0


class Recognizer(Protocol):
    """Decodes one segment at a time."""

    def start(self, time: float) -> None:
        """A segment whose first sample is at ``time`` (source seconds) begins."""
        ...

    def accept(self, samples: np.ndarray) -> list[str] | None:
        """Feed int16 samples; return the current partial words if they changed, else None."""
        ...

    def finish(self) -> list[Word]:
        """End the segment and return its final words, with source times."""
        ...


class Engine(Protocol):
    """A loaded recognition model."""

    name: str
    """"vosk" or "sphinx"."""
    label: str
    """What the user sees: engine and model, with a warning if it is the inaccurate fallback."""
    model_path: Path | None

    def recognizer(self) -> Recognizer:
        """A new recogniser for one stream of segments."""
        ...


ENGINE_NAMES = ("vosk", "sphinx")


def load_engine(name: str | None = None, model: str | Path | None = None) -> Engine:
    """Load the engine the user asked for, or the best one available.

    ``name`` None means: Vosk if a Vosk model is resolved (``model``, ``$DICTATE_VOSK_MODEL``, an
    installed model), else the bundled PocketSphinx English engine.

    Raises:
        InputError: Unknown engine name, or ``--model`` given for PocketSphinx.
        ModelError: The Vosk model is missing or cannot be loaded.
    """
    from dictate.store.resolve import resolve_vosk_model

    if name not in (None, *ENGINE_NAMES):
        raise InputError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name == "sphinx":
        if model is not None:
            raise InputError("--model is for Vosk; the PocketSphinx engine uses its bundled model")
        from dictate.asr.sphinx_engine import SphinxEngine

        return SphinxEngine()
    path = resolve_vosk_model(model)
    if path is None:
        if name == "vosk":
            from dictate.errors import ModelNotFound

            raise ModelNotFound(
                "no Vosk model installed; run `dictate models download "
                "vosk-model-small-en-us-0.15`, import one with `dictate models import PATH`, "
                "or use --engine sphinx"
            )
        from dictate.asr.sphinx_engine import SphinxEngine

        return SphinxEngine()
    from dictate.asr.vosk_engine import VoskEngine

    return VoskEngine(path)
