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

    def pieces(self) -> Iterator[np.ndarray]:
        yield self.audio[: self.first]
        for offset in range(self.first, len(self.audio), CHUNK_SAMPLES):
            yield self.audio[offset : offset + CHUNK_SAMPLES]


@dataclass
class Chunk:
    index: int
    decode: bool
    """Decode and send back the words; else only warm the recogniser on it."""
    segments: list[SegmentPieces]


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


def serve(
    worker: int,
    options: EngineOptions,
    inbox: Any,
    outbox: Any,
    vocabulary: list[Any] | None = None,
) -> None:
    """The worker: load the engine ``options`` describe (the parent's, whole), with the user's
    ``vocabulary``, say ready (and whether it can warm), then take chunks until None. Every
    failure is sent back as ("error", worker, message); nothing is lost silently."""
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
        can_warm = abilities_of(engine).warm
        outbox.put(("ready", worker, can_warm))
        while True:
            chunk = inbox.get()
            if chunk is None:
                return
            try:
                if not chunk.decode:  # sent only to a worker that can warm
                    for segment in chunk.segments:
                        recognizer.warm(list(segment.pieces()))
                    continue
                if not can_warm:
                    recognizer = recognizer_with(engine, vocabulary)
                results = [decode_segment(recognizer, s) for s in chunk.segments]
                outbox.put(("done", worker, chunk.index, results))
            except Exception as exc:
                outbox.put(("error", worker, f"{type(exc).__name__}: {exc}"))
                return
