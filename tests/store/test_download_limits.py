"""What a download refuses before it fills the disk or loops, from a real HTTP server on
127.0.0.1: an announced size over the cap or over the free space, a body without a size that
grows past the cap, and a redirect loop.

The server here (unlike ``model_server.py``'s) says whatever it is told to: it announces any
Content-Length, sends only a few bytes of it, sends a body of unannounced length, or answers
302 to itself. Nothing is faked on the client side: the free space is the real file system's,
and where a test lowers or raises :data:`MAX_MODEL_BYTES`, it says why.
"""

from __future__ import annotations

import contextlib
import http.server
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from model_server import NAME, ServerState, model_zip, new_store, serve, store_entries

from dictate.errors import DownloadError
from dictate.store.download import fetch

TIMEOUT = 5.0


@dataclass
class Script:
    """What the server answers to every request, and the requests it got."""

    announce: int | None = None  # Content-Length to send; None sends none (ends at close)
    body: bytes = b""  # what is actually sent
    redirect_to_self: bool = False
    requests: list[str] = field(default_factory=list)


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # closing the connection ends a body without a length
    server: _ScriptedServer

    def do_GET(self) -> None:
        script = self.server.script
        script.requests.append(self.path)
        if script.redirect_to_self:
            self.send_response(302)
            self.send_header("Location", self.path)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/zip")
        if script.announce is not None:
            self.send_header("Content-Length", str(script.announce))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client gave up
            self.wfile.write(script.body)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _ScriptedServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    script: Script


@pytest.fixture
def scripted() -> Iterator[tuple[str, Script]]:
    """(URL of the model zip, script) of a server that answers as the script says."""
    httpd = _ScriptedServer(("127.0.0.1", 0), _Handler)
    httpd.script = Script()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/{NAME}.zip", httpd.script
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def test_a_petabyte_announced_is_refused_before_a_byte_is_written(
    tmp_path: Path, scripted: tuple[str, Script]
) -> None:
    """A server announcing 10**15 bytes filled the disk: nothing compared the size with
    anything. It is now refused at once (not retried), with the real cap."""
    url, script = scripted
    script.announce, script.body = 10**15, b"PK" * 50_000
    store = new_store(tmp_path)
    with pytest.raises(DownloadError) as info:
        store.download(NAME, url=url, timeout=TIMEOUT)
    message = str(info.value)
    assert message == (
        f"refusing to download {url}: the server announces 1.0 PB (1,000,000,000,000,000 "
        "bytes), more than any Vosk model (8.6 GB); check the model name (`dictate models "
        "list`) or the URL"
    )
    assert script.requests == [f"/{NAME}.zip"]
    assert store_entries(store.root) == []  # not one byte, not even the record of the download


def test_a_download_larger_than_the_free_space_is_refused(
    tmp_path: Path, scripted: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server announces as many bytes as the test's file system has free; the download and
    the unpacked model need twice that, so it is refused before a byte is written. The cap is
    raised so that the real free space, not the cap, decides (a disk may have less free
    space than the 8 GiB cap, or more)."""
    monkeypatch.setattr("dictate.store.store.MAX_MODEL_BYTES", 2**62)
    url, script = scripted
    free = shutil.disk_usage(tmp_path).free
    script.announce, script.body = free, b"PK" * 50_000
    store = new_store(tmp_path)
    with pytest.raises(DownloadError) as info:
        store.download(NAME, url=url, timeout=TIMEOUT)
    message = str(info.value)
    assert message.startswith(f"not enough disk space for Vosk model {NAME}: {url} is ")
    assert f"but {store.root} has only " in message
    assert message.endswith("free; free some space and run the same download again")
    assert script.requests == [f"/{NAME}.zip"]
    assert store_entries(store.root) == []


def test_resuming_checks_the_space_for_the_rest(
    tmp_path: Path, http_server: tuple[str, ServerState]
) -> None:
    """The first attempt is cut halfway; the second asks only for the rest, and the space
    check is told so (the bytes to come, and the whole size)."""
    data = model_zip(tmp_path, payload=300_000)
    url = serve(http_server, data)
    http_server[1].cut_requests = 1
    part = tmp_path / "model.zip.part"
    asked: list[tuple[int, int]] = []

    def check_space(to_come: int, total: int) -> None:
        asked.append((to_come, total))

    fetch(url, part, retries=1, retry_delay=0, timeout=TIMEOUT, check_space=check_space)
    assert asked == [(len(data), len(data)), (len(data) - len(data) // 2, len(data))]
    assert part.read_bytes() == data


def test_a_body_without_a_size_is_stopped_at_the_cap(
    tmp_path: Path, scripted: tuple[str, Script], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that announces no size is stopped once it has sent the cap, and what came is
    deleted. The cap is lowered to 1 MiB (from 8 GiB) so that the server sends 3 MB, not
    9 GB; the store reads it at each download."""
    cap = 1024**2
    monkeypatch.setattr("dictate.store.store.MAX_MODEL_BYTES", cap)
    url, script = scripted
    script.announce, script.body = None, b"\0" * (3 * 10**6)
    store = new_store(tmp_path)
    sizes: list[int] = []
    with pytest.raises(DownloadError) as info:
        store.download(
            NAME, url=url, progress=lambda done, _total: sizes.append(done), timeout=TIMEOUT
        )
    assert str(info.value) == (
        f"stopped downloading {url}: the server sent more than 1.0 MB without announcing a "
        "size, more than any Vosk model, and the partial file was deleted; check the model "
        "name (`dictate models list`) or the URL"
    )
    assert max(sizes) <= cap  # never more on disk than the cap
    assert script.requests == [f"/{NAME}.zip"]
    assert store_entries(store.root) == []


def test_a_redirect_loop_is_a_server_problem(tmp_path: Path, scripted: tuple[str, Script]) -> None:
    """A server that redirects to itself ended in "check the internet connection", after
    three retries that looped the same way."""
    url, script = scripted
    script.redirect_to_self = True
    store = new_store(tmp_path)
    with pytest.raises(DownloadError) as info:
        store.download(NAME, url=url, timeout=TIMEOUT)
    host = url.split("/")[2]
    assert str(info.value) == (
        f"the server at {host} redirects in a loop (30 redirects) when asked for {url}; the "
        "download address may be wrong or the server misconfigured: try again later, or "
        "download the file by hand and install it with `dictate models import FILE`"
    )
    assert len(script.requests) == 31  # the request and 30 redirects, not retried
    assert store_entries(store.root) == []
