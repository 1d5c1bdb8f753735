"""Which model to use: the Vosk speech model and the punctuation model.

One resolution function per model kind, with a fixed order, so the GUI, the command line and
the tests find the same model.

:func:`resolve_vosk_model` picks the model the recogniser uses: ``--model``, then
``DICTATE_VOSK_MODEL``, then the best installed model. ``None`` means there is no Vosk model and
the caller falls back to the bundled PocketSphinx engine.

:func:`resolve_punctuator_model` finds the punctuation model: ``--model``, then
``DICTATE_PUNCTUATOR_MODEL``, then the user data directory, then the model shipped with the app.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dictate.errors import ModelError, ModelNotFound
from dictate.paths import _PACKAGE_DIR, user_data_dir
from dictate.store.catalog import _PREFERENCE
from dictate.store.folders import find_model_dir, is_model_name, is_vosk_model_dir, missing_parts
from dictate.store.store import ModelStore

MODEL_ENV = "DICTATE_VOSK_MODEL"
PUNCTUATOR_ENV = "DICTATE_PUNCTUATOR_MODEL"


def _check_model_path(path: Path, source: str, fix: str) -> Path:
    if not path.exists():
        raise ModelNotFound(f"{source}: {path} does not exist; {fix}")
    if not is_vosk_model_dir(path):
        inner = find_model_dir(path, "") if path.is_dir() else None
        where = f"did you mean {inner}? " if inner is not None else ""
        detail = missing_parts(path) if path.is_dir() else "not a folder"
        raise ModelError(
            f"{source}: {path} is not a Vosk model folder ({detail}); {where}give the folder "
            f"that contains am/ and conf/, or {fix}"
        )
    return path


def resolve_vosk_model(
    explicit: str | Path | None = None,
    store: ModelStore | None = None,
) -> Path | None:
    """Find the Vosk model to recognise with.

    Order: ``explicit`` (``--model``: a model folder, or the name of an installed model), the
    ``DICTATE_VOSK_MODEL`` environment variable (a folder), then the installed models in
    ``store``, the most accurate catalogue model first, then other models alphabetically.

    Args:
        explicit: The ``--model`` value, if any.
        store: Where installed models are looked for; the default store if ``None``.

    Returns:
        The model folder, or ``None`` if there is no Vosk model: the caller falls back to the
        bundled PocketSphinx engine.

    Raises:
        ModelNotFound: ``explicit`` or the variable names something that does not exist.
        ModelError: ``explicit`` or the variable names a folder that is not a Vosk model.
    """
    store = store if store is not None else ModelStore()
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.exists() and isinstance(explicit, str) and is_model_name(explicit):
            if is_vosk_model_dir(store.root / explicit):
                return store.root / explicit
            raise ModelNotFound(
                f"Vosk model {explicit} not found: no such folder and no installed model of that "
                f"name in {store.root}; see `dictate models list`, or download one with "
                "`dictate models download NAME`"
            )
        return _check_model_path(path, "--model", "see `dictate models list`")
    from_env = os.environ.get(MODEL_ENV)
    if from_env:
        return _check_model_path(
            Path(from_env).expanduser(), f"{MODEL_ENV}={from_env}", "fix or unset the variable"
        )
    installed = {model.name: model.path for model in store.installed()}
    for name in _PREFERENCE:
        if name in installed:
            return installed[name]
    others = sorted(name for name in installed if name not in _PREFERENCE)
    return installed[others[0]] if others else None


def bundled_punctuator_dirs() -> list[Path]:
    """Places the shipped punctuation model can be, most specific first.

    A frozen app carries it in its bundle; an installed package carries it as package data; an
    editable install or a source checkout has it in the repository's top-level ``models/``.
    """
    candidates = []
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        candidates.append(Path(frozen_root) / "models" / "punctuator")
    candidates.append(_PACKAGE_DIR / "models" / "punctuator")
    candidates.append(_PACKAGE_DIR.parent / "models" / "punctuator")
    return candidates


def resolve_punctuator_model(explicit: str | Path | None = None) -> Path:
    """Find the punctuation model directory.

    Order: ``explicit`` (``--model``), the ``DICTATE_PUNCTUATOR_MODEL`` environment variable, the
    user data directory's ``models/punctuator``, then the bundled model.

    Raises:
        ModelNotFound: An explicit or environment path does not exist, or no model is found.
    """
    if explicit is not None:
        path = Path(explicit).expanduser()
        if not path.is_dir():
            raise ModelNotFound(f"punctuation model directory {path} does not exist")
        return path
    from_env = os.environ.get(PUNCTUATOR_ENV)
    if from_env:
        path = Path(from_env).expanduser()
        if not path.is_dir():
            raise ModelNotFound(
                f"{PUNCTUATOR_ENV}={from_env} is not a directory; fix or unset the variable"
            )
        return path
    candidates = [user_data_dir() / "models" / "punctuator", *bundled_punctuator_dirs()]
    for path in candidates:
        if (path / "model.onnx").is_file():
            return path
    tried = ", ".join(str(p) for p in candidates)
    raise ModelNotFound(
        f"no punctuation model found (looked in {tried}); pass --model DIR or set {PUNCTUATOR_ENV}"
    )
