"""A recogniser or Whisper model changed during a live run: loaded beside the run, switched to
between two segments, with nothing said lost and no sentence closed by the switch
(:meth:`dictate.run.pipeline.Pipeline.switch_to`; issue 52)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from dictate.asr.sphinx_engine import SphinxEngine
from dictate.audio.capture import FileSource
from dictate.events import Event, Finished, Segment
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.model import PunctuationModel
from dictate.run.assembly import make_pipeline
from dictate.run.sink import final_text
from dictate.run.switch import Switch
from dictate.store.resolve import resolve_punctuator_model

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def model() -> PunctuationModel:
    return PunctuationModel(resolve_punctuator_model(), "cpu")


class Noted:
    """A real PocketSphinx engine whose recognisers note the segments they decode and whether
    they were closed: which recogniser heard what cannot be read from the words when both
    are PocketSphinx."""

    def __init__(self) -> None:
        self.inner = SphinxEngine()
        self.starts: list[float] = []
        self.closed = 0

    def recognizer(self) -> Any:
        return _NotedRecognizer(self.inner.recognizer(), self)

    def __getattr__(self, name: str) -> Any:  # language, label...: the engine's own
        return getattr(self.inner, name)


class _NotedRecognizer:
    def __init__(self, inner: Any, engine: Noted) -> None:
        self.inner, self.engine = inner, engine

    @property
    def alternatives(self) -> list[list[str]]:
        return list(self.inner.alternatives)

    def start(self, time: float) -> None:
        self.engine.starts.append(time)
        self.inner.start(time)

    def accept(self, samples: Any) -> list[str] | None:
        return self.inner.accept(samples)

    def finish(self) -> Any:
        return self.inner.finish()

    def close(self) -> None:
        self.engine.closed += 1


class Tally:
    """A refiner that keeps the words and notes the segments it settled, and whether it was
    reset and closed."""

    name = "tally"

    def __init__(self) -> None:
        self.settled: list[int] = []
        self.resets = self.closes = 0

    def refine(self, segment: Any, words: list[Any]) -> None:
        self.settled.append(segment.number)

    @property
    def rewritten(self) -> list[tuple[str, str]]:
        return []

    def reset(self) -> None:
        self.resets += 1

    def close(self) -> None:
        self.closes += 1


def _run(model: PunctuationModel, switch_after: int | None) -> dict[str, Any]:
    """en_phrases.wav said in real time through PocketSphinx; after segment ``switch_after``
    is settled, a switch to a second PocketSphinx recogniser and refiner."""
    events: list[Event] = []
    old, new = Noted(), Noted()
    pipeline = make_pipeline(old, StreamingPunctuator(model), events.append)
    old_tally, new_tally = Tally(), Tally()
    pipeline.refiners = [old_tally, *pipeline.refiners]
    done: list[str] = []
    asked: list[float] = []

    def watch(event: Event) -> None:
        events.append(event)
        if isinstance(event, Segment) and event.segment == switch_after:
            asked.append(pipeline._audio_seconds)  # how far the audio had come
            recognizer = new.recognizer()
            noted = lambda: done.append(threading.current_thread().name)  # noqa: E731
            pipeline.switch_to(Switch(new, [new_tally], recognizer, noted))

    pipeline.sink.on_event = watch
    pipeline.run(FileSource(DATA / "en_phrases.wav", realtime=True))
    return {"events": events, "old": old, "new": new, "pipeline": pipeline, "done": done,
            "old_tally": old_tally, "new_tally": new_tally, "asked": asked}  # fmt: skip


@pytest.mark.slow
def test_a_recogniser_switched_to_mid_run_takes_the_next_segments_and_loses_nothing(
    model: PunctuationModel,
) -> None:
    plain = _run(model, None)
    switched = _run(model, 1)
    events = switched["events"]
    assert isinstance(events[-1], Finished) and events[-1].reason == "end_of_audio"
    segments = [e for e in events if isinstance(e, Segment)]
    assert len(segments) == len([e for e in plain["events"] if isinstance(e, Segment)]) >= 3
    # Between two segments: the old recogniser decoded the first ones whole, the new one the
    # rest from their start; each segment by one of them.
    old, new = switched["old"], switched["new"]
    assert old.starts and new.starts
    assert max(old.starts) < switched["asked"][0] < min(new.starts)
    assert len(old.starts) + len(new.starts) == len(segments)
    assert old.closed == 1 and new.closed == 0  # the one given up is freed, not the new one
    # The refiners likewise, in order, each once; the new ones reset, the old ones closed.
    old_tally, new_tally = switched["old_tally"], switched["new_tally"]
    assert old_tally.settled + new_tally.settled == [s.segment for s in segments]
    assert old_tally.settled[-1] >= 1 and new_tally.settled
    assert new_tally.resets == 1 and old_tally.closes == 1 and new_tally.closes == 0
    assert switched["done"] == ["dictate-refine"]
    # Nothing lost: every settled word in the text, in order. Before the switch, the words
    # of the run without one (after it, a fresh PocketSphinx hears the rest a little
    # differently: its cepstral mean starts again).
    text = final_text(events)
    words = [w.text.lower() for s in segments for w in s.words]
    assert re.findall(r"[\w']+", text.lower()) == words
    before = [[w.text for w in s.words] for s in segments if s.segment in old_tally.settled]
    plain_segments = [e for e in plain["events"] if isinstance(e, Segment)]
    assert before == [[w.text for w in s.words] for s in plain_segments[: len(before)]]


def test_a_switch_asked_for_when_no_run_is_on_is_made_at_once() -> None:
    """The run ended as the new recogniser finished loading: the pipeline takes it at once
    (the next run uses it); the parts given up are freed."""
    old, new = Noted(), Noted()
    pipeline = make_pipeline(old, None, lambda e: None)
    tally, new_tally = Tally(), Tally()
    pipeline.refiners = [tally]
    recognizer = new.recognizer()
    done: list[bool] = []
    pipeline.switch_to(Switch(new, [new_tally], recognizer, lambda: done.append(True)))
    assert done == [True] and pipeline.engine is new
    assert pipeline.first.recognizer is recognizer and pipeline.refiners == [new_tally]
    assert old.closed == 1 or _eventually(lambda: old.closed == 1)
    assert tally.closes == 1 and new_tally.resets == 1
    # The same engine (a new Whisper model only): the recogniser is kept.
    kept = pipeline.first.recognizer
    pipeline.switch_to(Switch(new, [Tally()]))
    assert pipeline.first.recognizer is kept and new.closed == 0


def _eventually(check: Any, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.02)
    return False
