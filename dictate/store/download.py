"""A resumable, cancellable HTTP download of one URL into a ``.part`` file.

:func:`fetch` writes the body to ``NAME.part`` and records where it came from in
``NAME.part.json`` (the URL, the server's validator and the announced size). After a network
failure the partial file is kept, and the next attempt, in the same call or a later one, asks for
the rest with ``Range: bytes=N-`` and ``If-Range``, so a file that changed on the server is sent
whole again instead of being spliced onto the old bytes. The finished file has exactly the size
the server announced; checking its content is the caller's job (the store unpacks it with CRC
checks). Sizes are checked before a byte is written: an announced size over the caller's limit is
refused, the caller may refuse one the disk has no room for, and a body that grows past the
limit (no size announced, or more sent than announced) is stopped there.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import requests
import urllib3.exceptions

from dictate import __version__
from dictate.errors import DownloadCancelled, DownloadError
from dictate.store.catalog import format_size

log = logging.getLogger("dictate.models")

CHUNK_SIZE = 256 * 1024
"""The most bytes one read returns; progress and cancellation are checked after each read."""

ProgressCallback = Callable[[int, int | None], None]
"""``progress(bytes_done, total)``; ``total`` is ``None`` when the server does not say."""

SpaceCheck = Callable[[int, int], None]
"""``check_space(bytes_to_come, total)``: raises :class:`DownloadError` to refuse a download."""

_CHECK_ADDRESS = "check the model name (`dictate models list`) or the URL"

_RETRY_STATUS = frozenset({408, 425, 429, 500, 502, 503, 504})
_CONTENT_RANGE_RE = re.compile(r"bytes\s+(\d+)-(\d+)/(\d+|\*)")
_UNSATISFIED_RANGE_RE = re.compile(r"bytes\s+\*/(\d+)")
_ENDED_EARLY = "the connection ended early"
# What a broken connection can raise while the raw body is read: urllib3 wraps socket errors and
# short bodies in ProtocolError and timeouts in ReadTimeoutError (both its HTTPError); the others
# are for anything that slips through unwrapped.
_BODY_ERRORS = (urllib3.exceptions.HTTPError, http.client.HTTPException, OSError)


class _Interrupted(Exception):
    """One download attempt failed in a way worth retrying (resuming where possible)."""


class _Oversized(Exception):
    """The body grew past its limit; the message says how. Raised while the file is still
    open, so that :func:`_fetch_once` deletes it once it is closed."""


def fetch(
    url: str,
    part: Path,
    *,
    progress: ProgressCallback | None = None,
    cancel: threading.Event | None = None,
    retries: int = 3,
    timeout: float = 30.0,
    retry_delay: float = 1.0,
    on_retry: Callable[[str], None] | None = None,
    max_bytes: int | None = None,
    check_space: SpaceCheck | None = None,
) -> None:
    """Download ``url`` into ``part``, resuming and retrying after network failures.

    A partial ``part`` left by an earlier call for the same URL is resumed; one from another
    URL, or without its record, is deleted first. After a network failure the file is kept for
    a later call to resume.

    Args:
        url: An ``http://`` or ``https://`` URL.
        part: Where the body goes; ``part`` with ``.json`` appended records its origin.
        progress: Called as ``progress(bytes_done, total)`` when an attempt starts and after
            every chunk, from the calling thread; ``total`` is ``None`` if the server does not
            announce a size. ``bytes_done`` restarts from 0 if the download has to start over.
        cancel: When set (from any thread), the download stops at the next chunk or during the
            wait before a retry, and :class:`DownloadCancelled` is raised; ``part`` is left for
            the caller to delete or keep.
        retries: Automatic retries after a network failure or a temporary server error.
        timeout: Seconds without network activity before an attempt fails.
        retry_delay: Seconds to wait before the first retry; the wait doubles on each further
            retry.
        on_retry: Called before each wait for a retry with what failed and when the next
            attempt comes ("the connection timed out; attempt 2 of 4 in 1 s"), so a window
            can say it instead of a progress bar that seems merely slow.
        max_bytes: The largest file accepted. A larger announced size is refused before a
            byte is written (a server announcing a petabyte would otherwise fill the disk),
            and a body that grows past it without having announced a size is stopped there;
            either way ``part`` is deleted.
        check_space: Called as ``check_space(bytes_to_come, total)`` when the server has
            announced the size, before a byte is written (``bytes_to_come`` is less than
            ``total`` when resuming); it raises :class:`DownloadError` to refuse, and ``part``
            is kept for a later call to resume.

    Raises:
        DownloadError: The server refused, redirects in a loop, announced or sent more than
            ``max_bytes``, every attempt failed, the body was longer than announced, ``part``
            could not be written, or ``check_space`` refused.
        DownloadCancelled: ``cancel`` was set.
    """
    failures = 0
    # Our own retry loop, not urllib3's Retry (requests' adapters retry nothing by default): a
    # retry there cannot resume a half-read body with a new Range header, and its sleeps
    # cannot be cancelled.
    with requests.Session() as session:
        while True:
            if cancel is not None and cancel.is_set():
                raise DownloadCancelled(f"download of {url} cancelled; nothing was installed")
            try:
                _fetch_once(session, url, part, progress, cancel, timeout, max_bytes, check_space)
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
                delay = retry_delay * 2 ** (failures - 1)
                log.warning("download of %s interrupted (%s); retrying in %.1f s", url, exc, delay)
                if on_retry is not None:
                    on_retry(f"{exc}; attempt {failures + 1} of {retries + 1} in {delay:g} s")
                if cancel is not None:
                    cancel.wait(delay)
                elif delay > 0:
                    time.sleep(delay)


def discard(part: Path) -> None:
    """Delete a partial download and its record."""
    part.unlink(missing_ok=True)
    _meta_path(part).unlink(missing_ok=True)


def _fetch_once(
    session: requests.Session,
    url: str,
    part: Path,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    timeout: float,
    max_bytes: int | None = None,
    check_space: SpaceCheck | None = None,
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
    try:
        response = session.get(url, headers=headers, stream=True, timeout=(timeout, timeout))
    except requests.TooManyRedirects as exc:
        # Not retried, and not the network's fault: the same request loops the same way again.
        raise DownloadError(_redirect_loop(url, exc)) from exc
    except (requests.RequestException, OSError) as exc:
        raise _Interrupted(_reason(exc)) from exc
    with response:
        status = response.status_code
        if not 200 <= status < 300:
            if status == 416 and have:
                match = _UNSATISFIED_RANGE_RE.fullmatch(response.headers.get("Content-Range", ""))
                if match and int(match.group(1)) == have:
                    return  # an earlier call got every byte but stopped before unpacking
                discard(part)
                raise _Interrupted(f"the server could not resume at byte {have}")
            if status in _RETRY_STATUS:
                raise _Interrupted(f"HTTP {status} {response.reason}")
            discard(part)
            raise DownloadError(
                f"{url} answered HTTP {status} {response.reason}; check the model name "
                "(`dictate models list`) or the URL"
            )
        if status == 206 and have:
            match = _CONTENT_RANGE_RE.fullmatch(response.headers.get("Content-Range", ""))
            if match is None or int(match.group(1)) != have:
                discard(part)
                raise _Interrupted("the server resumed at the wrong place; starting over")
            length = _content_length(response.headers)
            if match.group(3) != "*":
                total: int | None = int(match.group(3))
            else:
                total = have + length if length is not None else None
            if meta.get("total") is not None and total is not None and meta["total"] != total:
                discard(part)
                raise _Interrupted("the file on the server changed; starting over")
            _check_size(url, part, have, total, max_bytes, check_space)
            mode = "ab"
        elif status == 200:
            if have:
                log.info("%s sent the whole file again; starting over", url)
            have = 0
            total = _content_length(response.headers)
            _check_size(url, part, have, total, max_bytes, check_space)
            meta = {"url": url, "validator": _validator(response.headers), "total": total}
            try:
                meta_path.write_text(json.dumps(meta), encoding="utf-8")
            except OSError as exc:
                raise DownloadError(f"could not write {meta_path}: {exc}") from exc
            mode = "wb"
        else:
            discard(part)
            raise DownloadError(f"{url} answered HTTP {status} unexpectedly; try again later")
        try:
            done = _copy_body(response, part, mode, have, total, max_bytes, progress, cancel, url)
        except _Oversized as exc:
            discard(part)
            raise DownloadError(str(exc)) from None
    if total is not None and done < total:
        raise _Interrupted(_short_body(done, total))


def _check_size(
    url: str,
    part: Path,
    have: int,
    total: int | None,
    max_bytes: int | None,
    check_space: SpaceCheck | None,
) -> None:
    """Refuse an announced size over ``max_bytes`` (deleting ``part``: it is a piece of a file
    that is not wanted), then ask ``check_space`` about the bytes still to come.

    Called before any byte of the body, or the record of a new download, is written.
    """
    if total is None:
        return  # the body is checked against max_bytes as it comes
    if max_bytes is not None and total > max_bytes:
        discard(part)
        raise DownloadError(
            f"refusing to download {url}: the server announces {format_size(total)} "
            f"({total:,} bytes), more than any Vosk model ({format_size(max_bytes)}); "
            f"{_CHECK_ADDRESS}"
        )
    if check_space is not None:
        check_space(total - have, total)


def _redirect_loop(url: str, exc: requests.TooManyRedirects) -> str:
    """What to say when ``url`` redirects too often: a server problem, not the network's."""
    last = exc.response.url if exc.response is not None else url
    redirects = len(exc.response.history) if exc.response is not None else 0
    count = f"{redirects} redirects" if redirects else str(exc).rstrip(".").lower()
    host = urllib.parse.urlsplit(last).netloc or url
    return (
        f"the server at {host} redirects in a loop ({count}) when asked for {url}; the download "
        f"address may be wrong or the server misconfigured: try again later, or download the "
        "file by hand and install it with `dictate models import FILE`"
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
        discard(part)
        return 0, {}
    return part.stat().st_size, meta


def _copy_body(
    response: requests.Response,
    part: Path,
    mode: str,
    have: int,
    total: int | None,
    max_bytes: int | None,
    progress: ProgressCallback | None,
    cancel: threading.Event | None,
    url: str,
) -> int:
    """Append (``"ab"``) or write (``"wb"``) the response body to ``part``; bytes now in it.

    The body is read raw, as the bytes on the wire: ``Range`` offsets and ``Content-Length``
    count those, so nothing may decode them (``iter_content`` would undo a ``Content-Encoding``
    that a server sent despite ``Accept-Encoding: identity``).

    Raises:
        _Oversized: The body went past ``total`` or ``max_bytes``; the chunk that would have
            was not written.
    """
    done = have
    read = _chunk_reader(response)
    cancelled = f"download of {url} cancelled; nothing was installed"
    try:
        with part.open(mode) as file, _abort_on(cancel, response):
            if progress is not None:
                progress(done, total)
            while True:
                if cancel is not None and cancel.is_set():
                    raise DownloadCancelled(cancelled)
                try:
                    chunk = read()
                except _BODY_ERRORS as exc:
                    if cancel is not None and cancel.is_set():  # the cancel closed the socket
                        raise DownloadCancelled(cancelled) from exc
                    reason = _reason(exc)
                    if reason == _ENDED_EARLY and total is not None:
                        raise _Interrupted(_short_body(done, total)) from exc
                    received = f"{done} of {total} bytes" if total is not None else f"{done} bytes"
                    raise _Interrupted(f"{reason} after {received}") from exc
                if not chunk:
                    if cancel is not None and cancel.is_set():
                        raise DownloadCancelled(cancelled)
                    return done
                _check_growth(done + len(chunk), total, max_bytes, url)
                file.write(chunk)
                done += len(chunk)
                if progress is not None:
                    progress(done, total)
    except OSError as exc:
        raise DownloadError(
            f"could not write {part}: {exc}; free some disk space and run the same download "
            "again to resume"
        ) from exc


def _check_growth(size: int, total: int | None, max_bytes: int | None, url: str) -> None:
    """Stop a body about to grow to ``size`` past its announced ``total`` or past ``max_bytes``
    (a server that sends no size, or lies about it, must not fill the disk)."""
    if total is not None and size > total:
        raise _Oversized(
            f"downloaded {size} bytes of {total} from {url}: more than the server announced; "
            "the partial file was deleted, try again"
        )
    if max_bytes is not None and size > max_bytes:
        raise _Oversized(
            f"stopped downloading {url}: the server sent more than {format_size(max_bytes)} "
            f"without announcing a size, more than any Vosk model, and the partial file was "
            f"deleted; {_CHECK_ADDRESS}"
        )


def _chunk_reader(response: requests.Response) -> Callable[[], bytes]:
    """The next piece of the raw body, b"" at its end. Where urllib3 has ``read1`` (2.3 on),
    a piece is whatever has arrived, up to :data:`CHUNK_SIZE`: on a slow connection, progress
    and cancelling do not wait for a whole chunk (256 KB at 50 KB/s is five seconds)."""
    raw = response.raw
    if hasattr(raw, "read1"):
        return lambda: bytes(raw.read1(CHUNK_SIZE, decode_content=False))
    chunks: Iterator[bytes] = raw.stream(CHUNK_SIZE, decode_content=False)
    return lambda: next(chunks, b"")


@contextlib.contextmanager
def _abort_on(cancel: threading.Event | None, response: requests.Response) -> Iterator[None]:
    """While the body is read: once ``cancel`` is set, shut the connection's socket down, so a
    read blocked on a stalled server returns now instead of at the read timeout."""
    if cancel is None:
        yield
        return
    finished = threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if cancel.wait(0.1):
                sock = _socket_of(response)
                if sock is not None:
                    with contextlib.suppress(OSError):
                        sock.shutdown(socket.SHUT_RDWR)
                return

    watcher = threading.Thread(target=watch, name="dictate-download-cancel", daemon=True)
    watcher.start()
    try:
        yield
    finally:
        finished.set()
        watcher.join()


def _socket_of(response: requests.Response) -> socket.socket | None:
    """The socket the body is read from. urllib3's connection holds it while it may be reused;
    on a connection the server closes after the response (HTTP/1.0, ``Connection: close``)
    only the response's file object does (``http.client``'s buffered ``SocketIO``)."""
    raw = response.raw
    candidates = (
        getattr(getattr(raw, "connection", None), "sock", None),
        getattr(
            getattr(getattr(getattr(raw, "_fp", None), "fp", None), "raw", None), "_sock", None
        ),
    )
    return next((s for s in candidates if isinstance(s, socket.socket)), None)


def _short_body(done: int, total: int) -> str:
    """Why an attempt failed when the body ended before its announced size."""
    return f"downloaded {done} bytes of {total} before the connection ended"


def _content_length(headers: Mapping[str, str]) -> int | None:
    value = headers.get("Content-Length")
    try:
        length = int(value) if value is not None else None
    except ValueError:
        return None
    return length if length is not None and length >= 0 else None


def _validator(headers: Mapping[str, str]) -> str | None:
    """What to send as ``If-Range`` when resuming: a strong ETag, else Last-Modified."""
    etag = headers.get("ETag")
    if etag and not etag.startswith("W/"):
        return str(etag)
    modified = headers.get("Last-Modified")
    return str(modified) if modified else None


def _reason(exc: BaseException) -> str:
    """A short description of a network error, from the most telling exception in its chain.

    requests wraps urllib3's errors, which wrap the socket's, so the whole chain is searched: a
    socket error is its own text (``"Connection refused"``, ``"Connection reset by peer"``), else
    a timeout anywhere is ``"the connection timed out"``, a body cut short ``"the connection
    ended early"``, anything else its type and message.
    """
    chain = list(_causes(exc))
    # The socket's own error first: urllib3's NewConnectionError (connection refused, unknown
    # host) is a subclass of its ConnectTimeoutError.
    for error in chain:
        if isinstance(error, socket.gaierror):
            return f"the server's name could not be looked up ({error.strerror})"
        if isinstance(error, OSError) and not isinstance(error, TimeoutError) and error.strerror:
            return str(error.strerror)
    timeouts = (TimeoutError, requests.Timeout, urllib3.exceptions.TimeoutError)
    if any(isinstance(error, timeouts) for error in chain):
        return "the connection timed out"
    broken = (
        requests.exceptions.ChunkedEncodingError,
        urllib3.exceptions.ProtocolError,
        http.client.IncompleteRead,
    )
    if any(isinstance(error, broken) for error in chain):
        return _ENDED_EARLY
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it wraps (arguments, ``reason``, cause, context), once each."""
    queue = [exc]
    seen: set[int] = set()
    while queue:
        error = queue.pop(0)
        if id(error) in seen:
            continue
        seen.add(id(error))
        yield error
        wrapped = [*error.args, getattr(error, "reason", None), error.__cause__, error.__context__]
        queue.extend(item for item in wrapped if isinstance(item, BaseException))
