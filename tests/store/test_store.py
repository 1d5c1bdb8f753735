"""The store of installed models: layout checks, unpacking downloads safely, imports, removal,
clean-up and the size limits.

Models are fake (see ``model_server.py``): the store only checks the layout and moves files.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest
from model_server import (
    NAME,
    ServerState,
    files_of,
    make_model,
    model_zip,
    new_store,
    serve,
    store_entries,
    zip_dir,
)

from dictate.errors import DownloadError, InputError, ModelNotFound
from dictate.paths import user_data_dir
from dictate.store.catalog import find_entry
from dictate.store.folders import is_vosk_model_dir
from dictate.store.store import ModelStore

SMALL = "vosk-model-small-en-us-0.15"
LARGE = "vosk-model-en-us-0.22"
TIMEOUT = 5.0


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


@pytest.mark.parametrize("kind", ["not a zip", "bad crc"])
def test_corrupt_zip(tmp_path: Path, http_server: tuple[str, ServerState], kind: str) -> None:
    if kind == "not a zip":
        data = b"<html>a captive portal page</html>" * 100
    else:
        good = bytearray(model_zip(tmp_path, payload=100_000))
        good[len(good) // 2] ^= 0xFF  # inside the big stored member
        data = bytes(good)
    url = serve(http_server, data)
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="corrupt"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert store_entries(store.root) == []


def test_zip_without_model(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        zf.writestr(f"{NAME}/README", "no model here")
        zf.writestr(f"{NAME}/am/other.mdl", "x")
    url = serve(http_server, buffer.getvalue())
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="not a Vosk model"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert store_entries(store.root) == []


@pytest.mark.parametrize("member", ["../evil.txt", f"{NAME}/../../evil.txt", "/tmp/evil.txt"])
def test_zip_path_traversal(
    tmp_path: Path, http_server: tuple[str, ServerState], member: str
) -> None:
    data = zip_dir(make_model(tmp_path / "src"), NAME, {member: b"evil"})
    url = serve(http_server, data)
    store = new_store(tmp_path)
    with pytest.raises(DownloadError, match="unsafe path"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert store_entries(store.root) == []
    assert not (tmp_path / "evil.txt").exists()


def test_already_installed(tmp_path: Path, http_server: tuple[str, ServerState]) -> None:
    url = serve(http_server, model_zip(tmp_path))
    store = new_store(tmp_path)
    store.download(NAME, url=url, timeout=TIMEOUT)
    with pytest.raises(InputError, match="already installed"):
        store.download(NAME, url=url, timeout=TIMEOUT)
    assert len(http_server[1].requests) == 1  # checked before downloading


def test_download_rejects_bad_names_and_urls(tmp_path: Path) -> None:
    store = new_store(tmp_path)
    with pytest.raises(InputError, match="known models"):
        store.download("not-in-catalogue")
    for name in ["../x", "a/b", ".hidden", "", "c:x"]:
        with pytest.raises(InputError, match="cannot be a model name"):
            store.download(name, url="http://127.0.0.1:9/x.zip")
    with pytest.raises(InputError, match="only http"):
        store.download(NAME, url="file:///etc/passwd")
    with pytest.raises(InputError, match="not a valid URL"):  # was a traceback (review)
        store.download(NAME, url="http://[::1/x.zip")
    assert not store.root.exists()


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


def _make_loop(model: Path, kind: str) -> Path:
    """A symbolic link loop of ``kind`` in the model folder; the link the error names."""
    if kind == "two links to each other":
        (model / "a").symlink_to("b")
        (model / "b").symlink_to("a")
        return model / "a"
    if kind == "a folder link to its own parent":
        (model / "graph" / "up").symlink_to("..")
        return model / "graph" / "up"
    (model / "x").mkdir()
    (model / "y").mkdir()
    (model / "x" / "to-y").symlink_to("../y")
    (model / "y" / "to-x").symlink_to("../x")
    return model / "x" / "to-y" / "to-x"


@pytest.mark.parametrize(
    "kind",
    [
        "two links to each other",
        "a folder link to its own parent",
        "two folders linking to each other",
    ],
)
def test_importing_a_folder_with_a_link_loop_is_one_error(tmp_path: Path, kind: str) -> None:
    """`dictate models import` of such a folder ended in a traceback (a -> b, b -> a), or
    copied the folder into itself until the path was too long and printed every path of the
    copy. The real command is run; XDG_DATA_HOME (so the store) is the test's own
    (conftest.py)."""
    model = make_model(tmp_path / "looped-model")
    named = _make_loop(model, kind)
    result = subprocess.run(
        [sys.executable, "-m", "dictate", "models", "import", str(model)],
        capture_output=True,
        timeout=60,
    )
    err = result.stderr.decode()
    assert result.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"dictate: error: {named} is a symbolic link loop: "), err
    assert "delete the link" in err and "import" in err, err
    store = ModelStore()
    assert store.installed() == []
    assert not store.root.exists() or list(store.root.iterdir()) == []


def test_a_folder_link_inside_the_model_is_copied(tmp_path: Path) -> None:
    """Not every folder link is a loop: one to a sibling folder is copied as a folder."""
    source = make_model(tmp_path / "linked-model")
    (source / "graph-again").symlink_to("graph")
    store = new_store(tmp_path)
    path = store.import_path(source)
    assert files_of(path / "graph-again") == files_of(source / "graph")
    assert not (path / "graph-again").is_symlink()


def test_a_zip_bomb_is_refused_before_unpacking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """20 MB of zeros in a 20 KB zip, against a limit lowered to 10 MB for the test (the real
    limit is 8 GiB); nothing is written."""
    monkeypatch.setattr("dictate.store.store.MAX_MODEL_BYTES", 10 * 1024**2)
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
        "dictate.store.store.shutil.disk_usage",
        lambda path: type(real)(real.total, real.used, 1024**2),
    )
    with pytest.raises(InputError, match="free some space"):
        store.import_path(source)
    assert list(store.root.iterdir()) == []
