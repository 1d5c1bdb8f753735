"""The test recording of ``dictate bench latency``: sentences spoken by espeak-ng, each
followed by a silence, as one 16 kHz mono WAV file."""

from __future__ import annotations

import shutil
import subprocess
import wave
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dictate.errors import DictateError

SENTENCES = [
    "please call me tomorrow morning about the meeting",
    "the weather is nice today so we will walk to the park",
    "i finished the report and sent it to the client",
    "thank you very much for your help last week",
    "we need to buy milk bread and eggs before dinner",
    "the train leaves at nine and arrives in the afternoon",
    "can you send me the latest version of the document",
    "my sister is visiting us next month with her children",
]
"""What the generated recording says, one sentence each (the first ``sentences`` of them)."""

LEAD_S = 1.0
"""Silence before the first sentence of a generated recording."""


@dataclass(frozen=True)
class Recording:
    path: Path
    seconds: float
    sentences: list[dict[str, Any]] = field(default_factory=list)
    """Generated only: each sentence's text and where its audio starts and ends (seconds)."""


def _speak(text: str, folder: Path, number: int) -> Any:
    """``text`` spoken by espeak-ng, as 16 kHz mono int16 (sox converts), trimmed of its own
    leading and trailing silence."""
    import numpy as np

    raw, converted = folder / f"s{number}-raw.wav", folder / f"s{number}.wav"
    subprocess.run(
        ["espeak-ng", "-v", "en-us", "-s", "150", "-w", str(raw), text],
        check=True,
        capture_output=True,
        timeout=60,
    )
    subprocess.run(
        ["sox", "-R", str(raw), "-r", "16000", "-c", "1", "-b", "16", str(converted)],
        check=True,
        capture_output=True,
        timeout=60,
    )
    with wave.open(str(converted)) as w:
        samples = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    loud = np.flatnonzero(np.abs(samples.astype(np.int32)) > 300)
    if not len(loud):
        raise DictateError(f"espeak-ng produced no audible speech for {text!r}")
    return samples[loud[0] : loud[-1] + 1]


def make_recording(folder: Path, count: int, gap_s: float) -> Recording:
    """``count`` sentences spoken by espeak-ng, each followed by ``gap_s`` of silence, as a
    16 kHz mono WAV in ``folder``.

    Raises:
        DictateError: espeak-ng or sox is not installed.
    """
    import numpy as np

    for program in ("espeak-ng", "sox"):
        if shutil.which(program) is None:
            raise DictateError(
                f"{program} is not installed: it makes the test recording "
                "(e.g. sudo apt install espeak-ng sox), or pass a recording with --audio FILE"
            )
    rate = 16_000
    parts = [np.zeros(round(LEAD_S * rate), np.int16)]
    position = len(parts[0])
    spans = []
    for number, text in enumerate(SENTENCES[:count]):
        speech = _speak(text, folder, number)
        spans.append(
            {
                "text": text,
                "start": round(position / rate, 3),
                "end": round((position + len(speech)) / rate, 3),
            }
        )
        parts += [speech, np.zeros(round(gap_s * rate), np.int16)]
        position += len(speech) + len(parts[-1])
    path = folder / "sentences.wav"
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(np.concatenate(parts).astype("<i2").tobytes())
    return Recording(path, round(position / rate, 3), spans)
