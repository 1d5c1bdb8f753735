"""A long recording for ``dictate bench file``: prose from this repository's docs spoken by
espeak-ng (a few voices and speeds), one sentence at a time, with pauses of 0.3 to 2 s between
them (some shorter than the segmenter's 500 ms, so segments hold several sentences), as one
16 kHz mono WAV. Needs espeak-ng and sox.

    .venv/bin/python benchmarks/long_recording.py /tmp/long.wav --minutes 10
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
RATE = 16_000
VOICES = ["en-us", "en-us+m3", "en-us+f2", "en-gb", "en-us+m5"]


def sentences() -> list[str]:
    """Plain sentences of the docs (no code, tables or links), 5 to 30 words each."""
    found = []
    for page in sorted((ROOT / "docs").glob("*.md")):
        text = re.sub(r"```.*?```", " ", page.read_text(encoding="utf-8"), flags=re.S)
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith(("#", "|", "<", "!", "    ")):
                continue
            line = re.sub(r"\[([^]]*)\]\([^)]*\)|`[^`]*`|[*_]", r"\1", line)
            for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
                words = re.findall(r"[A-Za-z']+", sentence)
                if 5 <= len(words) <= 30:
                    found.append(" ".join(words).lower())
    return found


def speak(text: str, voice: str, speed: int, folder: Path) -> np.ndarray:
    raw, out = folder / "raw.wav", folder / "out.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-w", str(raw), text],
                   check=True, capture_output=True, timeout=60)  # fmt: skip
    subprocess.run(["sox", "-R", str(raw), "-r", str(RATE), "-c", "1", "-b", "16", str(out)],
                   check=True, capture_output=True, timeout=60)  # fmt: skip
    with wave.open(str(out)) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    return samples[loud[0] : loud[-1] + 1] if len(loud) else samples[:0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output", type=Path)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    pool = sentences()
    rng.shuffle(pool)
    noise = np.random.default_rng(args.seed)
    parts, total = [np.zeros(RATE, np.int16)], RATE
    with tempfile.TemporaryDirectory() as tmp:
        for number, text in enumerate(pool * 10):
            if total >= args.minutes * 60 * RATE:
                break
            voice, speed = VOICES[number % len(VOICES)], rng.choice([140, 160, 175])
            speech = speak(text, voice, speed, Path(tmp))
            gap = np.zeros(round(rng.uniform(0.3, 2.0) * RATE), np.int16)
            parts += [speech, gap]
            total += len(speech) + len(gap)
    audio = np.concatenate(parts).astype(np.int32)
    audio += noise.integers(-30, 31, len(audio))  # a faint noise floor, as a room has
    with wave.open(str(args.output), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(RATE)
        w.writeframes(np.clip(audio, -32768, 32767).astype("<i2").tobytes())
    print(f"{args.output}: {total / RATE:.1f} s")


if __name__ == "__main__":
    main()
