"""The parallel decode of a file (dictate.run.file_decode): the sequential pipeline's words with 1
and 2 workers, progress, cancel, a dying worker, and the reader held back by full inboxes."""

from __future__ import annotations

import multiprocessing
import os
import re
import signal
import threading
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from whisper_marks import needs_tiny

from dictate.asr.segmenter import SegmenterOptions
from dictate.audio.capture import FileSource
from dictate.events import Command, Error, Finished, Segment
from dictate.run.assembly import build_file_run
from dictate.run.file_decode import _Reader, _Waiting
from dictate.run.sink import final_text
from dictate.seam.cutter import Cutter

DATA = Path(__file__).resolve().parent / "data"
RATE = 16_000


def _write(path: Path, samples: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(samples.astype("<i2").tobytes())
    return path


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The English fixtures one after another with silences between: 27 s, 9 segments."""
    parts = []
    for name in ("en_commands.wav", "en_phrases.wav"):
        parts += [
            np.concatenate([b.samples for b in FileSource(DATA / name).blocks()]),
            np.zeros(RATE, np.int16),
        ]
    return _write(tmp_path_factory.mktemp("long") / "long.wav", np.concatenate(parts))


def _said(events: list[Any]) -> list[Any]:
    return [
        ([(w.text, w.start, w.end) for w in e.words], e.alternatives, e.start, e.end, e.pauses)
        for e in events
        if isinstance(e, Segment)
    ]


@pytest.fixture(scope="module")
def sphinx() -> Any:
    from dictate.asr.sphinx_engine import SphinxEngine

    return SphinxEngine()


@pytest.fixture(scope="module")
def punctuation() -> Any:
    from dictate.punctuation.model import load_punctuation_model

    return load_punctuation_model(None)


@pytest.fixture(scope="module")
def sequential(recording: Path, sphinx: Any, punctuation: Any) -> list[Any]:
    """As ``dictate transcribe`` runs it: "stop dictating" does nothing in a file."""
    from dictate.run.assembly import TextOptions, build_pipeline

    events: list[Any] = []
    text = TextOptions(commands=True, written_forms=True)
    built = build_pipeline(
        sphinx, punctuation, events.append, text, live=False, commit_after=1.0, stop_command=False
    )
    built.pipeline.run(FileSource(recording))
    return events


class _ClosingEngine:
    """``engine``, whose command decoders note that they were closed (the window's is a
    process of its own: it must not outlive the run)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine
        self.closed: list[bool] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.engine, name)

    def command_decoder(self, phrases: Any) -> Any:
        decoder = self.engine.command_decoder(phrases)
        closed = self.closed

        class Closing:
            def __getattr__(self, name: str) -> Any:
                return getattr(decoder, name)

            def close(self) -> None:
                closed.append(True)

        return Closing()


@pytest.mark.slow
@pytest.mark.parametrize("workers", [1, 2])
def test_the_words_are_the_sequential_pipelines(
    recording: Path, sphinx: Any, punctuation: Any, sequential: list[Any], workers: int
) -> None:
    from dictate.run.assembly import TextOptions

    events: list[Any] = []
    done: list[tuple[float, float]] = []
    spoken: list[tuple[float, float, float]] = []
    engine = _ClosingEngine(sphinx)
    run, _ = build_file_run(
        recording,
        engine,
        punctuation,
        events.append,
        TextOptions(commands=True, written_forms=True),
        workers=workers,
        processes=True,
        commit_after=1.0,
        progress=lambda d, t: done.append((d, t)),
        speech=lambda *said: spoken.append(said),
        chunk_s=4.0,
    )
    result = run.run()
    assert result is not None
    assert result.reason == "end_of_audio" and result.exact and result.chunks >= 3
    # The speech the workers decoded, in any order, up to all the speech read (the time left)
    decoded = [d for d, _, _ in spoken]
    assert len(spoken) == result.chunks and decoded == sorted(decoded)
    assert spoken[-1][0] == pytest.approx(spoken[-1][1]) and 0 < spoken[-1][1] < spoken[-1][2]
    assert _said(events) == _said(sequential)  # words, times, n-best, spans, pauses
    assert len(_said(events)) >= 6
    assert final_text(events) == final_text(sequential)
    assert [(e.kind, e.spoken) for e in events if isinstance(e, Command)] == [
        (e.kind, e.spoken) for e in sequential if isinstance(e, Command)
    ]
    assert isinstance(events[-1], Finished) and events[-1].reason == "end_of_audio"
    seconds = [d for d, _ in done]
    assert seconds == sorted(seconds) and done[-1][0] == done[-1][1] == result.audio_seconds
    assert engine.closed == [True]


@pytest.mark.slow
def test_cancel_keeps_a_prefix_of_the_text(
    recording: Path, sphinx: Any, punctuation: Any, sequential: list[Any]
) -> None:
    cancel = threading.Event()
    events: list[Any] = []
    run, _ = build_file_run(
        recording,
        sphinx,
        punctuation,
        events.append,
        workers=2,
        progress=lambda d, t: cancel.set(),  # after the first chunk is done
        cancel=cancel,
        chunk_s=4.0,
    )
    result = run.run()
    assert result is not None
    assert result.reason == "stopped" and isinstance(events[-1], Finished)
    kept, whole = _said(events), _said(sequential)
    assert 0 < len(kept) < len(whole) and kept == whole[: len(kept)]
    words = [w.text for e in events if isinstance(e, Segment) for w in e.words]
    assert re.sub(r"[^\w' ]", "", final_text(events).lower()).split() == words  # all kept


@pytest.mark.slow
def test_a_worker_that_dies_ends_the_run_with_an_error(
    recording: Path, sphinx: Any, punctuation: Any
) -> None:
    def kill_worker_1(done: float, total: float) -> None:
        for child in multiprocessing.active_children():
            if child.name == "dictate-decode-1" and child.pid:
                os.kill(child.pid, signal.SIGKILL)

    events: list[Any] = []
    began = time.monotonic()
    run, _ = build_file_run(
        recording, sphinx, punctuation, events.append, workers=2, progress=kill_worker_1, chunk_s=4
    )
    result = run.run()
    assert result is not None
    assert time.monotonic() - began < 60
    assert result.reason == "error"
    [error] = [e for e in events if isinstance(e, Error)]
    assert error.fatal and "worker 1 ended unexpectedly" in error.message
    assert any(isinstance(e, Segment) and e.words for e in events)  # chunk 0 is kept
    assert isinstance(events[-1], Finished) and events[-1].reason == "error"


class _Inbox:
    def __init__(self) -> None:
        self.waiting = 0

    def qsize(self) -> int:
        return self.waiting


class _BlockingPool:
    """Stands in for the workers: every inbox is full until ``release`` is set."""

    can_warm = True

    def __init__(self) -> None:
        self.inboxes = [_Inbox(), _Inbox()]
        self.release = threading.Event()
        self.chunks: list[Any] = []
        self.chunk_speech: dict[int, float] = {}  # the reader says each chunk's speech here

    def put(self, worker: int, chunk: Any, stop: threading.Event) -> bool:
        while not self.release.wait(0.01):
            if stop.is_set():
                return False
        self.chunks.append((worker, chunk))
        return True


def test_the_reader_waits_while_the_inboxes_are_full(tmp_path: Path) -> None:
    """Bounded memory: the file is read no further than the chunk waiting to be sent."""
    speech = (np.sin(np.arange(RATE) * 0.3) * 8000).astype(np.int16)  # 1 s "speech"
    audio = np.concatenate([np.concatenate([speech, np.zeros(RATE, np.int16)])] * 60)
    path = _write(tmp_path / "tones.wav", audio)  # 120 s, 60 segments

    def vad(chunk: np.ndarray) -> float:
        return 0.9 if np.abs(chunk.astype(np.int32)).mean() > 1000 else 0.0

    pool = _BlockingPool()
    stop = threading.Event()
    cutter = Cutter(SegmenterOptions(), vad)
    reader = _Reader(FileSource(path), cutter, pool, 3.0, stop)  # type: ignore[arg-type]
    reader.start()
    time.sleep(0.5)
    assert reader.is_alive() and cutter.time < 10  # stuck at the first chunk
    # its segments (each after its speech start), and nothing after them
    waiting = sum(isinstance(item, _Waiting) for item in list(reader.timeline.queue))
    assert 1 <= waiting <= 3
    pool.release.set()
    reader.join(30)
    decoded = [c for w, c in pool.chunks if w == 0]
    assert [c.index for c in decoded] == list(range(len(decoded)))
    assert len(decoded[0].segments) == waiting and sum(len(c.segments) for c in decoded) == 60
    # each chunk goes to both workers, the first free to decode it (decode_worker.claim), the
    # other to warm on it
    assert [(w, c.index) for w, c in pool.chunks] == [
        (w, i) for i in range(len(decoded)) for w in (0, 1)
    ]
    assert all(c.decode is None for w, c in pool.chunks)
    biggest = max(sum(len(s.audio) for s in c.segments) for c in decoded)
    assert biggest <= (3.0 + 2.0) * RATE  # chunk_s and one segment (pre-roll, speech, tail)
    stop.set()


def test_a_stop_while_the_inboxes_are_full_is_not_a_reading_error(tmp_path: Path) -> None:
    """Cancel lands while the reader waits to hand a chunk over (CI, on a loaded machine:
    the window said "failed" instead of "cancelled")."""
    speech = (np.sin(np.arange(RATE) * 0.3) * 8000).astype(np.int16)
    audio = np.concatenate([np.concatenate([speech, np.zeros(RATE, np.int16)])] * 20)
    path = _write(tmp_path / "tones.wav", audio)

    def vad(chunk: np.ndarray) -> float:
        return 0.9 if np.abs(chunk.astype(np.int32)).mean() > 1000 else 0.0

    stop = threading.Event()
    cutter = Cutter(SegmenterOptions(), vad)
    reader = _Reader(FileSource(path), cutter, _BlockingPool(), 3.0, stop)  # type: ignore[arg-type]
    reader.start()
    deadline = time.monotonic() + 60
    while reader.timeline.qsize() == 0 and time.monotonic() < deadline:  # held at a chunk
        time.sleep(0.01)
    stop.set()
    reader.join(60)
    assert not reader.is_alive() and reader.error is None


def test_the_first_worker_free_decodes_each_chunk_and_the_others_warm_on_it() -> None:
    """decode_worker.claim, on the shared integer the pool gives its workers: each worker
    comes to every chunk in order; the first to come to one decodes it, later ones warm."""
    import multiprocessing

    from dictate.asr.decode_worker import claim

    claims = multiprocessing.get_context("spawn").Value("q", 0)
    # Worker 0 comes to chunk 0 first; worker 1, done warming on it, takes chunk 1 while
    # worker 0 still decodes chunk 0; worker 0 then warms on chunk 1 and takes chunk 2.
    assert claim(claims, 0) is True  # worker 0
    assert claim(claims, 0) is False  # worker 1: warms
    assert claim(claims, 1) is True  # worker 1
    assert claim(claims, 1) is False  # worker 0: warms
    assert claim(claims, 2) is True  # worker 0
    assert claims.value == 3


def test_the_chunks_shorten_near_the_end_of_the_file(tmp_path: Path) -> None:
    """The last chunks hold less speech (TAPER), so no worker waits long on another's last
    chunk; where the file is cut depends on the audio alone."""
    speech = (np.sin(np.arange(RATE) * 0.3) * 8000).astype(np.int16)  # 1 s "speech"
    audio = np.concatenate([np.concatenate([speech, np.zeros(RATE, np.int16)])] * 60)
    path = _write(tmp_path / "tones.wav", audio)  # 120 s, 60 segments

    def vad(chunk: np.ndarray) -> float:
        return 0.9 if np.abs(chunk.astype(np.int32)).mean() > 1000 else 0.0

    def sizes() -> list[float]:
        pool = _BlockingPool()
        pool.release.set()
        reader = _Reader(FileSource(path), Cutter(SegmenterOptions(), vad), pool, 10.0,  # type: ignore[arg-type]
                         threading.Event())  # fmt: skip
        reader.run()
        return [sum(len(s.audio) for s in c.segments) / RATE for w, c in pool.chunks if w == 0]

    first = sizes()
    assert first == sizes()  # the same cuts every time
    assert min(first[:4]) >= 10.0  # full chunks while much is left
    assert first[4:] == sorted(first[4:], reverse=True)  # then shorter and shorter
    assert max(first[-3:]) < 5.0


def test_the_worker_options() -> None:
    import argparse

    from dictate.cli.bench_file import worker_counts
    from dictate.cli.transcribe import workers_count

    assert workers_count("3") == 3 and workers_count("auto") == max(1, min(64, os.cpu_count() or 1))
    assert worker_counts("1,2,4") == [1, 2, 4]
    for bad in ("0", "x"):
        with pytest.raises(argparse.ArgumentTypeError):
            workers_count(bad)
        with pytest.raises(argparse.ArgumentTypeError):
            worker_counts(bad)


def test_more_workers_than_cores_are_cut_to_the_cores_with_one_line() -> None:
    import io

    from dictate.cli.transcribe import usable_workers

    err = io.StringIO()
    assert usable_workers(64, err, cores=2) == 2
    assert err.getvalue() == (
        "dictate: note: --workers 64 is more than the 2 cores this process may run on; using 2\n"
    )
    quiet = io.StringIO()
    assert usable_workers(2, quiet, cores=2) == 2 and usable_workers(1, quiet, cores=8) == 1
    assert quiet.getvalue() == ""


@pytest.mark.slow
def test_transcribe_with_64_workers_on_2_cores_starts_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from dictate.cli import main
    from dictate.paths import asset_path
    from dictate.run import file_decode as file_decode

    started: list[int] = []
    original = file_decode._Pool.__init__

    def counting(self: Any, engine: Any, workers: int, *args: Any) -> None:
        started.append(workers)
        original(self, engine, workers, *args)

    monkeypatch.setattr(file_decode._Pool, "__init__", counting)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    sample = str(asset_path("sample_en.wav"))
    code = main(["transcribe", sample, "--workers", "64", "--engine", "sphinx",
                 "--second-pass", "off"])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0 and out.strip()
    assert started == [2]
    assert "--workers 64 is more than the 2 cores this process may run on; using 2" in err


def test_an_unexpected_failure_of_the_parallel_decode_is_an_error_not_a_silent_success(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug inside the parallel decode (here the worker pool raising what it never should)
    once ended ``transcribe --workers 2`` with exit 0 and no text: it is an error now."""
    from dictate.cli import main
    from dictate.paths import asset_path
    from dictate.run import file_decode as file_decode

    def broken(self: Any, *args: Any) -> None:
        raise TypeError("a bug")

    monkeypatch.setattr(file_decode._Pool, "__init__", broken)
    sample = str(asset_path("sample_en.wav"))
    code = main(["transcribe", sample, "--workers", "2", "--engine", "sphinx",
                 "--second-pass", "off"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2
    assert "decoding" in err and "failed: TypeError('a bug')" in err


@pytest.fixture(scope="module")
def whisper() -> Any:
    from dictate.asr.whisper_engine import WhisperSecondPass

    return WhisperSecondPass()


@pytest.mark.slow
@needs_tiny
def test_with_whisper_the_workers_decode_its_pass_too_and_the_words_are_one_processs(
    recording: Path, sphinx: Any, punctuation: Any, whisper: Any, tmp_path: Path
) -> None:
    """Whisper's decode of each segment is made in the decode workers, beside the first
    pass (it was the main process's, one segment at a time, and bounded the speed-up: issue
    53); the main process uses it (``ahead_used``) and settles, judges commands and punctuates
    as before. The words, the commands and the text are those of one process decoding the
    file with the same models (the sequential pipeline), on the fixtures and on a real
    recording."""
    from dictate.run.assembly import TextOptions, build_pipeline

    jfk = tmp_path / "jfk.wav"  # J. F. Kennedy, 11 s: a real voice, four segments
    _write(
        jfk, np.concatenate([b.samples for b in FileSource(DATA / "real" / "jfk.flac").blocks()])
    )
    text = TextOptions(commands=True, written_forms=True)
    for audio in (recording, jfk):
        sequential: list[Any] = []
        built = build_pipeline(sphinx, punctuation, sequential.append, text, None, whisper,
                               live=False, commit_after=1.0, stop_command=False)  # fmt: skip
        built.pipeline.run(FileSource(audio))
        events: list[Any] = []
        run, _ = build_file_run(audio, sphinx, punctuation, events.append, text, None, whisper,
                                workers=2, commit_after=1.0, chunk_s=4.0)  # fmt: skip
        result = run.run()
        assert result is not None and result.reason == "end_of_audio"
        refiner = run.sink.refiners[0]
        decoded = sum(refiner.verdicts.values())
        assert decoded >= 4 and refiner.ahead_used == decoded  # none decoded here again
        assert _settled(events) == _settled(sequential)
        assert final_text(events) == final_text(sequential) != ""
        assert [(e.kind, e.spoken) for e in events if isinstance(e, Command)] == [
            (e.kind, e.spoken) for e in sequential if isinstance(e, Command)
        ]


def _settled(events: list[Any]) -> list[Any]:
    """Each segment's settled words and who settled them."""
    return [
        ([(w.text, round(w.start, 3), round(w.end, 3)) for w in e.words], e.settled_by)
        for e in events
        if isinstance(e, Segment)
    ]
