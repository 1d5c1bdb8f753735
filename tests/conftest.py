"""Shared fixtures: tiny real ONNX models built on the fly (see ``tiny_model.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from tiny_model import build_tiny_model

# Tests never need a display; set it before anything could import Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model with a casing head and a 64-token window."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="session")
def edge_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model with a 16-token window that puts QUESTION near every window edge."""
    return build_tiny_model(
        tmp_path_factory.mktemp("edge"), max_length=16, edge_question=True, casing=False
    )
