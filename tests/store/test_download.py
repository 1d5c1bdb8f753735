"""Downloads from a real HTTP server on 127.0.0.1 (see ``model_server.py``): progress, resuming
with Range and If-Range, retries, timeouts, sizes, cancelling.

Every test is offline; the server can cut connections, send short bodies, stall, answer an
error status first, or change the file between two downloads.
"""

from __future__ import annotations

import errno
import threading
import time
from pathlib import Path

import pytest
from model_server import (
    LAST_MODIFIED,
    NAME,
    ServerState,
    etag_of,
    files_of,
    make_model,
    model_zip,
    new_store,
    serve,
    store_entries,
    zip_dir,
)

from dictate.errors import DownloadCancelled, DownloadError
from dictate.store.catalog import BASE_URL_ENV, find_entry
from dictate.store.folders import is_vosk_model_dir
from dictate.store.store import ModelStore

SMALL = "vosk-model-small-en-us-0.15"
TIMEOUT = 5.0


def cut_once(
    tmp_path: Path, http_server: tuple[str, ServerState], payload: int = 300_000
) -> tuple[bytes, str, ModelStore]:
    """A zipped model (data, URL) whose first response stops halfway, and an empty store."""
    data = model_zip(tmp_path, payload=payload)
    url = serve(http_server, data)
    http_server[1].cut_requests = 1
    return data, url, new_store(tmp_path)


def test_download_with_progress(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=700_000)
    url = serve(http_server, data)
    store = new_store(tmp_path)
    calls: list[tuple[int, int | None]] = []
    path = store.download(
        NAME, url=url, progress=lambda d, t: calls.append((d, t)), timeout=TIMEOUT
    )
    assert path == store.root / NAME
    assert files_of(path) == files_of(tmp_path / "src" / "model")
    assert len(calls) > 2
    assert calls[-1] == (len(data), len(data))
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)
    assert [p.name for p in store.root.iterdir()] == [NAME]  # no temporary files left
    assert [m.name for m in store.installed()] == [NAME]


def test_resume_after_cut_connection(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    data, url, store = cut_once(tmp_path, http_server, payload=500_000)
    calls: list[tuple[int, int | None]] = []
    store.download(NAME, url=url, progress=lambda d, t: calls.append((d, t)), timeout=TIMEOUT)
    assert http_server[1].requests == [
        (f"/{NAME}.zip", None),
        (f"/{NAME}.zip", f"bytes={len(data) // 2}-"),
    ]
    assert calls[-1] == (len(data), len(data))
    assert is_vosk_model_dir(store.root / NAME)
    assert not (store.root / ".downloads").exists()


def test_server_without_ranges_starts_over(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    _data, url, store = cut_once(tmp_path, http_server)
    http_server[1].ranges = False
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert len(http_server[1].requests) == 2
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")


def test_resume_from_earlier_call(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    data, url, store = cut_once(tmp_path, http_server)
    with pytest.raises(DownloadError, match="run the same download again to resume") as info:
        store.download(NAME, url=url, retries=0, timeout=TIMEOUT)
    assert f"downloaded {len(data) // 2} bytes of {len(data)}" in str(info.value)
    part = store.root / ".downloads" / f"{NAME}.zip.part"
    assert part.stat().st_size == len(data) // 2
    assert not (store.root / NAME).exists()

    store.download(NAME, url=url, retries=0, timeout=TIMEOUT)
    assert http_server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(data) // 2}-")
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")
    assert not part.exists()


def test_complete_partial_file_is_installed_without_downloading_again(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    data = model_zip(tmp_path)
    url = serve(http_server, data)
    store = new_store(tmp_path)

    def crash_at_the_end(done: int, total: int | None) -> None:
        if done == total:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.download(NAME, url=url, progress=crash_at_the_end, timeout=TIMEOUT)
    assert (store.root / ".downloads" / f"{NAME}.zip.part").stat().st_size == len(data)
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert http_server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(data)}-")  # answered 416
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")
    assert [p.name for p in store.root.iterdir()] == [NAME]


def test_partial_file_from_another_url_is_not_resumed(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    data = model_zip(tmp_path)
    url = serve(http_server, data)
    store = new_store(tmp_path)
    part = store.root / ".downloads" / f"{NAME}.zip.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"garbage from somewhere else")
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert http_server[1].requests == [(f"/{NAME}.zip", None)]
    assert is_vosk_model_dir(store.root / NAME)


def test_wrong_size(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path)
    url = serve(http_server, data)
    http_server[1].short_by = 10
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match=f"downloaded {len(data) - 10} bytes of {len(data)}"):
        store.download(NAME, url=url, retries=2, timeout=TIMEOUT)
    assert len(http_server[1].requests) == 3
    assert not (store.root / NAME).exists()
    assert not [p for p in store.root.iterdir() if p.name.startswith(".tmp-")]
    assert store.installed() == []


def test_http_404(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    url = http_server[0] + "/missing.zip"
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="404") as info:
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert url in str(info.value)
    assert len(http_server[1].requests) == 1  # not retried
    assert store_entries(store.root) == []


def test_connection_refused_keeps_nothing(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="check the internet connection") as info:
        store.download(NAME, url="http://127.0.0.1:9/x.zip", retries=1, timeout=TIMEOUT)
    assert "(2 attempts): Connection refused;" in str(info.value)
    assert store.installed() == []


def test_cancel(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=1_000_000)
    url = serve(http_server, data)
    store = new_store(tmp_path)
    cancel = threading.Event()

    def progress(done: int, total: int | None) -> None:
        if 0 < done < len(data):
            cancel.set()

    with pytest.raises(DownloadCancelled):
        store.download(NAME, url=url, progress=progress, cancel=cancel, timeout=TIMEOUT)
    assert store_entries(store.root) == []  # no .part, no model


def test_download_from_mirror_variable(
    tmp_path: Path, http_server: tuple[str, ServerState], monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(http_server, model_zip(tmp_path, top=SMALL), path=f"/mirror/{SMALL}.zip")
    monkeypatch.setenv(BASE_URL_ENV, http_server[0] + "/mirror")
    store = new_store(tmp_path)
    store.download(SMALL, timeout=TIMEOUT)
    [model] = store.installed()
    assert model.name == SMALL
    assert model.entry == find_entry(SMALL)


def test_resume_sends_if_range_with_the_servers_etag(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    data, url, store = cut_once(tmp_path, http_server)
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert http_server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(data) // 2}-")
    assert http_server[1].if_ranges == [None, etag_of(data)]


def test_resume_sends_last_modified_when_the_etag_is_weak(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    """A weak ETag cannot validate a byte range (RFC 9110), so Last-Modified is sent instead."""
    _data, url, store = cut_once(tmp_path, http_server)
    http_server[1].weak_etag = True
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert http_server[1].if_ranges == [None, LAST_MODIFIED]
    assert len(http_server[1].requests) == 2  # the range was honoured, not sent whole again
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")


def test_a_file_changed_on_the_server_is_downloaded_whole_again(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    """Half the old file is kept; the new one has the same size, so only If-Range can tell
    that the rest would not fit: the server sends the whole new file, which is installed."""
    old = model_zip(tmp_path, payload=300_000)
    new_model = make_model(tmp_path / "new" / "model", payload=300_000, seed=1)
    new = zip_dir(new_model, NAME)
    assert len(new) == len(old) and new != old
    url = serve(http_server, old)
    http_server[1].cut_requests = 1
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="run the same download again to resume"):
        store.download(NAME, url=url, retries=0, timeout=TIMEOUT)

    serve(http_server, new)
    store.download(NAME, url=url, retries=0, timeout=TIMEOUT)
    assert http_server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(old) // 2}-")
    assert http_server[1].if_ranges[-1] == etag_of(old)  # answered with the whole new file
    assert files_of(store.root / NAME) == files_of(new_model)
    assert not (store.root / ".downloads").exists()


def test_a_stalled_server_times_out_and_keeps_the_partial_file(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    """Each response sends half of what is asked, then goes silent for longer than the
    timeout: the attempt fails, the next resumes after the last byte that came (every piece is
    written as it arrives), and what came is kept for a later call."""
    data = model_zip(tmp_path, payload=1_200_000)
    url = serve(http_server, data)
    http_server[1].stall = 5.0
    store = new_store(tmp_path)
    began = time.monotonic()
    with pytest.raises(DownloadError, match="the connection timed out") as info:
        store.download(NAME, url=url, retries=1, timeout=0.3)
    assert time.monotonic() - began < 10
    first = len(data) // 2
    kept = first + (len(data) - first) // 2
    assert 0 < first < kept < len(data)
    assert http_server[1].requests == [(f"/{NAME}.zip", None), (f"/{NAME}.zip", f"bytes={first}-")]
    assert "(2 attempts)" in str(info.value) and f"{kept} bytes are kept" in str(info.value)
    assert (store.root / ".downloads" / f"{NAME}.zip.part").stat().st_size == kept
    assert store.installed() == []


@pytest.mark.parametrize("status", [503, 429])
def test_a_temporary_server_error_is_retried(
    tmp_path: Path, http_server: tuple[str, ServerState], status: int
) -> None:
    url = serve(http_server, model_zip(tmp_path))
    http_server[1].statuses = [status]
    store = new_store(tmp_path)
    told: list[str] = []
    store.download(NAME, url=url, retries=1, timeout=TIMEOUT, on_retry=told.append)
    assert len(http_server[1].requests) == 2
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")
    # What a window shows while it waits: what failed, and when the next attempt comes.
    [said] = told
    assert str(status) in said and said.endswith(f"attempt 2 of 2 in {store.retry_delay:g} s")


def test_a_server_error_on_every_attempt_is_reported(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    url = serve(http_server, model_zip(tmp_path))
    http_server[1].statuses = [503, 503, 503]
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match=r"\(3 attempts\): HTTP 503 Service Unavailable"):
        store.download(NAME, url=url, retries=2, timeout=TIMEOUT)
    assert len(http_server[1].requests) == 3
    assert store_entries(store.root) == []


def test_cancel_during_the_wait_before_a_retry(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    """A cancel does not wait for the retry: the wait before it is on the cancel event."""
    url = serve(http_server, model_zip(tmp_path))
    http_server[1].statuses = [503]
    store = ModelStore(tmp_path / "store", retry_delay=5.0)
    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()
    began = time.monotonic()
    with pytest.raises(DownloadCancelled):
        store.download(NAME, url=url, cancel=cancel, timeout=TIMEOUT)
    assert time.monotonic() - began < 5  # the retry delay is the bound: not waited for
    assert len(http_server[1].requests) == 1
    assert store_entries(store.root) == []


def test_cancel_does_not_wait_for_a_stalled_server(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    """The server sends half the file and goes quiet: Cancel takes effect at once, not when the
    read times out (the reading thread is blocked in the socket; the cancel shuts it down).
    It took the whole read timeout, then a retry, before."""
    data = model_zip(tmp_path, payload=1_000_000)
    url = serve(http_server, data)
    http_server[1].stall = 30.0
    store = new_store(tmp_path)
    cancel = threading.Event()
    received: list[int] = []

    def progress(done: int, total: int | None) -> None:
        received.append(done)
        if done >= len(data) // 2 and not cancel.is_set():  # all that comes: cancel soon
            threading.Timer(0.3, cancel.set).start()

    timeout = 20.0
    began = time.monotonic()
    try:
        with pytest.raises(DownloadCancelled):
            store.download(NAME, url=url, progress=progress, cancel=cancel, timeout=timeout)
        assert time.monotonic() - began < timeout / 2
    finally:
        http_server[1].release.set()
    assert received[-1] == len(data) // 2  # every byte that came was reported as it came
    assert store_entries(store.root) == []


@pytest.mark.parametrize("failure", ["ctrl-c", "disk full"])
def test_a_failure_while_unpacking_keeps_the_download(
    tmp_path: Path,
    http_server: tuple[str, ServerState],
    monkeypatch: pytest.MonkeyPatch,
    failure: str,
) -> None:
    """Found in review: Ctrl+C or a full disk while unpacking deleted the whole download (up
    to 1.8 GB) although the command line said what was received is kept. Only unpacking is
    made to fail here (a real full disk cannot be made in a test)."""
    import zipfile

    data = model_zip(tmp_path)
    url = serve(http_server, data)
    store = new_store(tmp_path)
    real_extract = zipfile.ZipFile.extract

    def failing_extract(self, member, path=None, pwd=None):  # type: ignore[no-untyped-def]
        if failure == "ctrl-c":
            raise KeyboardInterrupt
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(zipfile.ZipFile, "extract", failing_extract)
    part = store.root / ".downloads" / f"{NAME}.zip.part"
    if failure == "ctrl-c":
        with pytest.raises(KeyboardInterrupt):
            store.download(NAME, url=url, timeout=TIMEOUT)
    else:
        with pytest.raises(DownloadError, match=r"the download is kept in .* without downloading"):
            store.download(NAME, url=url, timeout=TIMEOUT)
    assert part.stat().st_size == len(data)
    assert not (store.root / NAME).exists()
    monkeypatch.setattr(zipfile.ZipFile, "extract", real_extract)
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert http_server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(data)}-")  # answered 416
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")
    assert not part.exists()
