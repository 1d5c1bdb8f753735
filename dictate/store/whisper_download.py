"""Downloading a catalogued Whisper model (:mod:`dictate.store.whisper_catalog`) into the store
(:mod:`dictate.store.whisper_models`): each file fetched with the resumable downloader, checked,
and the folder renamed into place once complete.

A download is built in ``models/whisper/.downloads/NAME/`` and renamed to ``models/whisper/NAME``
in one step, so a model folder in the store is always complete. This is the only module of the
Whisper store that opens a network connection.
"""

from __future__ import annotations

import contextlib
import errno
import json
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from dictate.errors import DownloadCancelled, DownloadError
from dictate.store.catalog import format_size
from dictate.store.store import FREE_SPACE_MARGIN, ModelStore
from dictate.store.whisper_catalog import (
    BASE_URL_ENV,
    WhisperEntry,
    find_whisper_entry,
    free_target,
    missing_model_files,
)
from dictate.store.whisper_models import default_whisper_root

if TYPE_CHECKING:
    from dictate.store.download import ProgressCallback

log = logging.getLogger("dictate.models")

MAX_FILE_BYTES = 4 * 1024**3
"""No file of a faster-whisper model is larger (large-v3's ``model.bin`` in float16 is 3.1 GB)."""

_DOWNLOADS = ".downloads"
# A refused request that another file name may answer; fetch() says "URL answered HTTP 404 ...".
_NOT_FOUND_RE = re.compile(r" answered HTTP 404\b")


class _TooLarge(DownloadError):
    """A file announced, or grew to, more than :data:`MAX_FILE_BYTES`; its part is deleted."""


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
    target = free_target(root, entry.name)
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
    missing = missing_model_files(folder)
    if missing:
        if "model.bin (it is empty)" in missing:
            (folder / "model.bin").unlink(missing_ok=True)
        raise DownloadError(
            f"the download of Whisper model {entry.name} is incomplete ({', '.join(missing)}); "
            "run the same download again"
        )
