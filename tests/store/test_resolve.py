"""Which model is used: the Vosk model (``--model``, the variable, the best installed one) and
the punctuation model (``--model``, the variable, the user data directory, the shipped one)."""

from __future__ import annotations

from pathlib import Path

import pytest
from model_server import make_model, new_store

from dictate.errors import ModelError, ModelNotFound
from dictate.paths import user_data_dir
from dictate.store.resolve import (
    MODEL_ENV,
    PUNCTUATOR_ENV,
    bundled_punctuator_dirs,
    resolve_punctuator_model,
    resolve_vosk_model,
)

SMALL = "vosk-model-small-en-us-0.15"
LGRAPH = "vosk-model-en-us-0.22-lgraph"
LARGE = "vosk-model-en-us-0.22"


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


def test_punctuator_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--model``, the variable, the user data directory, then the shipped model."""
    shipped = resolve_punctuator_model()
    assert shipped in bundled_punctuator_dirs()

    user = user_data_dir() / "models" / "punctuator"  # in the test's own data directory
    user.mkdir(parents=True)
    (user / "model.onnx").write_bytes(b"onnx")
    assert resolve_punctuator_model() == user

    from_env = tmp_path / "env-model"
    from_env.mkdir()
    monkeypatch.setenv(PUNCTUATOR_ENV, str(from_env))
    assert resolve_punctuator_model() == from_env

    explicit = tmp_path / "explicit"
    explicit.mkdir()
    assert resolve_punctuator_model(explicit) == explicit
    assert resolve_punctuator_model(str(explicit)) == explicit


def test_punctuator_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ModelNotFound, match="does not exist"):
        resolve_punctuator_model(tmp_path / "missing")
    monkeypatch.setenv(PUNCTUATOR_ENV, str(tmp_path / "missing"))
    with pytest.raises(ModelNotFound, match=f"{PUNCTUATOR_ENV}=.*unset the variable"):
        resolve_punctuator_model()
    monkeypatch.delenv(PUNCTUATOR_ENV)
    monkeypatch.setattr(
        "dictate.store.resolve.bundled_punctuator_dirs", lambda: [tmp_path / "nowhere"]
    )
    with pytest.raises(ModelNotFound, match="no punctuation model found") as info:
        resolve_punctuator_model()
    assert str(tmp_path / "nowhere") in str(info.value)


def test_the_shipped_punctuator_is_found_in_the_checkout() -> None:
    checkout = Path(__file__).resolve().parents[2] / "models" / "punctuator"
    assert checkout in bundled_punctuator_dirs()
    assert (checkout / "model.onnx").is_file()
