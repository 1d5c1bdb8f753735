"""Loading the recognition engine the user asked for, or the best one available.

Apart from :mod:`dictate.asr.engine`, so that the engines can import the interface they
implement without importing the module that loads them.
"""

from __future__ import annotations

from pathlib import Path

from dictate.asr.engine import Engine
from dictate.asr.sphinx_engine import SphinxEngine
from dictate.asr.vosk_engine import VoskEngine
from dictate.errors import InputError, ModelNotFound
from dictate.store.resolve import resolve_vosk_model

ENGINE_NAMES = ("vosk", "sphinx")


def load_engine(name: str | None = None, model: str | Path | None = None) -> Engine:
    """Load the engine the user asked for, or the best one available.

    ``name`` None means: Vosk if a Vosk model is resolved (``model``, ``$DICTATE_VOSK_MODEL``, an
    installed model), else the bundled PocketSphinx English engine.

    Raises:
        InputError: Unknown engine name, or ``--model`` given for PocketSphinx.
        ModelError: The Vosk model is missing or cannot be loaded.
    """
    if name not in (None, *ENGINE_NAMES):
        raise InputError(f"unknown engine {name!r}; choose one of {', '.join(ENGINE_NAMES)}")
    if name == "sphinx":
        if model is not None:
            raise InputError("--model is for Vosk; the PocketSphinx engine uses its bundled model")
        return SphinxEngine()
    path = resolve_vosk_model(model)
    if path is None:
        if name == "vosk":
            raise ModelNotFound(
                "no Vosk model installed; run `dictate models download "
                "vosk-model-small-en-us-0.15`, import one with `dictate models import PATH`, "
                "or use --engine sphinx"
            )
        return SphinxEngine()
    return VoskEngine(path)
