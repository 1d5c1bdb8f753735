"""The window's part in the Whisper tiers (issue 55, offscreen Qt): it measures them in a
process of its own while idle, stops that when a dictation starts, and after a live run whose
settled words came late steps the live tier down and says so.

The measuring command is a stand-in here (a Python process that writes a choice, or sleeps):
the real one dictates the clip in the window, about 47 s a tier, and is tested through the
command line (tests/asr/test_tiers.py). The second tier is the bundled tiny.en copied into the
store as "base". The pipeline events of a live run are given to the window as its controller's
signal delivers them, with the run's clock (``wall_time``) a stand-in for a microphone's."""

from __future__ import annotations

import sys
import time
from typing import Any

from dictate.asr import tiers
from dictate.asr.engine import Word
from dictate.events import Finished, Segment
from dictate.ui.run_states import State


def second_tier(window: Any) -> None:
    """Whisper "base" installed beside tiny.en, and the second pass "auto" (the window fixture
    has it off)."""
    import shutil

    from dictate.asr.loader import AUTO

    window.settings.second_pass = AUTO

    from dictate.store.whisper_bundled import verify_bundled_model
    from dictate.store.whisper_models import default_whisper_root

    shutil.copytree(verify_bundled_model(), default_whisper_root() / "base")


def base_measured_in_time(window: Any) -> None:
    second_tier(window)
    timing = tiers.TierTiming
    tiers.save_choice(tiers.choose({"tiny.en": timing("tiny.en", 0.7, 0.9, 4, 0.3),
                                    "base": timing("base", 0.8, 1.1, 4, 0.4)},
                                   ["tiny.en", "base"]))  # fmt: skip


def wait_for(qtbot: Any, calibration: Any) -> None:
    qtbot.waitUntil(lambda: calibration.process is None, timeout=30000)


def test_the_default_install_measures_nothing(window: Any) -> None:
    from dictate.asr.loader import AUTO

    window.settings.second_pass = AUTO
    window.tiers.start()
    assert window.tiers.process is None and not tiers.needs_calibration()


def test_the_tiers_are_measured_while_idle_and_the_choice_kept(qtbot: Any, window: Any) -> None:
    second_tier(window)
    assert tiers.needs_calibration()
    writes = (
        "from dictate.asr import tiers; t = tiers.TierTiming; "
        "tiers.save_choice(tiers.choose({'tiny.en': t('tiny.en', 0.7, 0.9, 4, 0.3), "
        "'base': t('base', 0.8, 1.1, 4, 0.4)}, ['tiny.en', 'base']))"
    )
    window.tiers.command = [sys.executable, "-c", writes]
    window.tiers.start()
    assert window.tiers.process is not None
    wait_for(qtbot, window.tiers)
    assert not tiers.needs_calibration() and tiers.auto_model("live") == "base"
    window.tiers.start()
    assert window.tiers.process is None  # measured: not again


def test_a_measurement_that_fails_is_not_tried_again_at_every_idle(qtbot: Any, window: Any) -> None:
    second_tier(window)
    window.tiers.command = [sys.executable, "-c", "raise SystemExit('no sound')"]
    window.tiers.start()
    wait_for(qtbot, window.tiers)
    assert window.tiers.failed and tiers.needs_calibration()
    window.tiers.start()
    assert window.tiers.process is None


def test_a_dictation_started_meanwhile_stops_the_measurement(qtbot: Any, window: Any) -> None:
    second_tier(window)
    window.tiers.command = [sys.executable, "-c", "import time; time.sleep(60)"]
    window.tiers.start()
    process = window.tiers.process
    assert process is not None and process.waitForStarted(10000)
    window.controller.stateChanged.emit(State.STARTING)
    assert window.tiers.process is None
    assert tiers.needs_calibration()  # tried again at the next idle
    window.controller.stateChanged.emit(State.IDLE)
    assert window.tiers._timer.isActive()


def live_run(window: Any, monkeypatch: Any, late: list[float]) -> None:
    """A live run whose phrases' settled words came ``late`` seconds after their speech."""
    began = time.monotonic() - 100
    monkeypatch.setattr(window.controller, "wall_time", lambda t: began + t)
    window.controller.stateChanged.emit(State.STARTING)
    window.controller.stateChanged.emit(State.LISTENING)
    for number, after in enumerate(late):
        end = time.monotonic() - after - began  # said so long ago
        words = [Word("word", end - 0.5, end, 1.0)]
        window.controller.pipelineEvent.emit(Segment(0.0, number, end - 1, end, "pause", words))
    window.controller.pipelineEvent.emit(Finished(0.0, "stopped", 10.0, 0))


def test_a_live_run_that_came_late_steps_the_tier_down(window: Any, monkeypatch: Any) -> None:
    base_measured_in_time(window)
    live_run(window, monkeypatch, [0.9, 1.0, 1.1, 1.2, 1.3])
    assert tiers.auto_model("live") == "base" and window.messages.isHidden()
    live_run(window, monkeypatch, [0.9, 2.2, 1.1, 2.5, 1.3, 1.2])
    assert tiers.auto_model("live") == "tiny.en"
    said = window.messages.label.text()
    assert said.startswith("Whisper tiny.en is used for dictation from now on: base's settled")
    assert window.tiers.finished_runs == 2


def test_a_file_or_a_named_model_is_not_watched(window: Any, monkeypatch: Any) -> None:
    base_measured_in_time(window)
    window.settings.second_pass = "base"  # the user's own choice: kept whatever the times
    live_run(window, monkeypatch, [3.0] * 6)
    assert tiers.auto_model("live") == "base" and window.messages.isHidden()


def test_a_file_in_the_window_takes_the_files_tier(window: Any) -> None:
    """parallel_import.files_tier: the model "auto" uses for files, loaded for the file (on
    one thread) where dictation uses another; None where they are the same."""
    from dictate.asr.registry import SPHINX
    from dictate.ui.parallel_import import files_tier

    class Loaded:  # the first pass as the loader sees it
        name, model_path, label = SPHINX.name, None, SPHINX.name

    assert files_tier(Loaded()) is None  # tiny.en alone: the one dictation uses
    second_tier(window)
    loaded = files_tier(Loaded())  # not measured yet: tiny.en live, base for files
    try:
        assert loaded is not None and loaded.label == "Whisper base (cpu)"
        assert loaded.options.threads == 1
    finally:
        loaded.close()
