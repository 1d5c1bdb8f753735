"""The whole pipeline on the committed fixtures: real Silero VAD, real recognisers, the shipped
punctuation model, in its worker threads."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dictate.asr.sphinx_engine import SphinxEngine
from dictate.asr.vosk_engine import VoskEngine
from dictate.audio.capture import AudioBlock, FileSource
from dictate.errors import AudioDeviceError
from dictate.events import Error, Event, Finalized, Finished, Level, Partial, Pending, Segment
from dictate.punctuation.baseline import SegmentPunctuator
from dictate.punctuation.decoder import StreamingPunctuator
from dictate.punctuation.model import PunctuationModel
from dictate.punctuation.spans import Update
from dictate.run.assembly import make_pipeline
from dictate.run.pipeline import Pipeline
from dictate.run.sink import final_text
from dictate.store.resolve import resolve_punctuator_model

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="module")
def model() -> PunctuationModel:
    return PunctuationModel(resolve_punctuator_model(), "cpu")


@pytest.fixture(scope="module")
def sphinx() -> SphinxEngine:
    return SphinxEngine()


def words_of(text: str) -> list[str]:
    return re.findall(r"[\w']+", text.lower())


def recognised(events: list[Event]) -> list[str]:
    return [w.text for e in events if isinstance(e, Segment) for w in e.words]


@pytest.mark.slow
def test_english_file_to_punctuated_text(model: PunctuationModel, sphinx: SphinxEngine) -> None:
    events: list[Event] = []
    by_thread: dict[str, list[float]] = {}

    def received(event: Event) -> None:
        events.append(event)
        by_thread.setdefault(threading.current_thread().name, []).append(event.time)

    make_pipeline(sphinx, StreamingPunctuator(model), received).run(
        FileSource(DATA / "en_phrases.wav")
    )
    text = final_text(events)
    # Nothing lost: every recognised word is in the final text, in order.
    assert words_of(text) == recognised(events)
    assert text[0].isupper() and text[-1] in ".?"
    assert "Thank you" in text
    kinds = [type(e) for e in events]
    assert kinds[-1] is Finished and events[-1].reason == "end_of_audio"  # type: ignore[attr-defined]
    assert Level in kinds and Partial in kinds and Pending in kinds
    assert not any(isinstance(e, Error) for e in events)
    # Each thread's events are in time order (the threads interleave: a Partial comes from the
    # audio thread and, after a segment's words are written, from the punctuation thread; a
    # Segment from the refining thread), and each segment's words show up (as pending text)
    # after the segment closed.
    assert {"dictate-audio", "dictate-refine", "dictate-punctuation"} <= set(by_thread)
    assert all(times == sorted(times) for times in by_thread.values()), by_thread
    for seg in (e for e in events if isinstance(e, Segment)):
        shown = next(e for e in events if isinstance(e, Pending) and e.segment == seg.segment)
        assert shown.time >= seg.time


@pytest.mark.slow
def test_korean_file_through_vosk(model: PunctuationModel, korean_vosk_model: Path) -> None:
    events: list[Event] = []
    engine = VoskEngine(korean_vosk_model)
    make_pipeline(engine, StreamingPunctuator(model), events.append).run(
        FileSource(DATA / "ko_phrases.wav")
    )
    segments = [e for e in events if isinstance(e, Segment)]
    assert len(segments) == 3
    assert words_of(final_text(events)) == recognised(events)


@pytest.mark.slow
def test_baseline_mode_closes_every_segment_as_a_sentence(
    model: PunctuationModel, sphinx: SphinxEngine
) -> None:
    events: list[Event] = []
    make_pipeline(sphinx, SegmentPunctuator(model), events.append).run(
        FileSource(DATA / "en_phrases.wav")
    )
    finalized = [e for e in events if isinstance(e, Finalized)]
    segments = [e for e in events if isinstance(e, Segment) and e.words]
    assert len(finalized) == len(segments)


@pytest.mark.slow
def test_stop_drains_what_was_heard(model: PunctuationModel, sphinx: SphinxEngine) -> None:
    events: list[Event] = []
    pipeline = make_pipeline(sphinx, StreamingPunctuator(model), events.append)
    pipeline.start(FileSource(DATA / "en_phrases.wav", realtime=True))
    deadline = time.monotonic() + 20
    while not any(isinstance(e, Partial) and e.segment == 3 for e in events):  # mid 3rd phrase
        assert time.monotonic() < deadline
        time.sleep(0.02)
    pipeline.stop()
    assert pipeline.wait(20)
    assert isinstance(events[-1], Finished) and events[-1].reason == "stopped"
    segments = [e for e in events if isinstance(e, Segment)]
    assert len(segments) == 3 and segments[-1].words  # the cut-off phrase was still recognised
    assert words_of(final_text(events)) == recognised(events)


@pytest.mark.slow
def test_leave_ends_the_run_without_recognising_the_rest(
    model: PunctuationModel, sphinx: SphinxEngine
) -> None:
    """The window closing far behind (the audio is kept for the next start): the run ends
    without settling what is left, and the words it did settle are all in the text."""
    events: list[Event] = []
    pipeline = make_pipeline(sphinx, StreamingPunctuator(model), events.append)

    def leave_at_the_first_segment(event: Event) -> None:
        events.append(event)
        if isinstance(event, Segment) and event.segment == 1:
            pipeline.leave()

    pipeline.sink.on_event = leave_at_the_first_segment
    pipeline.run(FileSource(DATA / "en_phrases.wav"))  # read at full speed: all of it queued
    assert isinstance(events[-1], Finished) and events[-1].reason == "left"
    segments = [e for e in events if isinstance(e, Segment)]
    assert 1 <= len(segments) < 4  # the recording says four phrases
    assert words_of(final_text(events)) == recognised(events)


class FailingSource:
    """A file source whose device 'disappears' after ``fail_after`` seconds of audio.

    The real device-lost path (a PulseAudio server killed under PortAudio) is tested in
    tests/audio/test_capture.py; this one checks the pipeline's handling without a sound server.
    """

    dropped_blocks = 0

    def __init__(self, path: Path, fail_after: float) -> None:
        self.inner = FileSource(path)
        self.name = "flaky"
        self.fail_after = fail_after

    def blocks(self) -> Iterator[AudioBlock]:
        for block in self.inner.blocks():
            if block.start >= self.fail_after:
                raise AudioDeviceError("microphone 'flaky' stopped delivering audio")
            yield block

    def stop(self) -> None:
        self.inner.stop()


@pytest.mark.slow
def test_lost_device_keeps_the_words_and_the_pipeline_can_resume(
    model: PunctuationModel, sphinx: SphinxEngine
) -> None:
    events: list[Event] = []
    pipeline = make_pipeline(sphinx, StreamingPunctuator(model), events.append)
    pipeline.run(FailingSource(DATA / "en_phrases.wav", fail_after=7.0))  # inside "how are you"
    errors = [e for e in events if isinstance(e, Error)]
    assert len(errors) == 1 and errors[0].fatal and "flaky" in errors[0].message
    assert isinstance(events[-1], Finished) and events[-1].reason == "error"
    assert len([e for e in events if isinstance(e, Segment)]) == 2
    assert words_of(final_text(events)) == recognised(events)
    # Dictation resumes on another source with the same pipeline.
    more: list[Event] = []
    pipeline.sink.on_event = more.append
    pipeline.run(FileSource(DATA / "en_phrases.wav"))
    assert isinstance(more[-1], Finished) and more[-1].reason == "end_of_audio"
    assert final_text(more)


class BrokenPunctuator:
    """Works for the first segment, then raises: stands in for an ONNX Runtime failure."""

    def __init__(self, model: PunctuationModel) -> None:
        self.inner = StreamingPunctuator(model)
        self.calls = 0

    @property
    def pending(self):  # type: ignore[no-untyped-def]
        return self.inner.pending

    def feed(
        self,
        words: list[str],
        cases: list[str | None] | None = None,
        hints: list[str | None] | None = None,
    ) -> Update:
        self.calls += 1
        if self.calls > 1:
            raise RuntimeError("ONNX Runtime: out of memory")
        return self.inner.feed(words, cases, hints)

    def mark(self, mark: str) -> Update:
        return self.inner.mark(mark)

    def flush(self, close: bool = True) -> Update:
        return self.inner.flush(close)

    def drop_pending(self) -> Any:
        return self.inner.drop_pending()

    def reset(self) -> None:
        self.inner.reset()


@pytest.mark.slow
def test_failing_punctuator_still_delivers_every_word(
    model: PunctuationModel, sphinx: SphinxEngine
) -> None:
    events: list[Event] = []
    make_pipeline(sphinx, BrokenPunctuator(model), events.append).run(
        FileSource(DATA / "en_phrases.wav")
    )
    errors = [e for e in events if isinstance(e, Error)]
    assert len(errors) == 1 and not errors[0].fatal and "punctuation failed" in errors[0].message
    assert words_of(final_text(events)) == recognised(events)
    assert any(isinstance(e, Finalized) and not e.punctuated for e in events)
    assert isinstance(events[-1], Finished) and events[-1].reason == "end_of_audio"


@pytest.mark.slow
def test_a_failing_listener_does_not_stop_the_pipeline(sphinx: SphinxEngine) -> None:
    seen: list[Event] = []
    lock = threading.Lock()

    def listener(event: Event) -> None:
        with lock:
            seen.append(event)
        if isinstance(event, Level):
            raise ValueError("listener bug")

    pipeline = make_pipeline(sphinx, None, listener)
    pipeline.run(FileSource(DATA / "en_phrases.wav"))
    assert isinstance(seen[-1], Finished)
    # Without a punctuator, words arrive raw, one Finalized per segment.
    raw = [e for e in seen if isinstance(e, Finalized)]
    assert raw and not any(e.punctuated for e in raw)


def test_start_twice_is_refused(sphinx: SphinxEngine) -> None:
    pipeline = make_pipeline(sphinx, None, lambda e: None)
    pipeline.start(FileSource(DATA / "en_phrases.wav", realtime=True))
    try:
        with pytest.raises(RuntimeError, match="already running"):
            pipeline.start(FileSource(DATA / "en_phrases.wav"))
    finally:
        pipeline.stop()
        assert pipeline.wait(20)


class BreakingEngine:
    """Real PocketSphinx whose recogniser raises once ``fail_after`` seconds of audio have been
    fed: stands in for a recogniser (or its child process) failing in the middle of a segment,
    which cannot be made to happen on cue with the real engine. With ``finish_fails`` its
    ``finish`` raises too (a dead process can give nothing more)."""

    def __init__(self, inner: SphinxEngine, fail_after: float, finish_fails: bool) -> None:
        self.inner, self.fail_after, self.finish_fails = inner, fail_after, finish_fails

    def recognizer(self) -> Any:
        return BreakingRecognizer(self.inner.recognizer(), self)


class BreakingRecognizer:
    def __init__(self, inner: Any, engine: BreakingEngine) -> None:
        self.inner, self.engine, self.fed = inner, engine, 0.0
        self.broken = False

    @property
    def alternatives(self) -> list[list[str]]:
        return list(self.inner.alternatives)

    def start(self, time: float) -> None:
        self.inner.start(time)
        self.fed = time

    def accept(self, samples: Any) -> list[str] | None:
        self.fed += len(samples) / 16000
        if self.fed >= self.engine.fail_after:
            self.broken = True
            raise RuntimeError("recogniser process died (injected)")
        return self.inner.accept(samples)

    def finish(self) -> Any:
        if self.broken and self.engine.finish_fails:
            raise RuntimeError("recogniser process is gone (injected)")
        self.broken = False
        return self.inner.finish()


@pytest.mark.slow
@pytest.mark.parametrize("finish_fails", [False, True])
def test_a_recogniser_failing_mid_segment_keeps_the_words_heard(
    model: PunctuationModel, sphinx: SphinxEngine, finish_fails: bool
) -> None:
    """Found in review: the segment the failure interrupted never ended, so its words (shown
    greyed while they were heard) vanished when the run finished."""
    events: list[Event] = []
    engine = BreakingEngine(sphinx, fail_after=9.3, finish_fails=finish_fails)  # in phrase 3
    make_pipeline(engine, StreamingPunctuator(model), events.append).run(
        FileSource(DATA / "en_phrases.wav")
    )
    errors = [e for e in events if isinstance(e, Error)]
    assert errors and errors[0].fatal and "injected" in errors[0].message
    assert isinstance(events[-1], Finished) and events[-1].reason == "error"
    segments = [e for e in events if isinstance(e, Segment)]
    last = segments[-1]
    assert last.reason == "error" and last.words
    heard = [e.words for e in events if isinstance(e, Partial) and e.segment == last.segment]
    assert heard, "the interrupted segment had shown partial words"
    if finish_fails:
        assert [w.text for w in last.words] == heard[-1]
    assert words_of(final_text(events)) == recognised(events)


class _Behind:
    """An audio file read as a microphone whose backlog says the recogniser is ``behind``
    seconds behind it (what a busy machine makes; the backlog itself is tested with a real
    microphone in tests/audio/test_capture.py)."""

    def __init__(self, path: Path, behind: float) -> None:
        self.file = FileSource(path)
        self.name = self.file.name
        self.behind = behind
        self.dropped_blocks = 0
        self.origin = time.monotonic()  # audio time 0 (Pipeline.wall_time)
        self.captured = 0.0

    def blocks(self) -> Iterator[AudioBlock]:
        for block in self.file.blocks():
            self.captured = block.end + self.behind
            yield block

    def stop(self) -> None:
        self.file.stop()


@pytest.mark.slow
def test_catching_up_skips_live_words_and_keeps_every_final_word(
    model: PunctuationModel, sphinx: SphinxEngine
) -> None:
    """Far behind the microphone, the pipeline stops punctuating partial words live and feeds
    the recogniser in long pieces, to catch up; the final words are those of a run that was
    not behind, and how far behind it is reads from the source's clock."""
    runs: dict[float, list[Event]] = {}
    behind_seen: list[float] = []
    for behind in (0.0, 8.0):
        events: list[Event] = []
        pipeline = make_pipeline(sphinx, StreamingPunctuator(model), events.append)

        def watch(event: Event, events: list[Event] = events, p: Pipeline = pipeline) -> None:
            events.append(event)
            if isinstance(event, Level):
                behind_seen.append(p.behind())

        pipeline.sink.on_event = watch
        pipeline.run(_Behind(DATA / "en_phrases.wav", behind))
        runs[behind] = events
    normal, late = runs[0.0], runs[8.0]
    assert any(type(e).__name__ == "Live" for e in normal)
    assert not any(type(e).__name__ == "Live" for e in late)
    assert sum(isinstance(e, Partial) for e in late) < sum(isinstance(e, Partial) for e in normal)
    assert recognised(late) == recognised(normal)
    assert final_text(late) == final_text(normal)
    assert max(behind_seen) >= 8.0


class _SlowRefiner:
    """Takes ``seconds`` to settle each segment (a stand-in for the second pass and the
    command check on a busy machine), keeping its words; records when it worked."""

    name = "slow"

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.spans: list[tuple[float, float]] = []

    def refine(self, segment: Any, words: list[Any]) -> None:
        started = time.monotonic()
        time.sleep(self.seconds)
        self.spans.append((started, time.monotonic()))

    @property
    def rewritten(self) -> list[tuple[str, str]]:
        return []

    def reset(self) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.slow
def test_the_words_being_spoken_are_not_punctuated_live_while_a_segment_settles(
    model: PunctuationModel, sphinx: SphinxEngine
) -> None:
    """Live punctuation is for the eyes; a closed segment's settled words have a deadline. So
    while the refining thread settles a segment, the partial words of the next one wait (and
    are punctuated after): the two do not share the cores. Said in real time, with a refiner
    slow enough that the next phrase's words come while it works."""
    events: list[Event] = []
    live_at: list[float] = []
    pipeline = make_pipeline(sphinx, StreamingPunctuator(model), events.append)
    slow = _SlowRefiner(1.5)
    pipeline.refiners = [slow, *pipeline.refiners]

    def watch(event: Event) -> None:
        events.append(event)
        if type(event).__name__ == "Live":
            live_at.append(time.monotonic())

    pipeline.sink.on_event = watch
    pipeline.run(FileSource(DATA / "en_phrases.wav", realtime=True))
    assert len(slow.spans) >= 3 and live_at
    inside = [t for t in live_at for start, end in slow.spans if start + 0.05 < t < end]
    assert not inside, (inside, slow.spans)
    assert "Thank you" in final_text(events)
