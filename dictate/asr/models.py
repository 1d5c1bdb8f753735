"""Vosk models: the catalogue of official English models and the store of installed ones.

Installed models live in the user data directory (``models/vosk/NAME``), one folder each, laid
out exactly as upstream ships them (``am/final.mdl``, ``conf/``, ``graph/``, ...).
:class:`ModelStore` downloads them (resumable, size-checked, cancellable), imports local folders
or zips, lists and removes them. Every install is unpacked or copied into a hidden temporary
folder inside the store and renamed into place as the very last step, so a crash or an error
never leaves a half-installed model that looks usable.

:func:`resolve_vosk_model` picks the model the recogniser uses: ``--model``, then
``DICTATE_VOSK_MODEL``, then the best installed model. ``None`` means there is no Vosk model and
the caller falls back to the bundled PocketSphinx engine.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import re
import shutil
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import IO, Any

from dictate import __version__
from dictate.errors import (
    DictateError,
    DownloadCancelled,
    DownloadError,
    InputError,
    ModelError,
    ModelNotFound,
)
from dictate.paths import user_data_dir

log = logging.getLogger("dictate.models")

MODEL_ENV = "DICTATE_VOSK_MODEL"
BASE_URL_ENV = "DICTATE_VOSK_BASE_URL"
BASE_URL = "https://alphacephei.com/vosk/models"
MODELS_PAGE = "https://alphacephei.com/vosk/models"

CHUNK_SIZE = 256 * 1024
"""Bytes read per network read; cancellation and progress are checked once per chunk."""

STALE_SECONDS = 3600.0
"""Age after which :meth:`ModelStore.cleanup` treats a hidden temporary folder as left by a crash.

Younger ones may belong to an install running in another process (the GUI and the command line
share the store), so they are left alone.
"""

ProgressCallback = Callable[[int, int | None], None]
"""``progress(bytes_done, total)``; ``total`` is ``None`` when the server does not say."""

_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_TMP_PREFIX = ".tmp-"
MAX_MODEL_BYTES = 8 * 1024**3
"""No Vosk model unpacks to more (the largest English one is about 2.7 GB)."""
FREE_SPACE_MARGIN = 64 * 1024**2
_DOWNLOADS = ".downloads"
# Letters, digits, spaces, '.', '_', '-' ...: anything that is one plain directory name on every
# system. No separators, no ':' (Windows drives and streams), no control characters, and no
# leading '.', which is reserved for the store's own hidden folders.
_NAME_RE = re.compile(r"[^./\\:\x00-\x1f][^/\\:\x00-\x1f]{0,127}")
_CONTENT_RANGE_RE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED_RANGE_RE = re.compile(r"bytes\s+\*/(\d+)")


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
    for entry in CATALOG:
        if entry.name == name:
            return entry
    known = ", ".join(entry.name for entry in CATALOG)
    raise InputError(
        f"unknown Vosk model {name!r}; known models: {known} (to install another model, give "
        f"its download URL or import a zip downloaded from {MODELS_PAGE})"
    )


def _catalog_entry(name: str) -> CatalogEntry | None:
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
    """A size for people, in decimal units like the upstream page: ``"40 MB"``, ``"1.8 GB"``."""
    for unit, scale in (("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if num_bytes >= scale:
            value = num_bytes / scale
            return f"{value:.1f} {unit}" if value < 10 else f"{value:.0f} {unit}"
    return f"{num_bytes} B"


def is_vosk_model_dir(path: str | Path) -> bool:
    """Whether ``path`` is a Vosk model folder.

    A model has its acoustic model in ``am/final.mdl`` and its configuration in ``conf/``
    (``model.conf``, ``mfcc.conf``); the decoding graph is in ``graph/`` (or a top-level
    ``HCLG.fst`` in some older models). Lenient on purpose: ``am/final.mdl`` plus any one of
    ``conf/``, ``graph/`` or ``HCLG.fst`` is enough. Nothing is loaded.
    """
    path = Path(path)
    if not (path / "am" / "final.mdl").is_file():
        return False
    return (path / "conf").is_dir() or (path / "graph").is_dir() or (path / "HCLG.fst").is_file()


def _missing_parts(path: Path) -> str:
    """What :func:`is_vosk_model_dir` did not find in ``path``, for error messages."""
    if not (path / "am" / "final.mdl").is_file():
        return "no am/final.mdl"
    return "am/final.mdl but no conf/ or graph/ folder"


def _find_model_dir(top: Path, name: str) -> Path | None:
    """The model folder in an unpacked archive: ``top`` itself or one of its subfolders.

    Upstream zips hold a single folder named like the model; some hold the files at the top.
    A subfolder called ``name`` is preferred; hidden and ``__MACOSX`` folders are skipped.
    """
    if is_vosk_model_dir(top):
        return top
    subdirs = sorted(
        (p for p in top.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))),
        key=lambda p: (p.name != name, p.name),
    )
    return next((p for p in subdirs if is_vosk_model_dir(p)), None)


def _check_name(name: str) -> str:
    """``name`` if it is a safe folder name for the store.

    Raises:
        InputError: ``name`` is empty, too long, hidden, or has a path separator or ``:``.
    """
    if not _NAME_RE.fullmatch(name) or name.strip() != name:
        raise InputError(
            f"{name!r} cannot be a model name: use one plain folder name (letters, digits, '.', "
            "'_', '-'; not starting with '.', no '/', '\\' or ':', at most 128 characters)"
        )
    return name


def _unsafe_member(member: str) -> bool:
    """Whether a zip member name is absolute or climbs out of the target folder."""
    normalized = member.replace("\\", "/")
    if normalized.startswith("/") or PureWindowsPath(member).drive:
        return True
    return ".." in PurePosixPath(normalized).parts


def _tree_size(path: Path) -> int:
    total = 0
    for item in path.rglob("*"):
        try:
            if item.is_file():
                total += item.stat().st_size
        except OSError:
            continue
    return total


def _content_length(headers: Message) -> int | None:
    value = headers.get("Content-Length")
    try:
        length = int(value) if value is not None else None
    except ValueError:
        return None
    return length if length is not None and length >= 0 else None


def _validator(headers: Message) -> str | None:
    """What to send as ``If-Range`` when resuming: a strong ETag, else Last-Modified."""
    etag = headers.get("ETag")
    if etag and not etag.startswith("W/"):
        return str(etag)
    modified = headers.get("Last-Modified")
    return str(modified) if modified else None


def _reason(exc: BaseException) -> str:
    """A short description of a network error."""
    if isinstance(exc, urllib.error.URLError) and not isinstance(exc, urllib.error.HTTPError):
        reason = exc.reason
        return str(reason) if not isinstance(reason, BaseException) else _reason(reason)
    if isinstance(exc, TimeoutError):
        return "the connection timed out"
    if isinstance(exc, http.client.IncompleteRead):
        return "the connection ended early"
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class _Interrupted(Exception):
    """One download attempt failed in a way worth retrying (resuming where possible)."""


@dataclass(frozen=True)
class InstalledModel:
    """A model found in the store.

    Attributes:
        name: Folder name, which is the model's name.
        path: The model folder.
        size_bytes: Total size of its files on disk.
        entry: The catalogue entry of the same name, or ``None`` for other models.
    """

    name: str
    path: Path
    size_bytes: int
    entry: CatalogEntry | None


def default_store_root() -> Path:
    """Where downloaded Vosk models go: ``models/vosk`` in the user data directory."""
    return user_data_dir() / "models" / "vosk"


class ModelStore:
    """The folder of installed Vosk models, one subfolder per model.

    Downloads and imports go through hidden folders inside the store (``.downloads/`` for
    partial downloads, ``.tmp-NAME-*`` while unpacking or copying), so the final step is a
    rename within one file system, and a model folder either is complete or does not exist.
    Installing the same model from two processes at once is not supported.

    Args:
        root: The store folder; the user data directory's ``models/vosk`` by default. Created
            when the first model is installed.
        retry_delay: Seconds to wait before the first automatic retry of a failed download; the
            wait doubles on each further retry.
    """

    def __init__(self, root: Path | None = None, *, retry_delay: float = 1.0) -> None:
        self.root = Path(root) if root is not None else default_store_root()
        self.retry_delay = retry_delay

    def installed(self) -> list[InstalledModel]:
        """The installed models, sorted by name; other files and hidden folders are ignored."""
        if not self.root.is_dir():
            return []
        models = []
        for path in sorted(self.root.iterdir()):
            if path.name.startswith(".") or not is_vosk_model_dir(path):
                continue
            models.append(
                InstalledModel(path.name, path, _tree_size(path), _catalog_entry(path.name))
            )
        return models

    def path_of(self, name: str) -> Path:
        """The folder of the installed model ``name``.

        Raises:
            InputError: ``name`` is not a plain folder name.
            ModelNotFound: No such model is installed.
        """
        path = self.root / _check_name(name)
        if not is_vosk_model_dir(path):
            raise ModelNotFound(
                f"Vosk model {name} is not installed (looked in {self.root}); download it with "
                f"`dictate models download {name}`, or see `dictate models list`"
            )
        return path

    def download(
        self,
        name: str,
        *,
        url: str | None = None,
        progress: ProgressCallback | None = None,
        cancel: threading.Event | None = None,
        retries: int = 3,
        timeout: float = 30.0,
    ) -> Path:
        """Download, check and install a model; return its folder.

        The zip is written to ``.downloads/NAME.zip.part`` in the store. An interrupted
        download is resumed with an HTTP range request, both within this call (up to
        ``retries`` automatic retries) and by a later call, since the partial file is kept
        after a network failure. A server that does not support ranges sends the whole file
        again and the download starts over. The finished file must have the size the server
        announced, and it is unpacked with CRC checks before the model is renamed into place.

        Args:
            name: Model name; the installed folder's name. Must be in :data:`CATALOG` unless
                ``url`` is given.
            url: Download from here instead of the catalogue (mirrors, tests).
            progress: Called as ``progress(bytes_done, total)`` after every chunk, from the
                calling thread; ``total`` is ``None`` if the server does not announce a size.
                ``bytes_done`` restarts from 0 if the download has to start over.
            cancel: When set (from any thread), the download stops at the next chunk, the
                partial file is deleted and :class:`DownloadCancelled` is raised.
            retries: Automatic retries after a network failure within this call.
            timeout: Seconds without network activity before an attempt fails.

        Returns:
            The installed model's folder, ``root / name``.

        Raises:
            InputError: Bad name or URL, or the model is already installed.
            DownloadError: The server refused, the network failed ``retries + 1`` times, the
                size did not match, or the archive is corrupt or holds no Vosk model.
            DownloadCancelled: ``cancel`` was set.
        """
        _check_name(name)
        source = url if url is not None else download_url(name)
        if urllib.parse.urlsplit(source).scheme not in ("http", "https"):
            raise InputError(f"cannot download {source!r}: only http:// and https:// URLs work")
        if retries < 0:
            raise ValueError(f"retries must be >= 0, got {retries}")
        self._ensure_absent(name)
        self.root.mkdir(parents=True, exist_ok=True)
        self.cleanup()
        downloads = self.root / _DOWNLOADS
        downloads.mkdir(exist_ok=True)
        part = downloads / f"{name}.zip.part"
        try:
            self._fetch(source, part, progress, cancel, retries, timeout)
            try:
                return self._install_zip(
                    part,
                    name,
                    label=source,
                    error=DownloadError,
                    hint="it was deleted; try the download again",
                    cancel=cancel,
                )
            finally:
                _discard(part)
        except DownloadCancelled:
            _discard(part)
            raise
        finally:
            with contextlib.suppress(OSError):  # fails if a partial download is kept
                downloads.rmdir()

    def import_path(self, path: str | Path, name: str | None = None) -> Path:
        """Install a model from a local folder (copied) or a local zip (unpacked).

        Args:
            path: A Vosk model folder, or a zip such as the ones on the upstream page.
            name: Installed folder name; by default the folder's name or the zip's stem.

        Returns:
            The installed model's folder.

        Raises:
            InputError: ``path`` is missing, is neither a folder nor a zip, is not a Vosk
                model or a zip holding one, or the model is already installed.
        """
        source = Path(path).expanduser()
        if not source.exists():
            raise InputError(
                f"{source} does not exist; give a Vosk model folder or a .zip from {MODELS_PAGE}"
            )
        if source.is_dir():
            if not is_vosk_model_dir(source):
                inner = _find_model_dir(source, "")
                suggestion = (
                    f"did you mean {inner}?"
                    if inner is not None
                    else "give the folder that contains am/ and conf/ (after unzipping, the "
                    "one named like vosk-model-...)"
                )
                raise InputError(
                    f"{source} is not a Vosk model folder ({_missing_parts(source)}); {suggestion}"
                )
            return self._import_dir(source, _check_name(name or source.resolve().name))
        if source.is_file() and (source.suffix.lower() == ".zip" or zipfile.is_zipfile(source)):
            name = _check_name(name or source.stem)
            self._ensure_absent(name)
            self.root.mkdir(parents=True, exist_ok=True)
            self.cleanup()
            return self._install_zip(
                source,
                name,
                label=str(source),
                error=InputError,
                hint=f"download it again from {MODELS_PAGE}",
                cancel=None,
            )
        raise InputError(
            f"{source} is neither a folder nor a .zip file; give a Vosk model folder or a .zip "
            f"from {MODELS_PAGE}"
        )

    def remove(self, name: str) -> None:
        """Delete the installed model ``name``.

        The folder is first renamed to a hidden one, so an interrupted removal never leaves a
        half-deleted model that looks installed.

        Raises:
            InputError: ``name`` is not a plain folder name.
            ModelNotFound: No such model is installed.
        """
        path = self.path_of(name)
        trash = Path(tempfile.mkdtemp(prefix=f"{_TMP_PREFIX}{name}-", dir=self.root))
        try:
            os.rename(path, trash / name)
        except OSError as exc:
            shutil.rmtree(trash, ignore_errors=True)
            raise ModelError(f"could not remove {path}: {exc}; is it in use?") from exc
        shutil.rmtree(trash, ignore_errors=True)
        if trash.exists():
            log.warning("could not delete all of %s; the next install will retry", trash)
        log.info("removed Vosk model %s from %s", name, self.root)

    def cleanup(self, older_than: float = STALE_SECONDS) -> None:
        """Delete hidden temporary folders (``.tmp-*``) left in the store by a crash.

        Args:
            older_than: Only folders not modified for this many seconds are deleted, so an
                install running in another process is left alone.
        """
        if not self.root.is_dir():
            return
        now = time.time()
        for path in self.root.iterdir():
            if not path.name.startswith(_TMP_PREFIX):
                continue
            try:
                age = now - path.stat().st_mtime
            except OSError:
                continue
            if age >= older_than and path.is_dir():
                log.info("deleting %s, left by an interrupted install", path)
                shutil.rmtree(path, ignore_errors=True)

    def _ensure_absent(self, name: str) -> None:
        target = self.root / name
        if is_vosk_model_dir(target):
            raise InputError(
                f"Vosk model {name} is already installed at {target}; remove it first with "
                f"`dictate models remove {name}`"
            )
        if os.path.lexists(target):
            raise InputError(
                f"{target} already exists and is not a Vosk model; delete or move it first"
            )

    def _import_dir(self, source: Path, name: str) -> Path:
        self._ensure_absent(name)
        self.root.mkdir(parents=True, exist_ok=True)
        self.cleanup()
        inside = source.resolve()
        total = 0
        for folder, dirs, files in os.walk(source):
            for entry in (*dirs, *files):
                path = Path(folder) / entry
                if path.is_symlink() and not path.resolve().is_relative_to(inside):
                    raise InputError(
                        f"{path} is a link to {path.resolve()}, outside {source}; refusing to copy "
                        "files from outside the model folder (copy the real files into it)"
                    )
            total += sum((Path(folder) / f).stat().st_size for f in files)
        self._check_space(total, str(source), InputError)
        tmp = Path(tempfile.mkdtemp(prefix=f"{_TMP_PREFIX}{name}-", dir=self.root))
        try:
            copied = tmp / name
            try:
                shutil.copytree(source, copied)
            except OSError as exc:
                raise InputError(f"could not copy {source} into {self.root}: {exc}") from exc
            return self._move_into_place(copied, name, str(source), InputError)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _check_space(self, total: int, label: str, error: type[DictateError]) -> None:
        """Refuse a model larger than :data:`MAX_MODEL_BYTES` (a zip bomb) or than the free
        space in the store (with room to spare), before anything is written."""
        if total > MAX_MODEL_BYTES:
            raise error(
                f"{label} unpacks to {format_size(total)}, more than any Vosk model "
                f"({format_size(MAX_MODEL_BYTES)}); refusing to install it"
            )
        free = shutil.disk_usage(self.root).free
        if total + FREE_SPACE_MARGIN > free:
            raise error(
                f"{label} needs {format_size(total)} but {self.root} has only "
                f"{format_size(free)} free; free some space and try again"
            )

    def _move_into_place(
        self, model_dir: Path, name: str, label: str, error: type[DictateError]
    ) -> Path:
        target = self.root / name
        self._ensure_absent(name)
        try:
            os.rename(model_dir, target)
        except OSError as exc:
            raise error(f"could not install {label} as {target}: {exc}") from exc
        log.info("installed Vosk model %s at %s", name, target)
        return target

    def _install_zip(
        self,
        archive: Path,
        name: str,
        *,
        label: str,
        error: type[DictateError],
        hint: str,
        cancel: threading.Event | None,
    ) -> Path:
        """Unpack ``archive`` into a hidden folder, find the model and rename it into place.

        Every member's CRC is checked while unpacking (reading a member to its end checks it),
        which is what :meth:`zipfile.ZipFile.testzip` does, without reading a 1.8 GB archive
        twice.
        """
        tmp = Path(tempfile.mkdtemp(prefix=f"{_TMP_PREFIX}{name}-", dir=self.root))
        try:
            try:
                with zipfile.ZipFile(archive) as zf:
                    members = zf.infolist()
                    for info in members:
                        if _unsafe_member(info.filename):
                            raise error(
                                f"{label} contains the unsafe path {info.filename!r} (absolute "
                                "or with '..'); refusing to unpack it"
                            )
                    # zipfile never writes more than a member's declared size (and checks its
                    # CRC), so the declared sizes bound what unpacking can write.
                    self._check_space(sum(i.file_size for i in members), label, error)
                    for info in members:
                        if cancel is not None and cancel.is_set():
                            raise DownloadCancelled(
                                f"download of {name} cancelled; nothing was installed"
                            )
                        zf.extract(info, tmp)
            except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError) as exc:
                raise error(f"the archive {label} is corrupt ({exc}); {hint}") from exc
            except RuntimeError as exc:  # encrypted members
                raise error(f"cannot unpack {label}: {exc}") from exc
            except OSError as exc:
                raise error(f"could not unpack {label} into {self.root}: {exc}") from exc
            model_dir = _find_model_dir(tmp, name)
            if model_dir is None:
                raise error(
                    f"{label} is not a Vosk model: no folder in it has am/final.mdl and conf/"
                )
            return self._move_into_place(model_dir, name, label, error)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _fetch(
        self,
        url: str,
        part: Path,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        retries: int,
        timeout: float,
    ) -> None:
        """Download ``url`` into ``part``, resuming and retrying after network failures."""
        failures = 0
        while True:
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled(f"download of {url} cancelled; nothing was installed")
            try:
                self._fetch_once(url, part, progress, cancel, timeout)
                return
            except _Interrupted as exc:
                failures += 1
                if failures > retries:
                    kept = part.stat().st_size if part.exists() else 0
                    advice = (
                        f"{kept} bytes are kept in {part}; run the same download again to resume"
                        if kept
                        else "check the internet connection and try again"
                    )
                    attempts = "1 attempt" if failures == 1 else f"{failures} attempts"
                    raise DownloadError(
                        f"could not download {url} ({attempts}): {exc}; {advice}"
                    ) from exc
                delay = self.retry_delay * 2 ** (failures - 1)
                log.warning("download of %s interrupted (%s); retrying in %.1f s", url, exc, delay)
                if cancel is not None:
                    cancel.wait(delay)
                elif delay > 0:
                    time.sleep(delay)

    def _fetch_once(
        self,
        url: str,
        part: Path,
        progress: ProgressCallback | None,
        cancel: threading.Event | None,
        timeout: float,
    ) -> None:
        """One HTTP request: resume or start ``part``, and read until the body ends.

        Raises:
            _Interrupted: A failure worth retrying; ``part`` keeps what was received.
        """
        meta_path = _meta_path(part)
        have, meta = _partial_state(part, url)
        headers = {"User-Agent": f"dictate/{__version__}", "Accept-Encoding": "identity"}
        if have:
            headers["Range"] = f"bytes={have}-"
            if isinstance(meta.get("validator"), str):
                headers["If-Range"] = meta["validator"]
            log.info("resuming download of %s at byte %d", url, have)
        else:
            log.info("downloading %s to %s", url, part)
        request = urllib.request.Request(url, headers=headers)
        try:
            response = urllib.request.urlopen(request, timeout=timeout)
        except urllib.error.HTTPError as exc:
            exc.close()
            if exc.code == 416 and have:
                match = _UNSATISFIED_RANGE_RE.fullmatch(exc.headers.get("Content-Range", ""))
                if match and int(match.group(1)) == have:
                    return  # an earlier call got every byte but stopped before unpacking
                _discard(part)
                raise _Interrupted(f"the server could not resume at byte {have}") from exc
            if exc.code in _RETRY_STATUS:
                raise _Interrupted(f"HTTP {exc.code} {exc.reason}") from exc
            _discard(part)
            raise DownloadError(
                f"{url} answered HTTP {exc.code} {exc.reason}; check the model name "
                "(`dictate models list`) or the URL"
            ) from exc
        except (urllib.error.URLError, http.client.HTTPException, OSError) as exc:
            raise _Interrupted(_reason(exc)) from exc
        with response:
            status = response.status
            if status == 206 and have:
                match = _CONTENT_RANGE_RE.fullmatch(response.headers.get("Content-Range", ""))
                if match is None or int(match.group(1)) != have:
                    _discard(part)
                    raise _Interrupted("the server resumed at the wrong place; starting over")
                length = _content_length(response.headers)
                if match.group(3) != "*":
                    total: int | None = int(match.group(3))
                else:
                    total = have + length if length is not None else None
                if meta.get("total") is not None and total is not None and meta["total"] != total:
                    _discard(part)
                    raise _Interrupted("the file on the server changed; starting over")
                mode = "ab"
            elif status == 200:
                if have:
                    log.info("%s sent the whole file again; starting over", url)
                have = 0
                total = _content_length(response.headers)
                meta = {"url": url, "validator": _validator(response.headers), "total": total}
                try:
                    meta_path.write_text(json.dumps(meta), encoding="utf-8")
                except OSError as exc:
                    raise DownloadError(f"could not write {meta_path}: {exc}") from exc
                mode = "wb"
            else:
                _discard(part)
                raise DownloadError(f"{url} answered HTTP {status} unexpectedly; try again later")
            done = _copy_body(response, part, mode, have, total, progress, cancel, url)
        if total is not None and done < total:
            raise _Interrupted(f"downloaded {done} bytes of {total} before the connection ended")
        if total is not None and done > total:
            _discard(part)
            raise DownloadError(
                f"downloaded {done} bytes of {total} from {url}: more than the server announced; "
                "the partial file was deleted, try again"
            )


def _meta_path(part: Path) -> Path:
    """The file that records where a partial download came from."""
    return part.with_name(part.name + ".json")


def _partial_state(part: Path, url: str) -> tuple[int, dict[str, Any]]:
    """Bytes already downloaded from ``url`` and their record; 0 if there is nothing to resume.

    A partial file without a record, or from another URL, is deleted rather than resumed.
    """
    if not part.exists():
        _meta_path(part).unlink(missing_ok=True)
        return 0, {}
    try:
        meta = json.loads(_meta_path(part).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        meta = None
    if not isinstance(meta, dict) or meta.get("url") != url:
        log.info("discarding %s: it is not a partial download of %s", part, url)
        _discard(part)
        return 0, {}
    return part.stat().st_size, meta


def _copy_body(
    response: http.client.HTTPResponse | IO[bytes],
    part: Path,
    mode: str,
    have: int,
    total: int | None,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    url: str,
) -> int:
    """Append (``"ab"``) or write (``"wb"``) the response body to ``part``; bytes now in it."""
    done = have
    try:
        with part.open(mode) as file:
            if progress is not None:
                progress(done, total)
            while True:
                if cancel is not None and cancel.is_set():
                    raise DownloadCancelled(f"download of {url} cancelled; nothing was installed")
                try:
                    chunk = response.read(CHUNK_SIZE)
                except (http.client.HTTPException, OSError) as exc:
                    raise _Interrupted(_reason(exc)) from exc
                if not chunk:
                    return done
                file.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    except OSError as exc:
        raise DownloadError(
            f"could not write {part}: {exc}; free some disk space and run the same download "
            "again to resume"
        ) from exc


def _discard(part: Path) -> None:
    """Delete a partial download and its record."""
    part.unlink(missing_ok=True)
    _meta_path(part).unlink(missing_ok=True)


def _check_model_path(path: Path, source: str, fix: str) -> Path:
    if not path.exists():
        raise ModelNotFound(f"{source}: {path} does not exist; {fix}")
    if not is_vosk_model_dir(path):
        inner = _find_model_dir(path, "") if path.is_dir() else None
        where = f"did you mean {inner}? " if inner is not None else ""
        detail = _missing_parts(path) if path.is_dir() else "not a folder"
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
        if not path.exists() and isinstance(explicit, str) and _NAME_RE.fullmatch(explicit):
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
