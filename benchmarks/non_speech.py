"""Text that was never said: minutes of silence, room noise, breathing and music through
``dictate transcribe``, counting the words written (the target is 0).

    .venv/bin/python benchmarks/non_speech.py --minutes 2.5 \
        --variant "first pass=--engine sphinx --second-pass off" \
        --variant "with Whisper=--engine sphinx --second-pass tiny.en"

Each kind is made with sox, seeded, so a run is repeatable:

* silence: digital silence with the faint dither of a real sound card (-90 dBFS);
* room: brown noise at -42 dBFS with a 50 Hz hum and a slow swell (a fan, a quiet room);
* breathing: pink noise, band-passed to 300-2500 Hz, shaped into a breath every 3.5 s (1.2 s in,
  1.5 s out) at -30 dBFS peak, close to the microphone;
* music: a sequence of synthesised plucked and sine chords, 100 beats a minute, -20 dBFS.

Prints a Markdown table: words written per kind and variant, and what they were.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

RATE = 16000


def _sox(args: list[str]) -> None:
    subprocess.run(["sox", *args], check=True, capture_output=True)


def _write(path: Path, samples: np.ndarray) -> None:
    import soundfile

    soundfile.write(str(path), np.clip(samples, -1, 1), RATE, subtype="PCM_16")


def make(kind: str, seconds: float, path: Path, seed: int = 1) -> Path:
    rng = np.random.default_rng(seed)
    n = round(seconds * RATE)
    t = np.arange(n) / RATE
    if kind == "silence":
        audio = rng.normal(0, 10 ** (-90 / 20), n)
    elif kind == "room":
        brown = np.cumsum(rng.normal(0, 1, n))
        brown -= np.convolve(brown, np.ones(801) / 801, mode="same")  # no drift
        brown /= np.max(np.abs(brown)) + 1e-9
        swell = 0.7 + 0.3 * np.sin(2 * np.pi * t / 23.0)
        audio = 10 ** (-42 / 20) * (brown * swell + 0.3 * np.sin(2 * np.pi * 50 * t))
    elif kind == "breathing":
        raw = path.with_suffix(".pink.wav")
        _sox(["-n", "-r", str(RATE), "-c", "1", str(raw), "synth", str(seconds), "pinknoise",
              "sinc", "300-2500"])  # fmt: skip
        import soundfile

        pink, _ = soundfile.read(str(raw))
        pink = pink / (np.max(np.abs(pink)) + 1e-9)
        phase = t % 3.5
        envelope = np.where(
            phase < 1.2,
            np.sin(np.pi * phase / 1.2) ** 2,
            np.where(
                (phase > 1.6) & (phase < 3.1), 0.8 * np.sin(np.pi * (phase - 1.6) / 1.5) ** 2, 0
            ),
        )
        audio = 10 ** (-30 / 20) * pink[:n] * envelope[: len(pink[:n])]
    elif kind == "music":
        chords = [(261.6, 329.6, 392.0), (220.0, 261.6, 329.6), (174.6, 220.0, 261.6),
                  (196.0, 246.9, 293.7)]  # fmt: skip
        beat = 60 / 100
        audio = np.zeros(n)
        for k, start in enumerate(np.arange(0, seconds, beat)):
            a, b = round(start * RATE), min(n, round((start + beat * 0.95) * RATE))
            tt = np.arange(b - a) / RATE
            chord = chords[(k // 4) % len(chords)]
            tone = sum(np.sin(2 * np.pi * f * tt) + 0.3 * np.sin(4 * np.pi * f * tt) for f in chord)
            decay = np.exp(-3.0 * tt) if k % 2 else np.exp(-0.8 * tt)
            audio[a:b] += tone * decay
        audio = 10 ** (-20 / 20) * audio / (np.max(np.abs(audio)) + 1e-9)
    else:
        raise ValueError(f"unknown kind {kind!r}")
    _write(path, audio)
    return path


def transcribe(path: Path, extra: str) -> tuple[str, int, dict[str, int], float]:
    """The text written, the segments the voice activity detector opened, how many of them
    each refiner settled ("" for the first pass's words kept), and the seconds it took."""
    began = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(path), "--json", *shlex.split(extra)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"transcribe failed on {path}: {done.stderr.strip()}")
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    text = " ".join(" ".join(e["sentences"]) for e in events if e["event"] == "finalized")
    segments = [e for e in events if e["event"] == "segment"]
    by: dict[str, int] = {}
    for segment in segments:
        key = segment["settled_by"] or "first pass"
        by[key] = by.get(key, 0) + 1
    return text.strip(), len(segments), by, time.monotonic() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=2.5, help="minutes of each kind")
    parser.add_argument(
        "--variant",
        action="append",
        default=[],
        metavar="NAME=ARGS",
        help="a name and the transcribe arguments of a run (repeat)",
    )
    parser.add_argument("--kinds", default="silence,room,breathing,music")
    parser.add_argument("--json", metavar="OUT", help="also write the results as JSON")
    args = parser.parse_args()
    variants = [v.split("=", 1) for v in args.variant] or [["default", ""]]
    kinds = args.kinds.split(",")
    results = []
    with tempfile.TemporaryDirectory(prefix="dictate-non-speech-") as tmp:
        for kind in kinds:
            path = make(kind, args.minutes * 60, Path(tmp) / f"{kind}.wav")
            for name, extra in variants:
                text, segments, by, took = transcribe(path, extra)
                words = text.split()
                results.append({"kind": kind, "variant": name, "words": len(words),
                                "segments": segments, "settled_by": by, "text": text[:200],
                                "seconds": took})  # fmt: skip
                print(f"{kind} / {name}: {len(words)} words, {segments} segments {by} "
                      f"({took:.0f} s)", file=sys.stderr)  # fmt: skip
    print(
        f"{args.minutes:g} min of each kind; words written (the target is 0), of the segments "
        "the voice activity detector opened:\n"
    )
    print("| kind | " + " | ".join(name for name, _ in variants) + " |")
    print("|---|" + "---|" * len(variants))
    for kind in kinds:
        cells = []
        for name, _ in variants:
            row = next(r for r in results if r["kind"] == kind and r["variant"] == name)
            said = f" ({row['text'][:60]!r})" if row["words"] else ""
            cells.append(f"{row['words']}{said} of {row['segments']} segments")
        print(f"| {kind} | " + " | ".join(cells) + " |")
    total = {name: sum(r["words"] for r in results if r["variant"] == name) for name, _ in variants}
    print("| **all** | " + " | ".join(str(total[name]) for name, _ in variants) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
