"""Without ONNX Runtime (neither onnxruntime nor onnxruntime-gpu installed: a plain
``pip install dictate`` without the ``cpu`` or ``gpu`` extra), the window opens and says what to
install, dictating says it again, and the command line says it in one line."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from dictate.errors import ProviderError
from dictate.punctuation.session import RUNTIME_MISSING, create_session, runtime_missing


@pytest.fixture
def no_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    """``import onnxruntime`` fails, and the module is not found, as where it is not installed
    (a None in sys.modules is Python's own way to say so)."""
    monkeypatch.setitem(sys.modules, "onnxruntime", None)


def test_the_session_says_what_to_install(no_onnxruntime: None, tiny_model_dir: Path) -> None:
    assert runtime_missing() == RUNTIME_MISSING
    with pytest.raises(ProviderError) as caught:
        create_session(tiny_model_dir / "model.onnx", "auto")
    assert str(caught.value) == RUNTIME_MISSING
    assert (
        "pip install 'dictate[cpu]'" in RUNTIME_MISSING and "installer/setup.sh" in RUNTIME_MISSING
    )


def test_the_window_opens_and_says_so(no_onnxruntime: None, qtbot: Any) -> None:
    from dictate.ui.app import preload_modules, start_window

    preload_modules()  # what the app does before the window: no ImportError
    window = start_window()
    qtbot.addWidget(window)
    assert not window.messages.isHidden()
    assert "ONNX Runtime is not installed" in window.messages.label.text()
    window.document.modified = False


def test_the_installed_runtime_is_found() -> None:
    assert runtime_missing() is None


def test_the_command_line_says_so_in_one_line(
    no_onnxruntime: None,
    tiny_model_dir: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io

    from dictate.cli import main

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"hello there\n")))
    assert main(["punctuate", "--model", str(tiny_model_dir)]) == 2
    err = capsys.readouterr().err
    assert err == f"dictate: error: {RUNTIME_MISSING}\n"
