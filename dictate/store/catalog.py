"""The catalogue of official English Vosk models and where they are downloaded from.

Upstream publishes no byte counts and no checksums, so the sizes here are for display only; a
download is checked against the size the server announces (see :mod:`dictate.store.download`)
and by unpacking the zip with its CRC checks (see :mod:`dictate.store.store`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from dictate.errors import InputError

BASE_URL_ENV = "DICTATE_VOSK_BASE_URL"
BASE_URL = "https://alphacephei.com/vosk/models"
MODELS_PAGE = "https://alphacephei.com/vosk/models"


@dataclass(frozen=True)
class CatalogEntry:
    """One official Vosk model that can be downloaded by name.

    Attributes:
        name: Upstream name; also the folder inside the zip and the installed folder's name.
        url: Where the zip is downloaded from (see :func:`download_url` for mirrors).
        approx_bytes: Approximate download size, for display only (see :data:`CATALOG`).
        description: One line for model lists.
    """

    name: str
    url: str
    approx_bytes: int
    description: str

    @property
    def recommended(self) -> bool:
        """Whether this is the model to suggest first (:data:`RECOMMENDED`)."""
        return self.name == RECOMMENDED


def _entry(name: str, approx_bytes: int, description: str) -> CatalogEntry:
    return CatalogEntry(name, f"{BASE_URL}/{name}.zip", approx_bytes, description)


RECOMMENDED = "vosk-model-small-en-us-0.15"
"""The model to suggest to most users: small and fast, fine on a laptop."""

# Smallest first, as on the upstream page. The sizes are the approximate figures shown on
# https://alphacephei.com/vosk/models (40M, 128M, 1.8G): upstream publishes no byte counts and no
# checksums, so they are for display only. A download is checked against the size the server
# announces (Content-Length, or the total of Content-Range when resuming) and by unpacking the
# zip with its CRC checks.
CATALOG: tuple[CatalogEntry, ...] = (
    _entry("vosk-model-small-en-us-0.15", 40_000_000, "small, fast; recommended for laptops"),
    _entry(
        "vosk-model-en-us-0.22-lgraph",
        128_000_000,
        "medium; more accurate than the small one, still modest on memory",
    ),
    _entry(
        "vosk-model-en-us-0.22",
        1_800_000_000,
        "large, most accurate; needs several GB of RAM and a fast machine",
    ),
)

# Best first: the order in which resolve_vosk_model() prefers installed catalogue models.
_PREFERENCE: tuple[str, ...] = tuple(entry.name for entry in reversed(CATALOG))


def find_entry(name: str) -> CatalogEntry:
    """The catalogue entry called ``name``.

    Raises:
        InputError: ``name`` is not in the catalogue; the message lists the known names.
    """
    entry = catalog_entry(name)
    if entry is not None:
        return entry
    known = ", ".join(entry.name for entry in CATALOG)
    raise InputError(
        f"unknown Vosk model {name!r}; known models: {known} (to install another model, give "
        f"its download URL or import a zip downloaded from {MODELS_PAGE})"
    )


def catalog_entry(name: str) -> CatalogEntry | None:
    """The catalogue entry called ``name``, or ``None`` if there is none."""
    return next((entry for entry in CATALOG if entry.name == name), None)


def download_url(name: str) -> str:
    """Where the catalogue model ``name`` is downloaded from.

    The ``DICTATE_VOSK_BASE_URL`` environment variable replaces the upstream base URL (for
    mirrors); ``NAME.zip`` is appended to it.

    Raises:
        InputError: ``name`` is not in the catalogue.
    """
    entry = find_entry(name)
    base = os.environ.get(BASE_URL_ENV, "").strip()
    if base:
        return f"{base.rstrip('/')}/{name}.zip"
    return entry.url


def format_size(num_bytes: int) -> str:
    """A size for people, in decimal units like the upstream page: ``"40 MB"``, ``"1.8 GB"``.

    Up to petabytes: a server may announce any size, and "1.0 PB" says what "1000000 GB" hides.
    """
    units = (("PB", 10**15), ("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3))
    for unit, scale in units:
        if num_bytes >= scale:
            value = num_bytes / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{num_bytes} B"
