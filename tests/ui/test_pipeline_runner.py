"""The window's pipeline runner: what a rebuild leaves behind."""

from __future__ import annotations

import pytest

from dictate.config import Settings
from dictate.ui.pipeline_runner import DictationController


@pytest.mark.slow
def test_a_rebuilt_pipeline_ends_the_old_command_decoders_process(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The window's sphinx decodes commands in a child process of its own; a settings change
    rebuilds the pipeline, and the old child must end then, not when the app quits."""
    runner = DictationController(Settings(engine="sphinx"))
    runner.preload_now()
    assert runner.pipeline is not None
    old = runner.pipeline.command_decoder
    process = old._process
    assert process.is_alive()
    runner.settings.silence_ms += 100  # a setting the pipeline is built with
    runner.preload_now()
    new = runner.pipeline
    assert new is not None and new.command_decoder is not old
    assert not process.is_alive()
    new.command_decoder.close()
