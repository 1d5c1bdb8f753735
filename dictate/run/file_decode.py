"""An audio file decoded by several recogniser processes at once, with the sequential pipeline's
words: ``dictate transcribe FILE --workers N`` and ``dictate bench file``.

* **Segments, here.** A reader thread streams the file in blocks through the
  :class:`~dictate.seam.cutter.Cutter` (Silero VAD, fast) exactly as
  :class:`~dictate.run.pipeline.Pipeline` does, so the segments, their pauses and the
  commit-on-pause points are the sequential run's. Consecutive segments are grouped into
  chunks of about ``chunk_s`` seconds of segment audio, cut by the audio alone, never by the
  number of workers.
* **Words, in the workers** (:mod:`dictate.asr.decode_worker`, one spawned process and one
  recogniser each: PocketSphinx holds the GIL, neither engine is thread-safe). A chunk is
  decoded by the first worker free to take it (:func:`~dictate.asr.decode_worker.claim`; Vosk:
  chunk ``k`` by worker ``k mod N``). A PocketSphinx recogniser carries its cepstral mean
  normalisation from segment to segment, so every worker also *hears* the chunks the others
  decode (:meth:`~dictate.asr.sphinx_engine.SphinxRecognizer.warm`, 4% of a decode's cost):
  each segment is decoded in the state a single recogniser would be in, and the words, times
  and n-best are the sequential pipeline's. Vosk has no such warming: each chunk gets a fresh
  recogniser, and its word times (now and then a word) may differ from the sequential run's
  and between worker counts (:attr:`Decoded.exact` is False; docs/parallel-decode.md).
* **The second pass, in the workers too** (Whisper on the CPU,
  :func:`second_pass_spec`): each worker decodes its chunk's segments again with its own copy
  of the model (:meth:`~dictate.asr.whisper_engine.WhisperSecondPass.decode_ahead`), and the
  refiner here uses that decode (:attr:`~dictate.seam.segment.ClosedSegment.ahead`); one that
  sampled (the temperature fallback) is decoded here again, in order, so the words are one
  process's with any number of workers.
* **Text, here, in order**: each segment through the pipeline's
  :class:`~dictate.run.sink.Sink` (refiners, :class:`~dictate.events.Segment`, text stage);
  commits where the pipeline commits (the cutter's clock, in source seconds).

Memory is bounded: every worker's inbox holds at most ``queue_chunks`` chunks and the reader
waits when one is full, so a 3-hour file is never held; what waits for its turn is words.
``cancel`` keeps the chunks decoded so far, in order, then finishes the text. A worker that
fails or dies ends the run with an Error (what came before is kept), never a hang. Nothing is
live: no Partial, Live or Level events.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import queue
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dictate.asr.decode_worker import Chunk, SegmentPieces, serve
from dictate.asr.engine import Word
from dictate.asr.registry import options_of
from dictate.audio.capture import FileSource
from dictate.audio.format import SAMPLE_RATE
from dictate.errors import DictateError, close_quietly
from dictate.events import Error, Finished, SpeechStart
from dictate.run.sink import Sink
from dictate.seam.cutter import Began, Closed, Commit, Cutter, Piece
from dictate.seam.segment import ClosedSegment

log = logging.getLogger("dictate.run.file_decode")

CHUNK_S = 10.0
"""Seconds of segment audio per chunk (a chunk ends at the first segment end after them); 30 s
chunks left a core idle at the start and the end (docs/parallel-decode.md)."""
FRESH_CHUNK_FACTOR = 2
"""Chunks are this many times longer for an engine that cannot warm (Vosk): each gets a fresh
recogniser, which costs a second or two for a large model."""
TAPER = 4
"""Near the end a chunk holds at most the speech still to come over this many (at least a
quarter of ``chunk_s``), cut by the audio alone: no worker waits long on the last one."""
QUEUE_CHUNKS = 3
"""Chunks waiting in each worker's inbox at most."""
_END = "end"


@dataclass
class _Waiting:
    """A closed segment the main thread keeps until its chunk's words come back."""

    chunk: int
    index: int  # in its chunk
    segment: ClosedSegment


@dataclass(frozen=True)
class _ChunkEnd:
    """Chunk ``chunk`` was sent; the reader had judged ``time`` seconds of the file."""

    chunk: int
    time: float


@dataclass
class Decoded:
    """How a run ended."""

    reason: str
    """"end_of_audio", "stopped" (cancelled) or "error"."""
    exact: bool
    """Whether the words are the sequential pipeline's (a recogniser that can warm)."""
    audio_seconds: float
    segments: int
    chunks: int = 0
    errors: list[str] = field(default_factory=list)


class _Failed(Exception):
    pass


def decode_file(
    path: str | Path,
    engine: Any,
    sink: Sink,
    workers: int = 2,
    *,
    vocabulary: Sequence[Any] = (),
    segmenter_options: Any = None,
    commit_after: float | None = None,
    progress: Callable[[float, float], None] | None = None,
    speech: Callable[[float, float, float], None] | None = None,
    cancel: threading.Event | None = None,
    chunk_s: float = CHUNK_S,
    queue_chunks: int = QUEUE_CHUNKS,
    vad: Callable[[Any], float] | None = None,
) -> Decoded:
    """Decode ``path`` with ``workers`` recogniser processes into ``sink`` (events in the
    pipeline's order, from this thread); returns when done, cancelled or failed. Made by
    :func:`~dictate.run.assembly.build_file_run`.

    Args:
        engine: The loaded engine; the workers load their own from its name and model path.
        sink: The refiners and text stage (:func:`~dictate.run.assembly.build_sink`).
        vocabulary: The user's vocabulary, for the workers' recognisers that can use it.
        commit_after: As the pipeline's: commit pending words after this much silence.
        progress: Called with (seconds of audio done, in order; the file's seconds).
        speech: Called when a worker has decoded a chunk, with (seconds of speech the workers
            decoded, in any order; of speech read; of audio read): decoding costs speech, not
            audio, a recording may hold more of it in one part than another, and the words come
            in order while the workers decode ahead (the window's time left).
        cancel: Set it to stop: what is decoded so far is kept and the text finished.
        chunk_s, queue_chunks: See :data:`CHUNK_S`, :data:`QUEUE_CHUNKS`.
    """
    if workers < 1:
        raise ValueError(f"workers must be at least 1, not {workers}")
    source = FileSource(path)
    total = source.info.duration
    began = time.monotonic()

    def now() -> float:
        return time.monotonic() - began

    emit = sink.emit
    sink.start(now)
    cancel = cancel or threading.Event()
    ahead = second_pass_spec(sink)
    try:
        pool = _Pool(engine, workers, queue_chunks, list(vocabulary), ahead)
    except DictateError as exc:
        emit(Error(now(), str(exc), True))
        emit(Finished(now(), "error", 0.0, 0))
        return Decoded("error", False, 0.0, 0, errors=[str(exc)])
    result = Decoded("end_of_audio", pool.can_warm, 0.0, 0)
    if not pool.can_warm:  # a fresh recogniser per chunk: fewer, longer chunks
        chunk_s *= FRESH_CHUNK_FACTOR
    cutter = Cutter(segmenter_options, vad, commit_after=commit_after, now=now)
    reader = _Reader(source, cutter, pool, chunk_s, cancel, second_pass=ahead is not None)
    if speech is not None:
        pool.on_decoded = lambda: speech(pool.decoded_speech, reader.speech_read, cutter.time)
    done_time = 0.0  # source seconds whose words are in: what a cancelled run says it did
    try:
        reader.start()
        waiting: dict[int, list[Any]] = {}
        while True:
            item = reader.timeline.get()
            if item is _END or cancel.is_set():  # cancelled: here, not after what is decoded
                break
            if isinstance(item, Began):
                emit(SpeechStart(now(), item.number, item.time))
            elif isinstance(item, Commit):
                sink.commit()
            elif isinstance(item, _ChunkEnd):
                waiting.pop(item.chunk, None)
                result.chunks += 1
                done_time = max(done_time, item.time)
                if progress is not None:
                    progress(min(item.time, total), total)
            else:
                if item.chunk not in waiting:
                    waiting[item.chunk] = pool.wait_for(item.chunk, cancel)
                said, alternatives, segment_ahead = waiting[item.chunk][item.index]
                segment = item.segment
                segment.words = [Word(*w) for w in said]
                segment.alternatives = list(alternatives or [])
                segment.ahead = segment_ahead
                settled = sink.settle(segment)
                segment.audio = segment.audio[:0]  # settled: its audio is no longer needed
                result.segments = segment.number
                sink.write(settled)
                done_time = max(done_time, segment.end)
                if progress is not None:
                    progress(min(done_time, total), total)
        if reader.error is not None:
            raise DictateError(reader.error)
        if cancel.is_set():
            result.reason = "stopped"
    except _Failed:
        result.reason = "stopped"
    except DictateError as exc:
        result.reason = "error"
        result.errors.append(str(exc))
        emit(Error(now(), str(exc), True))
    finally:
        cancel.set()  # the reader stops at its next block
        pool.close()
        reader.join()
    sink.finish(sink.written)
    # Stopped: as far as the words go (the reader has read ahead of them).
    result.audio_seconds = total if result.reason == "end_of_audio" else done_time
    if progress is not None and result.reason == "end_of_audio":
        progress(total, total)
    emit(Finished(now(), result.reason, result.audio_seconds, 0))
    return result


def second_pass_spec(sink: Sink) -> Any:
    """What the workers load to decode the second pass too, from the refiner that can say
    (:meth:`~dictate.seam.second_pass.SecondPassRefiner.worker_spec`); None: it decodes here."""
    for refiner in sink.refiners:
        spec = getattr(refiner, "worker_spec", None)
        if callable(spec):
            return spec()
    return None


class ParallelRun:
    """:func:`decode_file` on a thread of its own, driven as a
    :class:`~dictate.run.pipeline.Pipeline` is (``start``, ``stop``, ``wait``, ``close``): what
    ``dictate transcribe --workers N`` and the window run. ``stop`` keeps what is decoded."""

    def __init__(self, path: str | Path, engine: Any, sink: Sink, workers: int, **options: Any):
        self._cancel: threading.Event = options.pop("cancel", None) or threading.Event()
        self._call = (path, engine, sink, workers, {**options, "cancel": self._cancel})
        self.sink = sink
        self._done = threading.Event()
        self._started = False
        self.result: Decoded | None = None
        self.owned: list[Any] = []  # what it loaded for itself (a second pass): closed at the end

    @property
    def running(self) -> bool:
        return self._started and not self._done.is_set()

    def start(self, source: Any = None) -> None:
        """Start decoding (``source`` is ignored: the path was given)."""
        self._started = True
        threading.Thread(target=self._run, name="dictate-file-decode", daemon=True).start()

    def _run(self) -> None:
        path, engine, sink, workers, options = self._call
        began = time.monotonic()
        try:
            self.result = decode_file(path, engine, sink, workers, **options)
        except Exception as exc:  # a bug: said as a failure (exit 2), never a silent end
            log.exception("decoding %s failed", path)
            message = f"decoding {path} failed: {exc!r}; what was decoded before is kept"
            with contextlib.suppress(Exception):
                sink.emit(Error(time.monotonic() - began, message, True))
                sink.emit(Finished(time.monotonic() - began, "error", 0.0, 0))
        finally:
            sink.close()  # the command decoder (the window's is a process of its own)
            for owned in self.owned:
                close_quietly(owned, log, "the second pass loaded for the file")
            self._done.set()

    def stop(self) -> None:
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        return self._done.wait(timeout)

    def run(self, source: Any = None) -> Decoded | None:
        """Start and wait for the end (benchmarks; tests); how it ended (None: a failure)."""
        self.start()
        self.wait()
        return self.result

    def close(self) -> None:
        """Nothing left to free: the refiners and what it owned were closed at the end."""


class _Pool:
    """The worker processes, each with a bounded inbox; one outbox for all."""

    def __init__(
        self,
        engine: Any,
        workers: int,
        queue_chunks: int,
        vocabulary: list[Any],
        second_pass: Any = None,
    ) -> None:
        context = multiprocessing.get_context("spawn")
        options = options_of(engine)
        self.outbox: Any = context.Queue()
        self.inboxes: list[Any] = [context.Queue(maxsize=queue_chunks) for _ in range(workers)]
        self.claims = claims = context.Value("q", 0)  # the first chunk no worker has taken
        self.processes = [
            context.Process(
                target=serve,
                args=(i, options, self.inboxes[i], self.outbox, vocabulary, second_pass, claims),
                name=f"dictate-decode-{i}",
                daemon=True,
            )
            for i in range(workers)
        ]
        for process in self.processes:
            process.start()
        self._results: dict[int, list[Any]] = {}
        self.chunk_speech: dict[int, float] = {}
        """Seconds of speech of each chunk sent and not decoded yet (the reader's)."""
        self.decoded_speech = 0.0
        """Seconds of speech the workers decoded, in any order: what the time left counts."""
        self.on_decoded: Callable[[], None] | None = None
        self.can_warm = True
        ready = 0
        try:
            while ready < workers:
                message = self._receive(120)
                if message[0] == "ready":
                    ready += 1
                    self.can_warm = self.can_warm and bool(message[2])
        except DictateError:
            self.close()
            raise

    def _receive(self, timeout: float) -> Any:
        """The next message; raises DictateError for a worker's error or death."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                message = self.outbox.get(timeout=0.2)
            except queue.Empty:
                for number, process in enumerate(self.processes):
                    if not process.is_alive():
                        raise DictateError(
                            f"recogniser worker {number} ended unexpectedly (exit code "
                            f"{process.exitcode}); the words decoded before it are kept"
                        ) from None
                if time.monotonic() > deadline:
                    raise DictateError("the recogniser workers did not answer") from None
                continue
            if message[0] == "error":
                raise DictateError(f"recogniser worker {message[1]} failed: {message[2]}")
            return message

    def wait_for(self, chunk: int, cancel: threading.Event) -> list[Any]:
        """The words of ``chunk``, keeping those of later chunks that come first; raises
        :class:`_Failed` when cancelled before it came."""
        while chunk not in self._results:
            if cancel.is_set():
                with contextlib.suppress(queue.Empty):
                    while chunk not in self._results:
                        self._store(self.outbox.get_nowait())
                if chunk not in self._results:
                    raise _Failed("stopped")
            else:
                self._store(self._receive(24 * 3600))
        return self._results.pop(chunk)

    def _store(self, message: Any) -> None:
        if message[0] == "done":
            self._results[message[2]] = message[3]
            self.decoded_speech += self.chunk_speech.pop(message[2], 0.0)
            if self.on_decoded is not None:
                self.on_decoded()
        elif message[0] == "error":
            raise DictateError(f"recogniser worker {message[1]} failed: {message[2]}")

    def put(self, worker: int, chunk: Chunk | None, stop: threading.Event) -> bool:
        """Queue ``chunk`` for ``worker``, waiting while its inbox is full; False if ``stop``
        was set or the worker died meanwhile (the main thread reports it)."""
        while True:
            try:
                self.inboxes[worker].put(chunk, timeout=0.2)
                return True
            except queue.Full:
                if stop.is_set() or not self.processes[worker].is_alive():
                    return False

    def close(self) -> None:
        for process in self.processes:
            if process.is_alive():
                process.kill()
        for process in self.processes:
            process.join(5)
        for inbox in [*self.inboxes, self.outbox]:
            inbox.cancel_join_thread()
            inbox.close()


class _Reader(threading.Thread):
    """Streams the file through the cutter, sends chunks to the workers and puts the timeline
    (speech starts, closed segments, commits, chunk ends) for the main thread."""

    def __init__(
        self,
        source: FileSource,
        cutter: Cutter,
        pool: _Pool,
        chunk_s: float,
        stop: Any,
        second_pass: bool = False,
    ) -> None:
        super().__init__(name="dictate-file-reader", daemon=True)
        self.source, self.cutter, self.pool = source, cutter, pool
        self.second_pass = second_pass  # the workers decode its second pass too
        self.chunk_s, self.stop = chunk_s, stop
        self.taper = pool.can_warm  # a fresh recogniser per chunk (Vosk) costs: never shorter
        self.timeline: queue.Queue[Any] = queue.Queue()
        self.error: str | None = None
        self._chunk: list[SegmentPieces] = []
        self._chunk_samples = 0
        self._chunks = 0
        self.speech_read = 0.0
        """Seconds of speech in the segments read so far (the main thread reads it)."""
        self._chunk_speech = 0.0
        self._first = 0  # samples in the open segment's first piece

    def run(self) -> None:
        try:
            try:
                for block in self.source.blocks():
                    if self.stop.is_set():
                        return
                    self._handle(self.cutter.block(block.samples))
            except _Failed:
                raise  # stopped while handing a chunk over: not a reading error
            except Exception as exc:  # unreadable from here on: keep what was read before
                log.debug("reading the file failed", exc_info=True)
                self.error = (
                    str(exc) if isinstance(exc, DictateError) else f"reading failed: {exc!r}"
                )
            self._handle(self.cutter.flush())
            self._send()
        except _Failed:
            pass  # stopped, or a worker died: the main thread says which
        finally:
            self.timeline.put(_END)

    def _handle(self, cuts: list[Any]) -> None:
        for cut in cuts:
            if isinstance(cut, Piece):
                if cut.first:
                    self._first = len(cut.samples)
            elif isinstance(cut, Closed):
                self._close(cut.segment)
            else:  # a speech start or a commit, in order (no early decode: nothing is live)
                self.timeline.put(cut)

    def _close(self, segment: ClosedSegment) -> None:
        # The segment's audio is kept until it is settled (the second pass decodes it).
        speech = segment.span if self.second_pass else None
        pieces = SegmentPieces(segment.audio_start, segment.audio, self._first, speech)
        self._chunk.append(pieces)
        self._chunk_samples += len(segment.audio)
        self._chunk_speech += segment.duration
        self.speech_read += segment.duration
        self.timeline.put(_Waiting(self._chunks, len(self._chunk) - 1, segment))
        if self._chunk_samples >= self._chunk_target() * SAMPLE_RATE:
            self._send()

    def _chunk_target(self) -> float:
        """Seconds of segment audio the open chunk is sent at (:data:`TAPER`)."""
        if not self.taper:
            return self.chunk_s
        read = self.cutter.time
        left = max(0.0, self.source.info.duration - read)
        speech_left = left * self.speech_read / read if read > 0 else left
        return min(self.chunk_s, max(self.chunk_s / 4, speech_left / TAPER))

    def _send(self) -> None:
        """Send the chunk: to its worker to decode, and to the others to warm on (when their
        recognisers can)."""
        if not self._chunk:
            return
        chunk, self._chunk, self._chunk_samples = self._chunk, [], 0
        index = self._chunks
        self._chunks += 1
        self.pool.chunk_speech[index], self._chunk_speech = self._chunk_speech, 0.0
        count = len(self.pool.inboxes)
        for worker in range(count):
            # heard by all, decoded by the first free (decode_worker.claim); else k mod N's
            decode = None if self.pool.can_warm else worker == index % count
            if decode is False:
                continue
            if not self.pool.put(worker, Chunk(index, decode, chunk), self.stop):
                raise _Failed("stopped")
        self.timeline.put(_ChunkEnd(index, self.cutter.time))
