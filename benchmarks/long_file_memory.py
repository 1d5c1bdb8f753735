"""Peak memory (RSS) of reading a long audio file, and of transcribing its first minutes.

A 3-hour file must be read in bounded memory: FileSource streams it in blocks through the
streaming resampler (dictate/audio/capture.py, audiofile.py, resample.py), never the whole
file nor the whole resampled array. Three steps, each in a process of its own so that each
peak is its own:

    python benchmarks/long_file_memory.py make /tmp/long.flac          # 3 h, 44.1 kHz stereo
    python benchmarks/long_file_memory.py read /tmp/long.flac          # FileSource, no recogniser
    python benchmarks/long_file_memory.py pipeline /tmp/long.flac --minutes 5

``make`` writes speech (tests/data/en_phrases.wav), silence and a tone, block by block, as
FLAC. ``read`` pulls every block through FileSource (decoding and resampling to 16 kHz mono)
and prints the peak RSS (``ru_maxrss``) with the RSS before the first block and the samples
delivered. ``pipeline`` runs the real pipeline (the bundled PocketSphinx engine, the
punctuation model, voice commands and written forms, as ``dictate transcribe`` builds it) over
the first ``--minutes`` of the file and prints the same.
"""

from __future__ import annotations

import argparse
import resource
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SPEECH = ROOT / "tests" / "data" / "en_phrases.wav"


def rss_mb() -> float:
    """The resident set size now, from /proc (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make(path: Path, hours: float, rate: int) -> None:
    import soundfile
    import soxr

    speech, speech_rate = soundfile.read(str(SPEECH), dtype="float32")
    speech = soxr.resample(speech, speech_rate, rate)
    minute = rate * 60
    t = np.arange(5 * rate) / rate
    tone = (0.05 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    silence = np.zeros(minute - 2 * len(speech) - len(tone), np.float32)
    block = np.concatenate([speech, silence[: len(silence) // 2], tone, speech])
    block = np.concatenate([block, np.zeros(minute - len(block), np.float32)])
    stereo = np.stack([block, 0.8 * block], axis=1)
    began = time.monotonic()
    with soundfile.SoundFile(str(path), "w", rate, 2, format="FLAC", subtype="PCM_16") as out:
        for _ in range(round(hours * 60)):  # one minute at a time
            out.write(stereo)
    print(
        f"wrote {path}: {hours:g} h at {rate} Hz stereo, {path.stat().st_size / 2**20:.0f} MB, "
        f"in {time.monotonic() - began:.0f} s"
    )


class Limited:
    """The first ``seconds`` of a source."""

    def __init__(self, source: object, seconds: float) -> None:
        self.source = source
        self.name = getattr(source, "name", "")
        self.dropped_blocks = 0
        self.seconds = seconds

    def blocks(self) -> Iterator[object]:
        for block in self.source.blocks():  # type: ignore[attr-defined]
            yield block
            if block.end >= self.seconds:  # type: ignore[attr-defined]
                return

    def stop(self) -> None:
        self.source.stop()  # type: ignore[attr-defined]


def read(path: Path) -> None:
    from dictate.audio.capture import FileSource

    source = FileSource(path)
    before = rss_mb()
    began = time.monotonic()
    samples = 0
    for block in source.blocks():
        samples += len(block.samples)
    took = time.monotonic() - began
    print(
        f"read {source.info.duration / 3600:.2f} h ({source.info.sample_rate} Hz, "
        f"{source.info.channels} ch) -> {samples / 16000 / 3600:.2f} h at 16 kHz in {took:.0f} s; "
        f"RSS before the first block {before:.0f} MB, peak RSS {peak_mb():.0f} MB"
    )


def pipeline(path: Path, minutes: float) -> None:
    from dictate.asr.loader import load_engine
    from dictate.audio.capture import FileSource
    from dictate.events import Finalized, Finished
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import TextOptions, build_pipeline

    engine = load_engine("sphinx", None)
    model = load_punctuation_model()
    done = threading.Event()
    words = 0
    samples: list[float] = []

    def on_event(event: object) -> None:
        nonlocal words
        if isinstance(event, Finalized):
            words += len(event.text.split())
        elif isinstance(event, Finished):
            done.set()

    built = build_pipeline(engine, model, on_event, TextOptions(), commit_after=1.5)
    before = rss_mb()
    began = time.monotonic()
    built.pipeline.start(Limited(FileSource(path), minutes * 60))  # type: ignore[arg-type]
    while not done.wait(1.0):
        samples.append(rss_mb())
    took = time.monotonic() - began
    print(
        f"pipeline over the first {minutes:g} min in {took:.0f} s ({words} words finalized): "
        f"RSS with the models loaded {before:.0f} MB, RSS each second min/max "
        f"{min(samples or [before]):.0f}/{max(samples or [before]):.0f} MB, "
        f"peak RSS {peak_mb():.0f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("step", choices=("make", "read", "pipeline"))
    parser.add_argument("path", type=Path)
    parser.add_argument("--hours", type=float, default=3.0)
    parser.add_argument("--rate", type=int, default=44_100)
    parser.add_argument("--minutes", type=float, default=5.0)
    args = parser.parse_args(argv)
    if args.step == "make":
        make(args.path, args.hours, args.rate)
    elif args.step == "read":
        read(args.path)
    else:
        pipeline(args.path, args.minutes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
