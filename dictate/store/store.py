"""The store of installed Vosk models: download, import, list and remove them.

Installed models live in the user data directory (``models/vosk/NAME``), one folder each, laid
out exactly as upstream ships them (``am/final.mdl``, ``conf/``, ``graph/``, ...).
:class:`ModelStore` downloads them (resumable, size-checked, cancellable; see
:mod:`dictate.store.download`), imports local folders or zips, lists and removes them. Every
install is unpacked or copied into a hidden temporary folder inside the store and renamed into
place as the very last step, so a crash or an error never leaves a half-installed model that
looks usable.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import shutil
import tempfile
import threading
import time
import urllib.parse
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from dictate.errors import (
    DictateError,
    DownloadCancelled,
    DownloadError,
    InputError,
    ModelNotFound,
)
from dictate.paths import user_data_dir
from dictate.store.catalog import (
    MODELS_PAGE,
    CatalogEntry,
    catalog_entry,
    download_url,
    format_size,
)
from dictate.store.folders import (
    TMP_PREFIX,
    _copy_size,
    _tree_size,
    _unsafe_member,
    check_name,
    find_model_dir,
    is_vosk_model_dir,
    missing_parts,
    remove_model_folder,
)

if TYPE_CHECKING:
    from dictate.store.download import ProgressCallback

log = logging.getLogger("dictate.models")

STALE_SECONDS = 3600.0
"""Age after which :meth:`ModelStore.cleanup` treats a hidden temporary folder as left by a crash.

Younger ones may belong to an install running in another process (the GUI and the command line
share the store), so they are left alone.
"""

_TMP_PREFIX = TMP_PREFIX
MAX_MODEL_BYTES = 8 * 1024**3
"""No Vosk model unpacks to more (the largest English one is about 2.7 GB)."""
FREE_SPACE_MARGIN = 64 * 1024**2
_DOWNLOADS = ".downloads"


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
                InstalledModel(path.name, path, _tree_size(path), catalog_entry(path.name))
            )
        return models

    def path_of(self, name: str) -> Path:
        """The folder of the installed model ``name``.

        Raises:
            InputError: ``name`` is not a plain folder name.
            ModelNotFound: No such model is installed.
        """
        path = self.root / check_name(name)
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
        on_retry: Callable[[str], None] | None = None,
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
            on_retry: Told what failed before each automatic retry (see
                :func:`dictate.store.download.fetch`).

        Returns:
            The installed model's folder, ``root / name``.

        Raises:
            InputError: Bad name or URL, or the model is already installed.
            DownloadError: The server refused, the network failed ``retries + 1`` times, the
                size did not match, the announced size is more than any model
                (:data:`MAX_MODEL_BYTES`) or than the store has room for, or the archive is
                corrupt or holds no Vosk model.
            DownloadCancelled: ``cancel`` was set.
        """
        # Imported here: requests takes a tenth of a second to import, and listing or resolving
        # models (the GUI's start, every transcription) never downloads.
        from dictate.store.download import discard, fetch

        check_name(name)
        source = url if url is not None else download_url(name)
        try:
            scheme = urllib.parse.urlsplit(source).scheme
        except ValueError as exc:  # e.g. an unclosed [ of an IPv6 address
            raise InputError(f"cannot download {source!r}: not a valid URL ({exc})") from exc
        if scheme not in ("http", "https"):
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
            fetch(
                source,
                part,
                progress=progress,
                cancel=cancel,
                retries=retries,
                timeout=timeout,
                retry_delay=self.retry_delay,
                on_retry=on_retry,
                max_bytes=MAX_MODEL_BYTES,
                check_space=lambda to_come, total: self._check_download_space(
                    name, source, to_come, total
                ),
            )
            try:
                installed = self._install_zip(
                    part,
                    name,
                    label=source,
                    error=DownloadError,
                    hint="it was deleted; try the download again",
                    cancel=cancel,
                )
            except DownloadError as exc:
                if isinstance(exc, DownloadCancelled) or not isinstance(exc.__cause__, OSError):
                    discard(part)  # cancelled, or the archive itself is bad
                    raise
                # This machine failed (disk full, unwritable store), not the archive: keep the
                # download, which the same command then installs without fetching it again.
                raise DownloadError(
                    f"{exc}; the download is kept in {part} and the same command installs it "
                    "without downloading it again"
                ) from exc
            # Only now: an interruption while unpacking (Ctrl+C) keeps what was received.
            discard(part)
            return installed
        except DownloadCancelled:
            discard(part)
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
        try:
            return self._import(source, name)
        except OSError as exc:  # a file that cannot be read (a broken link, no permission)...
            where = f" ({exc.filename})" if exc.filename else ""
            raise InputError(
                f"cannot import {source}: {exc.strerror or exc}{where}; nothing was installed"
            ) from exc

    def _import(self, source: Path, name: str | None) -> Path:
        if not source.exists():
            raise InputError(
                f"{source} does not exist; give a Vosk model folder or a .zip from {MODELS_PAGE}"
            )
        if source.is_dir():
            if not is_vosk_model_dir(source):
                inner = find_model_dir(source, "")
                suggestion = (
                    f"did you mean {inner}?"
                    if inner is not None
                    else "give the folder that contains am/ and conf/ (after unzipping, the "
                    "one named like vosk-model-...)"
                )
                raise InputError(
                    f"{source} is not a Vosk model folder ({missing_parts(source)}); {suggestion}"
                )
            return self._import_dir(source, check_name(name or source.resolve().name))
        if source.is_file() and (source.suffix.lower() == ".zip" or zipfile.is_zipfile(source)):
            name = check_name(name or source.stem)
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
        path = self.root / check_name(name)
        if not is_vosk_model_dir(path):
            raise ModelNotFound(
                f"Vosk model {name} is not installed (looked in {self.root}), so there is "
                "nothing to remove; `dictate models list` shows the installed ones"
            )
        remove_model_folder(path, f"Vosk model {name}")

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
        total = _copy_size(source)
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
            ) from OSError(errno.ENOSPC, "not enough free space", str(self.root))

    def _check_download_space(self, name: str, source: str, to_come: int, total: int) -> None:
        """Refuse a download the store has no room for, before a byte of it is written.

        Installing needs room for the rest of the archive and, while it is unpacked next to it,
        for the model, which is at least as big as the archive (its members are stored or
        compressed in it); :meth:`_check_space` checks the model's real size again before
        unpacking. A partial file already there is kept, so freeing space and running the same
        download again resumes it.
        """
        needed = to_come + total + FREE_SPACE_MARGIN
        free = shutil.disk_usage(self.root).free
        if needed <= free:
            return
        have = total - to_come
        kept = f" (the {format_size(have)} already downloaded are kept)" if have else ""
        raise DownloadError(
            f"not enough disk space for Vosk model {name}: {source} is {format_size(total)}, and "
            f"downloading and unpacking it needs about {format_size(needed)}, but {self.root} has "
            f"only {format_size(free)} free; free some space and run the same download "
            f"again{kept}"
        ) from OSError(errno.ENOSPC, "not enough free space", str(self.root))

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
            model_dir = find_model_dir(tmp, name)
            if model_dir is None:
                raise error(
                    f"{label} is not a Vosk model: no folder in it has am/final.mdl and conf/"
                )
            return self._move_into_place(model_dir, name, label, error)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
