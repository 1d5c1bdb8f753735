"""The window's pipeline runner: the state it tells, and what a rebuild leaves behind."""

from __future__ import annotations

import pytest

from dictate.config import Settings
from dictate.ui.loaded_models import Loaded
from dictate.ui.pipeline_runner import DictationController
from dictate.ui.run_states import State, Trigger


def test_the_state_leaves_the_controller_as_its_member(qtbot) -> None:  # type: ignore[no-untyped-def]
    """stateChanged carries the :class:`State` itself (the window's slots compare members),
    not its text."""
    controller = DictationController(Settings())
    heard: list[object] = []
    controller.stateChanged.connect(heard.append)
    assert controller.move(Trigger.START) and controller.move(Trigger.FAILED)
    assert heard == [State.STARTING, State.IDLE]
    assert all(type(state) is State for state in heard)


@pytest.mark.slow
def test_a_rebuilt_pipeline_ends_the_old_command_decoders_process(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Without Whisper (which judges commands in the window's process), the window's sphinx
    decodes commands in a child process of its own; a settings change rebuilds the pipeline,
    and the old child must end then, not when the app quits."""
    runner = DictationController(Settings(engine="sphinx", second_pass="off"))
    loaded: list[Loaded] = []
    runner.loaded.connect(loaded.append)
    runner.preload_now()
    assert runner.pipeline is not None
    assert loaded[-1].low_accuracy  # the registry's word: PocketSphinx is the weak fallback
    old = runner.pipeline.command_decoder
    process = old._process
    assert process.is_alive()
    runner.settings.silence_ms += 100  # a setting the pipeline is built with
    runner.preload_now()
    new = runner.pipeline
    assert new is not None and new.command_decoder is not old
    assert not process.is_alive()
    new.command_decoder.close()


@pytest.mark.slow
def test_a_word_added_while_the_window_runs_is_used_at_the_next_start(qtbot) -> None:  # type: ignore[no-untyped-def]
    """A vocabulary entry added while the window runs (the dialog, ``dictate vocabulary add``,
    a word learned: each writes the file) is in the next start's pipeline, without loading
    the recogniser again (its child process goes on); nothing changed, nothing rebuilt."""
    from dictate.seam.vocabulary import VocabularyRefiner
    from dictate.writing.vocabulary import VocabularyFile, parse_entry

    runner = DictationController(Settings(engine="sphinx", second_pass="off"))
    runner.preload_now()
    first = runner.pipeline
    assert first is not None
    engine = runner._cache["engine"]
    assert not any(isinstance(r, VocabularyRefiner) for r in first.refiners)
    runner.preload_now()
    assert runner.pipeline is first  # nothing changed: the same pipeline

    VocabularyFile().add([parse_entry("Siobhan = shiv awn")])
    runner.preload_now()
    second = runner.pipeline
    assert second is not None and second is not first
    assert runner._cache["engine"] is engine  # the loaded recogniser, not a new one
    (vocabulary,) = [r for r in second.refiners if isinstance(r, VocabularyRefiner)]
    assert [e.written for e in vocabulary.matcher.entries] == ["Siobhan"]
    assert vocabulary.matcher.rewrite(["shiv", "awn", "called"]) == ["Siobhan", "called"]
    runner.preload_now()
    assert runner.pipeline is second
    second.close()


@pytest.mark.slow
def test_settings_ok_with_nothing_changed_keeps_the_pipeline_and_its_processes(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Settings > OK calls :meth:`forget_engine` whatever changed. With nothing changed, the
    loaded pipeline, its recogniser and the command decoder's child process are kept (a review
    found the next start built both again: "Listening" 2.1-2.5 s after the key instead of 0.5
    s); with a change, the pipeline is built for it in the background at once while idle, and
    after the run where one is on, around the same recogniser."""
    runner = DictationController(Settings(engine="sphinx", second_pass="off"))
    runner.preload_now()
    first = runner.pipeline
    assert first is not None
    engine, process = runner._cache["engine"], first.command_decoder._process
    runner.forget_engine()  # Settings > OK, nothing changed
    qtbot.wait(1500)  # the background build, had it been one
    runner.preload_now()  # what the next start does first
    assert runner.pipeline is first and process.is_alive()
    runner.settings.silence_ms += 100  # a setting the pipeline is built with
    runner.forget_engine()
    qtbot.waitUntil(lambda: runner.pipeline is not first, timeout=20000)  # built while idle
    qtbot.waitUntil(lambda: not process.is_alive(), timeout=5000)  # the old one's child ends
    second = runner.pipeline
    assert second is not None and runner._cache["engine"] is engine
    assert runner.move(Trigger.START)  # a run is on: a change waits for its end
    runner.settings.silence_ms += 100
    runner.forget_engine()
    qtbot.wait(1000)
    assert runner.pipeline is second
    runner.move(Trigger.FAILED)  # the run ended (here: it never loaded)
    qtbot.waitUntil(lambda: runner.pipeline is not second, timeout=20000)
    assert runner._cache["engine"] is engine
    assert runner.pipeline is not None
    runner.pipeline.close()


@pytest.mark.slow
def test_whisper_turned_on_during_a_run_takes_over_at_a_pause(qtbot, korean_vosk_model) -> None:  # type: ignore[no-untyped-def]
    """Settings changed during a live run: Whisper, turned on, loads beside the run and settles
    the segments after the next pause, while the recogniser (its child process) and the words
    pending stay; after the run nothing is built again. A recogniser of another language
    (punctuation goes off with it) waits for the next run instead."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[1] / "data" / "en_phrases.wav"
    runner = DictationController(Settings(engine="sphinx", second_pass="off"))
    try:
        _switch_during_runs(qtbot, runner, data, korean_vosk_model)
    finally:
        runner.release()


def _switch_during_runs(qtbot, runner, data, korean_vosk_model) -> None:  # type: ignore[no-untyped-def]
    from dictate.audio.capture import FileSource
    from dictate.events import Finished, Partial, Segment

    runner.preload_now()
    pipeline = runner.pipeline
    assert pipeline is not None
    recognizer = pipeline.first.recognizer
    events: list[object] = []
    runner.pipelineEvent.connect(events.append)
    switched: list[Loaded] = []
    runner.switched.connect(switched.append)
    runner.start(source_factory=lambda: FileSource(data, realtime=True))
    qtbot.waitUntil(lambda: any(isinstance(e, Partial) for e in events), timeout=20000)
    runner.settings.second_pass = "auto"  # in the first phrase
    runner.forget_engine()
    assert runner.switching() and not runner.waiting_settings()
    qtbot.waitUntil(lambda: bool(switched), timeout=30000)
    assert switched[0].second_pass.startswith("Whisper")
    assert not runner.switching() and runner.run_settings.second_pass == "auto"
    qtbot.waitUntil(lambda: isinstance(events[-1], Finished), timeout=30000)
    segments = [e for e in events if isinstance(e, Segment)]
    by = [s.settled_by for s in segments]
    assert by[0] == "" and by[-1] == "whisper", by  # the first by PocketSphinx, the last not
    assert by == sorted(by), by  # and none by PocketSphinx after one by Whisper
    assert pipeline.first.recognizer is recognizer  # the same engine: the same child process
    qtbot.wait(1500)  # the build after the run, had it been one
    assert runner.pipeline is pipeline and runner.second_pass() is not None

    # Another language: loaded during the run, switched to at the next.
    events.clear()
    runner.start(source_factory=lambda: FileSource(data, realtime=True))
    qtbot.waitUntil(lambda: any(isinstance(e, Segment) for e in events), timeout=20000)
    runner.settings.engine, runner.settings.first_pass_model = "vosk", str(korean_vosk_model)
    runner.settings.second_pass = "auto"
    runner.forget_engine()
    qtbot.waitUntil(lambda: isinstance(events[-1], Finished), timeout=30000)
    assert pipeline.first.recognizer is recognizer
    qtbot.waitUntil(lambda: runner.pipeline is not pipeline, timeout=30000)
    assert runner.pipeline is not None and "vosk" in runner.pipeline.engine.label.lower()
