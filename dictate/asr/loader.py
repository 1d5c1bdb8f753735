"""Loading the recognition engines the user asked for, or the best ones available, as
declared in :mod:`dictate.asr.registry`.

Apart from :mod:`dictate.asr.engine`, so that the engines can import the interface they
implement without importing the module that loads them.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from dictate.asr.engine import Engine
from dictate.asr.registry import (
    FIRST_PASS,
    OFF,
    WHISPER,
    EngineOptions,
    engine_languages,
    load_first_pass,
    spec_of,
)
from dictate.errors import DictateError, InputError

log = logging.getLogger("dictate.asr")

ENGINE_NAMES = FIRST_PASS
AUTO = "auto"
"""The second pass chosen for the first pass and the use: for English, the Whisper tier
:mod:`dictate.asr.tiers` chooses (tiny.en where it is the only one installed); else none."""


def load_engine(
    name: str | None = None, model: str | Path | None = None, options: EngineOptions | None = None
) -> Engine:
    """Load the streaming engine the user asked for, or the best one available.

    ``name`` None means: Vosk if a Vosk model is resolved (``model``, ``$DICTATE_VOSK_MODEL``, an
    installed model), else the bundled PocketSphinx English engine.

    Raises:
        InputError: Unknown engine name, or ``--model`` given for PocketSphinx.
        ModelError: The Vosk model is missing or cannot be loaded.
    """
    chosen = EngineOptions.of(name, model, options)
    engine: Engine = load_first_pass(chosen)
    return engine


def second_pass_model(choice: str | None, engine: Any, use: str = "live") -> str | None:
    """The Whisper model (a name or a folder) for ``choice`` ("auto", "off", a model) after
    ``engine``'s words; None for none. ``use``: "live" (dictation) or "files": what "auto"
    chooses for (:func:`dictate.asr.tiers.auto_model`).

    Raises:
        InputError: A second pass was asked for after words in a language it does not know.
    """
    if choice in (None, "", OFF):
        return None
    spec = spec_of(engine)
    language = engine_languages(spec.name, engine.model_path) if spec is not None else None
    if choice == AUTO:
        if language not in WHISPER.languages:
            return None  # (a Korean Vosk model: tiny.en would write English)
        from dictate.asr.tiers import auto_model

        return auto_model(use)
    if language is not None and language not in WHISPER.languages:
        raise InputError(
            f"the second pass ({choice}) is for {', '.join(WHISPER.languages)} speech and the "
            f"speech model is {language!r}; use --second-pass off"
        )
    return choice


def load_second_pass(
    choice: str | None,
    engine: Any,
    device: str = "auto",
    *,
    required: bool | None = None,
    threads: int = 0,
    use: str = "live",
) -> Any:
    """Load the second pass for ``choice`` after ``engine`` (None: none), on ``threads`` CPU
    threads (0: every core); ``use``: as :func:`second_pass_model`'s.

    ``required`` None: an explicit choice must load (its error is raised), "auto" falls back to
    none with a warning in the log (the first pass's words are still good).
    """
    model = second_pass_model(choice, engine, use)
    if model is None:
        return None
    must = required if required is not None else choice != AUTO
    try:
        return WHISPER.load(EngineOptions(WHISPER.name, model, device=device, threads=threads))
    except DictateError:
        if must:
            raise
        log.warning("no second pass: Whisper %s could not be loaded", model, exc_info=True)
        return None
