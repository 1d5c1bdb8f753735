"""The recognition engines, declared once: what each is called and shown as, which languages
it knows, the kind of model it loads, what it can do, and how it is loaded.

Everything that chooses or describes an engine reads this table: the command line's choices,
the settings and their dialog, the worker processes of a parallel decode and of the window, and
the model store. No other module spells an engine's name; code asks for an ability
(:attr:`EngineSpec.abilities`), never for a name.

An engine is loaded from :class:`EngineOptions`, which a worker process is given whole (model,
compute type, device, language), so it loads the engine the parent would.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, cast

from dictate.asr.engine import VocabularyTaking
from dictate.asr.language import model_folder_language, punctuation_mismatch
from dictate.errors import InputError


@dataclass(frozen=True)
class Abilities:
    """What an engine can do. Code reads an ability here, never by probing a loaded engine for
    a method: an engine declared with one has the member of :mod:`dictate.asr.engine` that
    goes with it (tests/asr/test_registry.py checks the real engines)."""

    partial_words: bool = False
    """Words while the person speaks (a streaming first pass)."""
    second_pass: bool = False
    """Decodes a closed segment's whole audio again, better (:mod:`dictate.seam.segment`)."""
    own_process: bool = False
    """Holds Python's GIL while decoding: the window runs it in a child process."""
    warm: bool = False
    """Its recognisers can hear audio without decoding it
    (:class:`~dictate.asr.engine.Warming`): a parallel decode's words are then exact, and the
    audio recognised again after a crash is heard where the live recogniser was."""
    command_decoder: bool = False
    """It makes a second decoder of short segments against the command phrases
    (:class:`~dictate.asr.engine.CommandDecoding`; None where its model cannot)."""
    vocabulary: bool = False
    """Its recognisers take the user's vocabulary into their own dictionary
    (:class:`~dictate.asr.engine.VocabularyTaking`), so the first pass can write an entry."""
    score: bool = False
    """It scores given texts as the words of some audio (``score``: Whisper's forced
    alignment), so it can judge a near miss of the user's vocabulary."""


@dataclass(frozen=True)
class EngineOptions:
    """Everything needed to load an engine (picklable: worker processes get it whole)."""

    engine: str | None = None
    """A name in :data:`ENGINES`; None: the best first pass available
    (:func:`default_first_pass`)."""
    model: str | None = None
    """A model folder or an installed model's name (None: the engine's default)."""
    compute_type: str = "default"
    device: str = "auto"
    """"auto", "cpu" or "cuda" (the punctuator's --provider policy)."""
    language: str | None = None
    threads: int = 0

    def with_engine(self, name: str | None) -> EngineOptions:
        return replace(self, engine=name)

    @classmethod
    def of(
        cls, name: str | None, model: str | Path | None, base: EngineOptions | None
    ) -> EngineOptions:
        """``base`` (or the defaults) with the engine name and model given as arguments,
        where they are given: how ``load_engine`` and ``ProcessEngine`` read theirs."""
        base = base or cls()
        return replace(
            base,
            engine=name if name is not None else base.engine,
            model=str(model) if model is not None else base.model,
        )


@dataclass(frozen=True)
class EngineSpec:
    """One engine."""

    name: str
    label: str
    """What the user sees in a list of engines."""
    languages: tuple[str, ...]
    """Language codes it recognises; () when the model decides (read from the model)."""
    model_kind: str
    """"bundled" (ships with the app), "vosk" or "whisper": the store that finds its models."""
    abilities: Abilities
    load: Callable[[EngineOptions], Any]
    """Loads it (an :class:`~dictate.asr.engine.Engine`, or a second pass)."""
    default_model: str | None = None
    short_label: str = ""
    """The engine alone, as the user reads it before a model's name ("Vosk: MODEL"); its
    name where not given (:meth:`title`)."""
    low_accuracy: bool = False
    """The inaccurate fallback: alone (no second pass), the window suggests a better engine."""

    def title(self) -> str:
        return self.short_label or self.name


def _load_sphinx(options: EngineOptions) -> Any:
    from dictate.asr.sphinx_engine import SphinxEngine

    if options.model is not None:
        short = [spec.label.split(" (")[0] for spec in (VOSK, SPHINX)]
        raise InputError(f"--model is for {short[0]}; {short[1]} uses its bundled model")
    return SphinxEngine()


def _load_vosk(options: EngineOptions) -> Any:
    from dictate.asr.vosk_engine import VoskEngine
    from dictate.errors import ModelNotFound
    from dictate.store.catalog import RECOMMENDED
    from dictate.store.resolve import resolve_vosk_model

    path = resolve_vosk_model(options.model)
    if path is None:
        raise ModelNotFound(
            f"no Vosk model installed; run `dictate models download {RECOMMENDED}`, import one "
            f"with `dictate models import PATH`, or use --engine {SPHINX.name}"
        )
    return VoskEngine(path)


def _load_whisper(options: EngineOptions) -> Any:
    from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass

    return WhisperSecondPass(
        WhisperOptions(
            model=options.model or WHISPER.default_model or "tiny.en",
            device=options.device,
            compute_type=options.compute_type,
            threads=options.threads,
            language=options.language or "en",
        )
    )


SPHINX = EngineSpec(
    "sphinx",
    "PocketSphinx (bundled, English)",
    ("en",),
    "bundled",
    Abilities(
        partial_words=True, own_process=True, warm=True, command_decoder=True, vocabulary=True
    ),
    _load_sphinx,
    short_label="PocketSphinx",
    low_accuracy=True,
)
VOSK = EngineSpec(
    "vosk",
    "Vosk (Kaldi; a downloaded model)",
    (),
    "vosk",
    Abilities(partial_words=True, command_decoder=True),
    _load_vosk,
    short_label="Vosk",
)
WHISPER = EngineSpec(
    "whisper",
    "Whisper (faster-whisper; second pass)",
    ("en",),
    "whisper",
    Abilities(second_pass=True, score=True),
    _load_whisper,
    default_model="tiny.en",
    short_label="Whisper",
)

ENGINES: dict[str, EngineSpec] = {spec.name: spec for spec in (VOSK, SPHINX, WHISPER)}
"""Every engine, the preferred first pass first."""

FIRST_PASS = tuple(name for name, spec in ENGINES.items() if spec.abilities.partial_words)
"""Names of the streaming engines (``--engine`` choices)."""
SECOND_PASS = tuple(name for name, spec in ENGINES.items() if spec.abilities.second_pass)

OFF = "off"
"""The second pass turned off (``--second-pass off``)."""


def engine_spec(name: str) -> EngineSpec:
    """The engine called ``name``.

    Raises:
        InputError: No such engine.
    """
    spec = ENGINES.get(name)
    if spec is None:
        raise InputError(f"unknown engine {name!r}; choose one of {', '.join(ENGINES)}")
    return spec


def spec_of(engine: Any) -> EngineSpec | None:
    """The declaration of a loaded engine (by its ``name``), None for one not declared (a test
    double)."""
    return ENGINES.get(getattr(engine, "name", ""))


def abilities_of(engine: Any) -> Abilities:
    """What a loaded engine can do, as declared; nothing for one not declared."""
    spec = spec_of(engine)
    return spec.abilities if spec is not None else Abilities()


def engine_languages(name: str, model_path: Path | None) -> str | None:
    """The language code an engine recognises with the model at ``model_path``; None when
    unknown."""
    spec = ENGINES.get(name)
    if spec is None:
        return None
    if len(spec.languages) == 1:
        return spec.languages[0]
    return model_folder_language(model_path) if model_path is not None else None


speech_model_language = engine_languages


def engine_mismatch(engine: Any, punctuation: str) -> str:
    """:func:`~dictate.asr.language.punctuation_mismatch` for a loaded recogniser; the one
    check the window, ``dictate transcribe`` and ``dictate bench pipeline`` make before
    punctuating its words."""
    speech = engine_languages(getattr(engine, "name", ""), getattr(engine, "model_path", None))
    return punctuation_mismatch(speech, punctuation)


def options_of(engine: Any) -> EngineOptions:
    """The options that load ``engine`` again (in a worker process): its name, and its model
    folder where its kind of model is one the user chooses."""
    spec = spec_of(engine)
    path = getattr(engine, "model_path", None)
    loaded = getattr(engine, "options", None)
    if isinstance(loaded, EngineOptions):
        return loaded
    chooses_model = spec is not None and spec.model_kind != "bundled"
    return EngineOptions(
        spec.name if spec is not None else getattr(engine, "name", None),
        str(path) if chooses_model and path is not None else None,
    )


def default_first_pass(model: str | None = None) -> str:
    """The engine to use when none is named: the first streaming engine whose model is found
    (a Vosk model given or installed), else the bundled one."""
    from dictate.store.resolve import resolve_vosk_model

    for name in FIRST_PASS:
        kind = ENGINES[name].model_kind
        if kind == "bundled":
            return name
        if kind == "vosk" and resolve_vosk_model(model) is not None:
            return name
    return SPHINX.name


def available_first_passes(model: str | None = None) -> tuple[str, ...]:
    """The streaming engines that can be loaded now, the preferred first: the bundled ones, and
    those whose model is found (``model``, or an installed one)."""
    from dictate.store.resolve import resolve_vosk_model

    found = []
    for name in FIRST_PASS:
        kind = ENGINES[name].model_kind
        if kind == "bundled" or (kind == "vosk" and resolve_vosk_model(model) is not None):
            found.append(name)
    return tuple(found)


def load_first_pass(options: EngineOptions) -> Any:
    """Load the streaming engine ``options`` names (or the default one)."""
    name = options.engine or default_first_pass(options.model)
    spec = engine_spec(name)
    if not spec.abilities.partial_words:
        raise InputError(
            f"{spec.label} is not a streaming engine; choose one of {', '.join(FIRST_PASS)} "
            "(and give it with --second-pass)"
        )
    return spec.load(options.with_engine(name))


def recognizer_with(engine: Any, vocabulary: Sequence[Any] = ()) -> Any:
    """A new recogniser of ``engine``, given the user's ``vocabulary``
    (:class:`~dictate.writing.vocabulary.VocabularyEntry`) where its abilities say its
    recognisers take it (PocketSphinx, in this process or the window's child); the same for the
    live pipeline and a file's worker processes."""
    recognizer = engine.recognizer()
    if vocabulary and abilities_of(engine).vocabulary:
        cast(VocabularyTaking, recognizer).add_vocabulary(vocabulary)
    return recognizer
