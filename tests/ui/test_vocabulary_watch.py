"""The pipeline built again in the background when the vocabulary changes on disk
(:mod:`dictate.ui.vocabulary_watch`): the next start of dictation does not wait for it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QObject, Signal

from dictate.config import Settings
from dictate.ui import vocabulary_watch
from dictate.ui.run_states import State
from dictate.ui.vocabulary_watch import VocabularyWatch
from dictate.writing.vocabulary import VocabularyFile, default_vocabulary_path, parse_entry
from dictate.writing.vocabulary_harvest import FILE_NAME as MISHEARD
from dictate.writing.vocabulary_harvest import MisheardFile, misheard_path


class Controller(QObject):
    """The controller's state and preload, counted (the watch's rules are the question)."""

    stateChanged = Signal(object)

    def __init__(self) -> None:
        super().__init__()
        self.state = State.IDLE
        self.preloaded = 0

    def preload(self) -> None:
        self.preloaded += 1

    def move_to(self, state: State) -> None:
        self.state = state
        self.stateChanged.emit(state)


def watch_of(controller: Any) -> VocabularyWatch:
    path = default_vocabulary_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    return VocabularyWatch(controller, path.parent, (path.name, MISHEARD))


@pytest.fixture(autouse=True)
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(vocabulary_watch, "QUIET_MS", 200)
    monkeypatch.setattr(vocabulary_watch, "MOST_MS", 2000)


def test_a_change_on_disk_preloads_once_the_files_are_quiet(qtbot: Any) -> None:
    controller = Controller()
    watch = watch_of(controller)
    VocabularyFile().add([parse_entry("Siobhan = shiv awn")])
    VocabularyFile().add([parse_entry("Nguyen = new win")])  # replaced by a rename: watched again
    qtbot.waitUntil(lambda: controller.preloaded == 1, timeout=3000)
    entry = parse_entry("Nguyen = new win")
    MisheardFile(misheard_path()).append(entry, [("new", "in")], by="harvest")  # a form heard
    qtbot.waitUntil(lambda: controller.preloaded == 2, timeout=3000)
    qtbot.wait(500)
    assert controller.preloaded == 2 == watch.preloads  # nothing more changed: nothing built


def test_a_change_during_dictation_is_built_for_after_it(qtbot: Any) -> None:
    controller = Controller()
    watch = watch_of(controller)
    controller.move_to(State.LISTENING)
    VocabularyFile().add([parse_entry("Saoirse = seer sha")])
    qtbot.wait(2500)  # past the quiet time and the longest wait
    assert controller.preloaded == 0  # not while the run holds the pipeline
    controller.move_to(State.IDLE)
    qtbot.waitUntil(lambda: controller.preloaded == 1 == watch.preloads, timeout=3000)


def test_a_harvest_that_keeps_appending_is_built_for_at_the_longest_wait(qtbot: Any) -> None:
    controller = Controller()
    watch = watch_of(controller)
    entry = parse_entry("Nguyen = new win")
    for n in range(20):  # a form every 150 ms: never quiet for 200 ms
        MisheardFile(misheard_path()).append(entry, [("new", str(n))], by="harvest")
        qtbot.wait(150)
        if controller.preloaded:
            break
    assert controller.preloaded == 1 == watch.preloads and 1.5 < (n + 1) * 0.15 < 3.2


@pytest.mark.slow
def test_the_next_start_after_an_entry_added_reuses_the_pipeline_built_for_it(
    qtbot: Any, tmp_path: Path
) -> None:
    """The real controller: an entry added from outside the window (as ``dictate vocabulary
    add`` does) is built for in the background; the next start finds its pipeline ready."""
    from dictate.seam.vocabulary import VocabularyRefiner
    from dictate.ui.pipeline_runner import DictationController

    runner = DictationController(Settings(engine="sphinx", second_pass="off"))
    runner.preload_now()
    first = runner.pipeline
    watch = watch_of(runner)
    VocabularyFile().add([parse_entry("Siobhan = shiv awn")])
    qtbot.waitUntil(lambda: runner.pipeline is not first, timeout=20000)
    built = runner.pipeline
    assert watch.preloads == 1 and built is not None
    assert any(isinstance(r, VocabularyRefiner) for r in built.refiners)
    runner.preload_now()  # what a start of dictation does first
    assert runner.pipeline is built  # ready: nothing built at the key
    built.close()
