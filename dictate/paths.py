"""Where things live: bundled and user-installed models, user data.

One resolution function per model kind, with a fixed order, so the GUI, the command line and
the tests find the same model.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from dictate.errors import ModelNotFound

APP_NAME = "dictate"
PUNCTUATOR_ENV = "DICTATE_PUNCTUATOR_MODEL"
_PACKAGE_DIR = Path(__file__).resolve().parent


def user_data_dir() -> Path:
    """The per-user data directory (models, journal); not created here."""
    from platformdirs import user_data_path

    return Path(user_data_path(APP_NAME, appauthor=False))


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


def asset_path(name: str) -> Path:
    """A file shipped in ``assets/`` (icon, desktop entry, sample recording).

    Raises:
        FileNotFoundError: The asset is in none of the places an install can put it.
    """
    roots = []
    frozen_root = getattr(sys, "_MEIPASS", None)
    if frozen_root:
        roots.append(Path(frozen_root) / "assets")
    roots += [_PACKAGE_DIR / "assets", _PACKAGE_DIR.parent / "assets"]
    for root in roots:
        if (root / name).is_file():
            return root / name
    raise FileNotFoundError(f"asset {name} not found in {', '.join(map(str, roots))}")
