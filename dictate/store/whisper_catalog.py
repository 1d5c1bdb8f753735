"""The faster-whisper (CTranslate2 Whisper) models that can be downloaded by name, and what a
model folder must hold.

The catalogue (:data:`WHISPER_CATALOG`) names each model, the public Hugging Face repo its files
come from and the files to fetch (:meth:`WhisperEntry.download_plan`). A model folder holds the
files as the repo publishes them: ``model.bin``, ``config.json``, ``tokenizer.json``,
``vocabulary.txt`` or ``vocabulary.json``, and ``preprocessor_config.json`` where the repo has
one; :func:`is_whisper_model_dir` checks a folder for them without loading anything. The store
of downloaded models is :mod:`dictate.store.whisper_models`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from dictate.errors import InputError, ModelError, ModelNotFound

BASE_URL_ENV = "DICTATE_WHISPER_BASE_URL"
"""Replaces :data:`BASE_URL` (a mirror, a test server); files are at ``BASE/REPO/resolve/main``."""
BASE_URL = "https://huggingface.co"

MODEL_FILES = ("model.bin", "config.json", "tokenizer.json")
"""Files every model folder has. Without ``tokenizer.json`` faster-whisper would fetch the
tokenizer from the Hugging Face Hub, so it is required: a local model must never need the
network."""
VOCABULARY_FILES = ("vocabulary.txt", "vocabulary.json")
"""A model has one of these (older conversions wrote the text file, newer ones the JSON)."""
PREPROCESSOR_FILE = "preprocessor_config.json"
"""The feature extractor's settings; faster-whisper needs it for 128-mel models (large-v3 and
its distilled and turbo variants) and assumes 80 mels without it."""


@dataclass(frozen=True)
class WhisperEntry:
    """One faster-whisper model that can be downloaded by name.

    Attributes:
        name: The name used on the command line and for the installed folder.
        repo: The public Hugging Face repo its files come from (faster-whisper's own table,
            ``faster_whisper.utils._MODELS``).
        approx_bytes: Approximate download size, for display only.
        english_only: Whether it recognises English only.
        description: One line for model lists.
        vocabulary: The vocabulary file the repo is known to have; the other name in
            :data:`VOCABULARY_FILES` is tried if it answers 404.
        mel_128: Whether it is a 128-mel model, for which ``preprocessor_config.json`` is
            required; other repos may lack it, so for them it is fetched only if present.
        aliases: Other names accepted for it.
    """

    name: str
    repo: str
    approx_bytes: int
    english_only: bool
    description: str
    vocabulary: str = "vocabulary.txt"
    mel_128: bool = False
    aliases: tuple[str, ...] = ()

    def url(self, file: str) -> str:
        """Where ``file`` is downloaded from; ``DICTATE_WHISPER_BASE_URL`` replaces the Hub."""
        base = os.environ.get(BASE_URL_ENV, "").strip().rstrip("/") or BASE_URL
        return f"{base}/{self.repo}/resolve/main/{file}"

    def download_plan(self) -> tuple[tuple[tuple[str, ...], bool], ...]:
        """``(names, required)`` per file, small files first, so that a wrong repo shows before
        the large ``model.bin`` is fetched; the first of ``names`` that exists is taken."""
        vocabulary = (self.vocabulary, *(v for v in VOCABULARY_FILES if v != self.vocabulary))
        return (
            (("config.json",), True),
            (("tokenizer.json",), True),
            (vocabulary, True),
            ((PREPROCESSOR_FILE,), self.mel_128),
            (("model.bin",), True),
        )


def _systran(name: str, size: int, english: bool, description: str) -> WhisperEntry:
    return WhisperEntry(name, f"Systran/faster-whisper-{name}", size, english, description)


# Smallest first within each family. Sizes are model.bin plus the tokenizer, rounded: for display.
WHISPER_CATALOG: tuple[WhisperEntry, ...] = (
    _systran("tiny.en", 78_000_000, True, "tiny, English; bundled, fast even on old laptops"),
    _systran("tiny", 78_000_000, False, "tiny, multilingual"),
    _systran("base.en", 148_000_000, True, "base, English; better than tiny, still fast on a CPU"),
    _systran("base", 148_000_000, False, "base, multilingual"),
    _systran("small.en", 486_000_000, True, "small, English; good accuracy, slower on a CPU"),
    _systran("small", 486_000_000, False, "small, multilingual"),
    _systran("medium.en", 1_530_000_000, True, "medium, English; accurate, wants a GPU"),
    WhisperEntry(
        "distil-small.en",
        "Systran/faster-distil-whisper-small.en",
        336_000_000,
        True,
        "distilled small, English; near small.en accuracy, faster",
        vocabulary="vocabulary.json",
    ),
    WhisperEntry(
        "distil-medium.en",
        "Systran/faster-distil-whisper-medium.en",
        792_000_000,
        True,
        "distilled medium, English; near medium.en accuracy, much faster",
        vocabulary="vocabulary.json",
    ),
    WhisperEntry(
        "distil-large-v3",
        "Systran/faster-distil-whisper-large-v3",
        1_520_000_000,
        True,
        "distilled large-v3, English; close to large-v3, wants a GPU",
        vocabulary="vocabulary.json",
        mel_128=True,
    ),
    WhisperEntry(
        "large-v3-turbo",
        "mobiuslabsgmbh/faster-whisper-large-v3-turbo",
        1_620_000_000,
        False,
        "large-v3 with a 4-layer decoder, multilingual; most accurate here, wants a GPU",
        vocabulary="vocabulary.json",
        mel_128=True,
        aliases=("turbo",),
    ),
)


def whisper_catalog_entry(name: str) -> WhisperEntry | None:
    """The catalogue entry called ``name`` or with it as an alias, or ``None``."""
    return next((e for e in WHISPER_CATALOG if name == e.name or name in e.aliases), None)


def find_whisper_entry(name: str) -> WhisperEntry:
    """The catalogue entry called ``name`` (or an alias of it).

    Raises:
        InputError: ``name`` is not in the catalogue; the message lists the known names.
    """
    entry = whisper_catalog_entry(name)
    if entry is None:
        raise InputError(f"unknown Whisper model {name!r}; known models: {known_whisper_names()}")
    return entry


def known_whisper_names() -> str:
    """The catalogue's names, each with its aliases, for messages about an unknown name."""
    return ", ".join(
        e.name + (f" ({', '.join(e.aliases)})" if e.aliases else "") for e in WHISPER_CATALOG
    )


def missing_model_files(path: Path) -> list[str]:
    """What a faster-whisper model folder lacks (an empty ``model.bin`` counts as missing)."""
    missing = [name for name in MODEL_FILES if not (path / name).is_file()]
    if not any((path / name).is_file() for name in VOCABULARY_FILES):
        missing.append(" or ".join(VOCABULARY_FILES))
    if "model.bin" not in missing and (path / "model.bin").stat().st_size == 0:
        missing.append("model.bin (it is empty)")
    return missing


def is_whisper_model_dir(path: str | Path) -> bool:
    """Whether ``path`` is a folder with every file a faster-whisper model needs; nothing is
    loaded or parsed."""
    path = Path(path)
    return path.is_dir() and not missing_model_files(path)


def check_whisper_model_dir(path: str | Path, fix: str = "") -> Path:
    """``path`` if it is a faster-whisper model folder (see :func:`is_whisper_model_dir`).

    Args:
        fix: What to do about a folder that is incomplete; a generic hint by default.

    Raises:
        ModelNotFound: ``path`` does not exist.
        ModelError: ``path`` is not a folder, or a file is missing; the message says which.
    """
    path = Path(path).expanduser()
    needs = "model.bin, config.json, tokenizer.json and vocabulary.txt or vocabulary.json"
    fix = fix or f"give a folder holding {needs}, or a model name (`dictate models list`)"
    if not path.exists():
        raise ModelNotFound(f"Whisper model folder {path} does not exist; {fix}")
    if not path.is_dir():
        raise ModelError(f"{path} is not a folder; a Whisper model is a folder holding {needs}")
    missing = missing_model_files(path)
    if missing:
        raise ModelError(
            f"{path} is not a complete faster-whisper model: {', '.join(missing)} missing; {fix}"
        )
    return path


def free_target(root: Path, name: str) -> Path:
    """Where the model ``name`` is installed in the store ``root``, checked to be free.

    Raises:
        InputError: The model is installed there already, or something else is in the way.
    """
    target = root / name
    if is_whisper_model_dir(target):
        raise InputError(
            f"Whisper model {name} is already installed at {target}; remove it first with "
            f"`dictate models remove {name}`"
        )
    if os.path.lexists(target):
        raise InputError(f"{target} already exists and is not a Whisper model; delete it first")
    return target
