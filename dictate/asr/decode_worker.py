"""The worker process of the parallel decode of a file (:mod:`dictate.run.file_decode`).

A worker loads the engine itself (spawned, not forked) and takes :class:`Chunk` s from its
inbox, in the file's order: a run of consecutive segments to decode, or, for an engine the
registry declares able to warm (PocketSphinx: :meth:`~dictate.asr.engine.Warming.warm`), to
hear without decoding, because another worker decodes them. Each segment's audio is fed in the
pieces the segmenter delivered (pre-roll and first chunk, then 32 ms chunks), as the sequential
pipeline feeds it: PocketSphinx's cepstral mean normalisation depends on how the audio was cut
into calls. So a warmed recogniser is in
the state one recogniser hearing the whole file would be in, and its words are the same.

An engine that cannot warm (Vosk, which adapts across segments and has no cheap way to hear
audio) gets a fresh recogniser for each chunk it decodes. Its words may still differ from the
sequential pipeline's, and between worker counts: a Vosk process keeps some state across
recognisers too (measured: word times a few milliseconds apart).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dictate.asr.registry import EngineOptions, abilities_of, recognizer_with
from dictate.asr.segmenter import CHUNK_SAMPLES
from dictate.parent_watch import exit_with_parent


@dataclass
class SegmentPieces:
    """One segment's audio as the recogniser is fed it."""

    start: float
    """Source time of the first sample (the pre-roll's), as :meth:`Recognizer.start` takes."""
    audio: np.ndarray = field(repr=False)
    first: int
    """Samples in the first piece (pre-roll and the first 32 ms chunk); 512-sample pieces follow,
    the last one shorter at the end of the file."""
    speech: tuple[float, float] | None = None
    """Where its speech began and ended (source seconds), for the second pass; None: the
    worker has none."""

    def pieces(self) -> Iterator[np.ndarray]:
        yield self.audio[: self.first]
        for offset in range(self.first, len(self.audio), CHUNK_SAMPLES):
            yield self.audio[offset : offset + CHUNK_SAMPLES]


@dataclass
class Chunk:
    index: int
    decode: bool | None
    """Decode and send back the words; False: only warm the recogniser on it; None: decode it
    if this worker is the first to come to it (:func:`claim`), else warm on it."""
    segments: list[SegmentPieces]


def claim(claims: Any, index: int) -> bool:
    """Whether this worker decodes chunk ``index``, sent to every worker with ``decode=None``:
    yes when no other worker has taken it. ``claims`` is a shared integer, the first chunk no
    worker has taken yet; each worker comes to the chunks in order and takes or warms on every
    one, so it is never below ``index``. The worker that is free first decodes the next chunk:
    the load is shared as the decode costs turn out, not guessed when the chunk is sent."""
    with claims.get_lock():
        if claims.value != index:
            return False
        claims.value = index + 1
        return True


WordTuple = tuple[str, float, float, float]
"""A :class:`~dictate.asr.engine.Word` as sent between processes."""


def decode_segment(recognizer: Any, segment: SegmentPieces) -> tuple[list[WordTuple], list[Any]]:
    """Decode one segment as the pipeline does: start, accept each piece, finish."""
    recognizer.start(segment.start)
    for piece in segment.pieces():
        recognizer.accept(piece)
    words = recognizer.finish()
    said = [(w.text, w.start, w.end, w.confidence) for w in words]
    return said, list(recognizer.alternatives)


def second_pass_ahead(second: Any, segment: SegmentPieces, said: list[WordTuple]) -> Any:
    """The second pass's decode of ``segment`` (its first-pass words ``said``), made here for
    the main process (:meth:`~dictate.asr.whisper_engine.WhisperSecondPass.decode_ahead`);
    None where it cannot be used there."""
    if second is None or segment.speech is None:
        return None
    from dictate.asr.engine import Word

    return second.decode_ahead(
        segment.audio, segment.start, segment.speech, [Word(*w) for w in said]
    )


def load_second_pass(worker: int, spec: Any) -> Any:
    """The second pass ``spec`` describes (:meth:`~dictate.seam.second_pass.SecondPassRefiner.
    worker_spec`), or None: without it the main process decodes every segment itself, with
    the same words, so a failure here costs time only (and is logged)."""
    if spec is None:
        return None
    try:
        import threading

        from tqdm import tqdm

        # faster-whisper makes a tqdm bar (disabled) per decode, and tqdm's first one makes a
        # multiprocessing lock: a semaphore the parent's resource tracker then reports as
        # leaked when the worker is ended. A thread lock is all one worker needs.
        tqdm.set_lock(threading.RLock())
        from dictate.asr.whisper_engine import WhisperSecondPass

        path, options = spec
        return WhisperSecondPass(options, path)
    except Exception:
        import logging

        logging.getLogger("dictate.asr").exception("worker %d: no second pass", worker)
        return None


def serve(
    worker: int,
    options: EngineOptions,
    inbox: Any,
    outbox: Any,
    vocabulary: list[Any] | None = None,
    second_pass: Any = None,
    claims: Any = None,
) -> None:
    """The worker: load the engine ``options`` describe (the parent's, whole), with the user's
    ``vocabulary``, and the second pass ``second_pass`` describes (None: none), say ready (and
    whether it can warm), then take chunks until None; ``claims``: the shared integer by which
    the workers share out the chunks sent to all of them (:func:`claim`). Every failure is
    sent back as ("error", worker, message); nothing is lost silently."""
    vocabulary = vocabulary or []
    exit_with_parent()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, EOFError, KeyboardInterrupt):
        try:
            from dictate.asr.loader import load_engine

            engine = load_engine(options=options)
            recognizer = recognizer_with(engine, vocabulary)
        except Exception as exc:
            outbox.put(("error", worker, f"could not load the recogniser: {exc}"))
            return
        second = load_second_pass(worker, second_pass)
        can_warm = abilities_of(engine).warm
        outbox.put(("ready", worker, can_warm))
        while True:
            chunk = inbox.get()
            if chunk is None:
                return
            try:
                decode = chunk.decode
                if decode is None:
                    decode = claim(claims, chunk.index)
                if not decode:  # sent only to a worker that can warm
                    for segment in chunk.segments:
                        recognizer.warm(list(segment.pieces()))
                    continue
                if not can_warm:
                    recognizer = recognizer_with(engine, vocabulary)
                results = []
                for segment in chunk.segments:
                    said, alternatives = decode_segment(recognizer, segment)
                    ahead = second_pass_ahead(second, segment, said)
                    results.append((said, alternatives, ahead))
                outbox.put(("done", worker, chunk.index, results))
            except Exception as exc:
                outbox.put(("error", worker, f"{type(exc).__name__}: {exc}"))
                return
