"""The window's parallel decode of an audio file (dictate/ui/parallel_import.py): chosen by the
engine's abilities in the registry, and given the window's second pass."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dictate.asr.registry import SPHINX, VOSK, WHISPER
from dictate.seam.second_pass import SecondPassRefiner
from dictate.ui.parallel_import import parallel_run_factory


class _Recorded:
    """Stands for ParallelRun: what it was made with (the engine, the sink, the workers;
    nothing is started)."""

    def __init__(self, path: Any, *args: Any, **options: Any) -> None:
        self.path, self.args, self.options = path, args, options


@pytest.fixture
def recorded(monkeypatch: pytest.MonkeyPatch) -> None:
    import dictate.run.assembly

    monkeypatch.setattr(dictate.run.assembly, "ParallelRun", _Recorded)


def _source() -> Any:
    return SimpleNamespace(info=SimpleNamespace(path=Path("speech.wav")), done_s=0.0, started=None)


def _make(factory: Any, engine: Any) -> Any:
    from dictate.run.assembly import TextOptions

    return factory(engine, "punctuation model", "segmenter", TextOptions(), 1.5, lambda event: None)


def test_a_warm_engine_decodes_in_parallel_with_the_window_s_second_pass(recorded: None) -> None:
    second = SimpleNamespace(name=WHISPER.name, label="Whisper tiny.en (cpu)")
    source = _source()
    run = _make(parallel_run_factory(source, 3, lambda: second), SimpleNamespace(name=SPHINX.name))
    assert isinstance(run, _Recorded) and run.path == Path("speech.wav")
    assert run.args[-1] == 3 and "chunk_s" not in run.options  # the command line's chunks
    assert run.options["commit_after"] == 1.5 and run.options["segmenter_options"] == "segmenter"
    [refiner] = run.args[1].refiners  # the sink's
    assert isinstance(refiner, SecondPassRefiner) and refiner.second_pass is second
    assert source.started is not None
    run.options["progress"](4.0, 10.0)
    assert source.done_s == 4.0


def test_no_second_pass_means_no_refiners(recorded: None) -> None:
    engine = SimpleNamespace(name=SPHINX.name)
    assert _make(parallel_run_factory(_source(), 2), engine).args[1].refiners == []
    none = parallel_run_factory(_source(), 2, lambda: None)
    assert _make(none, engine).args[1].refiners == []


def test_the_pipeline_decodes_where_parallel_words_would_not_be_exact(recorded: None) -> None:
    """One worker, an engine that cannot hear audio without decoding it (Vosk), or one the
    registry does not know: None, the window's pipeline (with its own second pass)."""
    second = SimpleNamespace(name=WHISPER.name, label="Whisper tiny.en (cpu)")
    one = parallel_run_factory(_source(), 1, lambda: second)
    assert _make(one, SimpleNamespace(name=SPHINX.name)) is None
    for name in (VOSK.name, "a test double"):
        factory = parallel_run_factory(_source(), 4, lambda: second)
        assert _make(factory, SimpleNamespace(name=name)) is None
