"""Regenerate the committed speech fixtures (needs espeak-ng and flite; run from anywhere).

    python tests/data/make_fixtures.py

The app's own sample (``assets/sample_en.wav``, dictated by ``dictate --self-test``) is spoken
by flite's ``kal16`` voice: the bundled PocketSphinx engine recognises it word for word, where it
gets about a quarter of espeak-ng's words right, so the self-test can demand a high accuracy.

Each fixture is synthesised phrase by phrase with espeak-ng, trimmed of its own leading and
trailing silence, and joined with known gaps of digital silence. A JSON file beside each WAV lists
the phrases with their start and end times, so the tests know where the pauses are. The WAVs are
written at espeak-ng's native 22,050 Hz (English) and at 16 kHz stereo (Korean), so the tests also
go through resampling and channel mixing.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
import wave
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent

# (text, silence after it in seconds). The 0.25 s pause inside the first English group is
# shorter than the segmenter's 500 ms, so it must not end a segment.
ENGLISH = [
    ("please call me tomorrow morning", 0.25),
    ("the weather is nice today", 1.2),
    ("how are you", 1.2),
    ("thank you very much", 0.0),
]
# Voice commands set apart by pauses: 0.35 s inside a segment (the voice activity detector's
# pause), 1.0 s between segments (a command as a segment of its own). The commands are the
# ones the bundled PocketSphinx engine hears right in flite's voice (it hears "new paragraph" as
# "in a paragraph" and "comma" as "comet"; docs/voice-commands.md lists them).
COMMANDS = [
    ("we finished the report on time", 0.35),
    ("question mark", 1.0),
    ("the next day we sent it to the client", 1.0),
    ("next paragraph", 1.0),
    ("thank you very much", 0.35),
    ("exclamation mark", 1.0),
    ("stop dictating", 0.0),
]
KOREAN = [
    ("안녕하세요", 1.2),
    ("오늘 날씨가 좋습니다", 1.2),
    ("감사합니다", 0.0),
]


def synthesise(text: str, voice: str) -> tuple[np.ndarray, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "x.wav"
        if voice.startswith("flite:"):
            command = ["flite", "-voice", voice.split(":", 1)[1], "-t", text, "-o", str(out)]
        else:
            command = ["espeak-ng", "-v", voice, "-s", "120", "-w", str(out), text]
        subprocess.run(command, check=True)
        with wave.open(str(out)) as w:
            rate = w.getframerate()
            samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    loud = np.flatnonzero(np.abs(samples) > 300)
    return samples[loud[0] : loud[-1] + 1], rate


def build(
    name: str, phrases: list[tuple[str, float]], voice: str, channels: int, folder: Path = HERE
) -> None:
    parts: list[np.ndarray] = []
    spans = []
    rate = 0
    lead = 0.6
    for text, gap in phrases:
        audio, rate = synthesise(text, voice)
        if not parts:
            parts.append(np.zeros(int(lead * rate), dtype=np.int16))
        start = sum(len(p) for p in parts) / rate
        parts.append(audio)
        end = start + len(audio) / rate
        spans.append({"text": text, "start": round(start, 3), "end": round(end, 3)})
        parts.append(np.zeros(int(gap * rate), dtype=np.int16))
    parts.append(np.zeros(int(0.8 * rate), dtype=np.int16))
    mono = np.concatenate(parts)
    target = rate
    if channels == 2:  # 16 kHz stereo with the right channel a little quieter
        import soxr

        target = 16000
        mono = np.rint(soxr.resample(mono.astype(np.float32), rate, target)).astype(np.int16)
        mono = np.stack([mono, (mono * 0.8).astype(np.int16)], axis=1)
    with wave.open(str(folder / f"{name}.wav"), "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(target)
        w.writeframes(mono.astype("<i2").tobytes())
    meta = {"voice": voice, "phrases": spans}
    (folder / f"{name}.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    build("en_phrases", ENGLISH, "en-us+f3", 1)
    build("ko_phrases", KOREAN, "ko", 2)
    build("sample_en", ENGLISH, "flite:kal16", 1, HERE.parents[1] / "assets")
    build("en_commands", COMMANDS, "flite:kal16", 1)
