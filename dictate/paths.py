"""Where things live: the package folder, its assets and the user data directory.

Which model to use is decided in :mod:`dictate.store.resolve`.
"""

from __future__ import annotations

import sys
from pathlib import Path

APP_NAME = "dictate"
_PACKAGE_DIR = Path(__file__).resolve().parent


def user_data_dir() -> Path:
    """The per-user data directory (models, journal); not created here."""
    from platformdirs import user_data_path

    return Path(user_data_path(APP_NAME, appauthor=False))


def user_cache_dir() -> Path:
    """The per-user cache directory (files made from others, made again if lost); not created
    here."""
    from platformdirs import user_cache_path

    return Path(user_cache_path(APP_NAME, appauthor=False))


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
