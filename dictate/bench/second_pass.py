"""``dictate bench second-pass``: how long Whisper takes to settle a closed segment, by segment
length and encoder window, with its word error rate on the same segments. (The time from the
segmenter closing a segment to its words shown, through the whole pipeline, is
``dictate bench pipeline AUDIO --second-pass tiny.en``.)

The segments are Harvard sentences (IEEE 1969 recommended practice for speech quality
measurements; public domain) read by espeak-ng and flite voices and joined, with short pauses,
up to each length (1, 2, 4, 8, 15 s by default). Every decode is one
:meth:`~dictate.asr.whisper_engine.WhisperSecondPass.decode` of a
:class:`~dictate.seam.segment.ClosedSegment`, as the pipeline makes it.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import tempfile
import time
import wave
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE
from dictate.bench.punctuator import peak_rss_mb, percentile
from dictate.edit_distance import edit_distance
from dictate.seam.segment import ClosedSegment

HARVARD = (
    "the birch canoe slid on the smooth planks",
    "glue the sheet to the dark blue background",
    "it is easy to tell the depth of a well",
    "these days a chicken leg is a rare dish",
    "rice is often served in round bowls",
    "the juice of lemons makes fine punch",
    "the box was thrown beside the parked truck",
    "the hogs were fed chopped corn and garbage",
    "four hours of steady work faced us",
    "a large size in stockings is hard to sell",
    "the boy was there when the sun rose",
    "a rod is used to catch pink salmon",
    "the source of the huge river is the clear spring",
    "kick the ball straight and follow through",
    "help the woman get back to her feet",
    "a pot of tea helps to pass the evening",
    "smoky fires lack flame and heat",
    "the soft cushion broke the man's fall",
    "the salt breeze came across from the sea",
    "the girl at the booth sold fifty bonds",
    "the small pup gnawed a hole in the sock",
    "the fish twisted and turned on the bent hook",
    "press the pants and sew a button on the vest",
    "the swan dive was far short of perfect",
    "the beauty of the view stunned the young boy",
    "two blue fish swam in the tank",
    "her purse was full of useless trash",
    "the colt reared and threw the tall rider",
    "it snowed rained and hailed the same morning",
    "read verse out loud for pleasure",
)
"""Harvard sentences, lists 1 to 3 (public domain), as said (lower case, no punctuation)."""

VOICES = ("espeak-ng:en-us", "flite:slt", "espeak-ng:en", "flite:rms")


def synthesise(text: str, voice: str, folder: Path) -> np.ndarray:
    """``text`` said by ``voice`` ("espeak-ng:VOICE" or "flite:VOICE") as 16 kHz int16."""
    engine, name = voice.split(":", 1)
    raw, out = folder / "raw.wav", folder / "out.wav"
    if engine == "flite":
        subprocess.run(["flite", "-voice", name, "-t", text, "-o", str(raw)], check=True)
    else:
        subprocess.run(["espeak-ng", "-v", name, "-s", "155", "-w", str(raw), text], check=True)
    subprocess.run(
        ["sox", "-R", str(raw), "-r", str(SAMPLE_RATE), "-c", "1", "-b", "16", str(out)], check=True
    )
    with wave.open(str(out), "rb") as f:
        return np.frombuffer(f.readframes(f.getnframes()), dtype="<i2").copy()


def _trimmed(samples: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    return samples[loud[0] : loud[-1] + 1] if len(loud) else samples


def make_segments(
    lengths: Sequence[float], per_length: int, folder: Path
) -> list[tuple[float, ClosedSegment, list[str]]]:
    """``per_length`` segments of about each length: whole sentences joined with 0.25 s pauses
    until the length is reached (a 1 s segment is a sentence's first words, cut at a word the
    voice had finished: the reference is cut to the words that fit, by their share of the
    audio). Returns (length, segment, words said)."""
    made: list[tuple[float, ClosedSegment, list[str]]] = []
    cache: dict[tuple[str, str], np.ndarray] = {}
    pause = np.zeros(SAMPLE_RATE // 4, np.int16)
    turn = 0
    for length in lengths:
        for k in range(per_length):
            voice = VOICES[k % len(VOICES)]
            pieces: list[np.ndarray] = []
            said: list[str] = []
            while sum(len(p) for p in pieces) < length * SAMPLE_RATE:
                text = HARVARD[turn % len(HARVARD)]
                turn += 1
                key = (text, voice)
                if key not in cache:
                    cache[key] = _trimmed(synthesise(text, voice, folder))
                speech = cache[key]
                room = round(length * SAMPLE_RATE) - sum(len(p) for p in pieces)
                words = text.split()
                if len(speech) > room and not said:  # shorter than one sentence: its start
                    keep = max(1, int(len(words) * room / len(speech)))
                    cut = round(len(speech) * keep / len(words))
                    pieces.append(speech[:cut])
                    said += words[:keep]
                    break
                pieces += [speech, pause]
                said += words
            speech = np.concatenate(pieces)
            audio = np.concatenate([np.zeros(int(0.3 * SAMPLE_RATE), np.int16), speech, pause])
            at = 10.0
            end = at + len(speech) / SAMPLE_RATE
            made.append(
                (length, ClosedSegment(k + 1, at, end, "silence", [], audio, at - 0.3), said)
            )
    return made


def bench_segments(
    model: str = "tiny.en",
    lengths: Sequence[float] = (1, 2, 4, 8, 15),
    per_length: int = 8,
    windows: Sequence[str] = ("auto", "full"),
    threads: int = 0,
    runs: int = 3,
) -> dict[str, Any]:
    """Decode time (median of ``runs`` per segment, then p50/p95 over segments) and word error
    rate per length and window (of the words Whisper heard, whatever the guards' verdict: it
    measures the model and the window, not the fallback to the first pass)."""
    from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass

    if shutil.which("espeak-ng") is None or shutil.which("flite") is None:
        raise RuntimeError(
            "espeak-ng, flite and sox make the speech: apt install espeak-ng flite sox"
        )
    with tempfile.TemporaryDirectory() as tmp:
        segments = make_segments(lengths, per_length, Path(tmp))
    began = time.monotonic()
    second = WhisperSecondPass(WhisperOptions(model=model, device="cpu", threads=threads))
    load_s = time.monotonic() - began
    rows = []
    for window in windows:
        second.options = replace(second.options, window=window)
        second.decode(segments[0][1])  # warm-up
        for length in lengths:
            times, errors, words = [], 0, 0
            for _, segment, said in (s for s in segments if s[0] == length):
                each = []
                for _ in range(runs):
                    began = time.monotonic()
                    result = second.decode(segment)
                    each.append(time.monotonic() - began)
                times.append(statistics.median(each))
                errors += edit_distance(said, [w.text for w in result.words])
                words += len(said)
            rows.append(
                {
                    "window": window,
                    "length_s": length,
                    "segments": len(times),
                    "p50_s": percentile(times, 0.5),
                    "p95_s": percentile(times, 0.95),
                    "wer": errors / max(1, words),
                    "words": words,
                }
            )
    return {"model": model, "device": second.device, "load_s": load_s, "rows": rows,
            "peak_rss_mb": peak_rss_mb()}  # fmt: skip


def format_segments(result: dict[str, Any]) -> str:
    lines = [
        f"Whisper {result['model']} on {result['device']} (loaded in {result['load_s']:.2f} s; "
        f"peak RSS {result['peak_rss_mb']:.0f} MiB)",
        "",
        "| window | length | segments | p50 | p95 | WER |",
        "|---|---|---|---|---|---|",
    ]
    for row in result["rows"]:
        lines.append(
            f"| {row['window']} | {row['length_s']:g} s | {row['segments']} | "
            f"{row['p50_s']:.3f} s | {row['p95_s']:.3f} s | {row['wer']:.1%} ({row['words']} w) |"
        )
    return "\n".join(lines)
