"""The models the window's runs use, loaded once and kept while the settings that chose them
stay (:class:`~dictate.ui.pipeline_runner.DictationController` holds them): the recogniser
(PocketSphinx in its child process), the second pass (Whisper) and the punctuation model, and
the pipeline built around them for the settings and vocabulary of the last run.

A change of what is built around them (silence, commands, vocabulary...) builds a new pipeline
and restarts no process; a change of recogniser or Whisper model (:data:`HOT_SETTINGS`) loads
the new one, during a live run beside it (:meth:`~dictate.run.pipeline.Pipeline.switch_to`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dictate.config import Settings
from dictate.errors import close_quietly
from dictate.events import Event
from dictate.run.switch import Switch

log = logging.getLogger("dictate.ui")

HOT_SETTINGS = ("engine", "first_pass_model", "second_pass")
"""Settings that load another model: changed during a live run, the model is loaded beside
it and the run switches to it between two segments, keeping its pending words."""


@dataclass(frozen=True)
class Loaded:
    """What was loaded for a run: shown in the status bar."""

    engine_label: str
    provider: str
    punctuation_off: str = ""
    """Why punctuation is off for this speech model ("" when it runs)."""
    second_pass: str = ""
    """The second pass's label ("Whisper tiny.en (cpu)"), "" for none."""
    low_accuracy: bool = False
    """The engine is the inaccurate fallback (:attr:`~dictate.asr.registry.EngineSpec.
    low_accuracy`: PocketSphinx)."""


def run_options(s: Settings, vocabulary: Any = None) -> tuple[Any, Any, float | None]:
    """The segmenter's and the text stage's options and the commit delay of settings ``s`` and
    ``vocabulary`` (None: the file's now), the same for the pipeline, a file's parallel run and
    the audio recognised again after a crash (:mod:`dictate.ui.audio_recovery`)."""
    from dictate.asr.segmenter import SegmenterOptions
    from dictate.punctuation.options import StreamingOptions
    from dictate.run.assembly import TextOptions
    from dictate.writing.vocabulary import load_vocabulary
    from dictate.writing.vocabulary_harvest import load_misheard

    vocabulary = load_vocabulary() if vocabulary is None else vocabulary
    options = SegmenterOptions(silence_ms=s.silence_ms, max_segment_s=s.max_segment_s)
    text = TextOptions(
        mode=s.mode,
        decoder=StreamingOptions(min_right_words=s.min_right_words),
        commands=s.voice_commands,
        written_forms=s.written_forms,
        replacements=s.replacements,
        vocabulary=vocabulary,
        misheard=load_misheard(vocabulary),
    )
    commit_after = None if s.commit_after_ms is None else s.commit_after_ms / 1000
    return options, text, commit_after


def second_key(s: Settings) -> tuple[str, str]:
    """The second pass settings ``s`` load: the setting, and for "auto" the tier it means for
    live dictation now (:mod:`dictate.asr.tiers`: measured since, or stepped down, another)."""
    from dictate.asr.loader import AUTO

    if s.second_pass != AUTO:
        return s.second_pass, ""
    from dictate.asr.tiers import auto_model

    return s.second_pass, auto_model("live")


def pipeline_key(s: Settings, vocabulary: Sequence[Any]) -> tuple[Any, ...]:
    """What a pipeline built for settings ``s`` and ``vocabulary`` depends on: another key,
    another pipeline."""
    from dictate.writing.vocabulary_harvest import load_misheard

    return (
        s.engine, s.first_pass_model, s.mode, s.min_right_words, s.silence_ms,
        s.max_segment_s, s.commit_after_ms, s.written_forms, s.voice_commands,
        repr(s.replacements), second_key(s), tuple(vocabulary),
        repr(sorted(load_misheard(vocabulary).items())),  # forms heard since: a new one
    )  # fmt: skip


def load_models(cache: dict[str, Any], s: Settings) -> None:
    """Load into ``cache`` the models settings ``s`` name that it does not hold: the
    recogniser (``engine``; a new one means a new second pass, which may use it), the second
    pass (``second``) and the punctuation model (``model``), each with the key it was loaded
    for. A failure leaves the cache as it was."""
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.asr.process_engine import out_of_process
    from dictate.punctuation.model import load_punctuation_model

    engine_key = (s.engine, s.first_pass_model)
    engine = cache.get("engine")
    if cache.get("engine_key") != engine_key:
        # One that holds the GIL while decoding (PocketSphinx): out of the GUI's process.
        engine = out_of_process(load_engine(s.engine, s.first_pass_model))
    second = second_key(s)
    if cache.get("engine_key") != engine_key or cache.get("second_key") != second:
        # Loaded once and shared by the pipelines built for later settings (a model of
        # 75 MB to 1.6 GB); CTranslate2 releases the GIL while it decodes.
        try:
            cache["second"] = load_second_pass(s.second_pass, engine)
        except Exception:
            if engine is not cache.get("engine"):  # its spare recogniser's child process
                close_quietly(engine, log, "the recogniser loaded for nothing")
            raise
        cache["second_key"] = second
    cache["engine"], cache["engine_key"] = engine, engine_key
    if "model" not in cache:
        cache["model"] = load_punctuation_model()


def build_for(
    cache: dict[str, Any], s: Settings, vocabulary: Sequence[Any], on_event: Callable[[Event], None]
) -> tuple[Any, Loaded]:
    """A pipeline (:class:`~dictate.run.assembly.Assembled`) for settings ``s`` around the
    models :func:`load_models` put in ``cache``, and what the status bar shows of them."""
    from dictate.run.assembly import build_pipeline

    engine, model, second = cache["engine"], cache["model"], cache["second"]
    options, text, commit_after = run_options(s, vocabulary)
    built = build_pipeline(engine, model, on_event, text, options, second_pass=second,
                           commit_after=commit_after)  # fmt: skip
    return built, _loaded(engine, model, second, built.punctuation_off)


def switch_for(
    cache: dict[str, Any],
    s: Settings,
    vocabulary: Sequence[Any],
    on_event: Callable[[Event], None],
    running: Any,
) -> tuple[Switch, str, Loaded]:
    """What a live run whose recogniser's engine is ``running`` switches to for settings ``s``
    (around the models :func:`load_models` put in ``cache``): the refiners, and a recogniser
    where the engine changed (a child process started now, beside the run); why punctuation
    would be off with them, and what the status bar shows."""
    from dictate.asr.registry import recognizer_with
    from dictate.run.assembly import build_sink, text_choices

    engine, model, second = cache["engine"], cache["model"], cache["second"]
    _options, text, _commit_after = run_options(s, vocabulary)
    punctuator, choices, off = text_choices(engine, model, text)
    sink = build_sink(engine, punctuator, on_event, choices, second_pass=second,
                      vocabulary=text.vocabulary, misheard=text.misheard)  # fmt: skip
    recognizer = None if engine is running else recognizer_with(engine, text.vocabulary)
    return Switch(engine, sink.refiners, recognizer), off, _loaded(engine, model, second, off)


def _loaded(engine: Any, model: Any, second: Any, off: str) -> Loaded:
    from dictate.asr.registry import spec_of

    spec = spec_of(engine)
    low_accuracy = spec is not None and spec.low_accuracy
    second_label = second.label if second is not None else ""
    return Loaded(engine.label, model.provider, off, second_label, low_accuracy)
