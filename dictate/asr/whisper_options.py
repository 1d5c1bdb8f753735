"""How Whisper as the second pass loads and decodes (:class:`WhisperOptions`), and when its
results are not trusted (:class:`Guards`): :mod:`dictate.asr.whisper_engine` uses them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from dictate.asr.whisper_score import WINDOW_MARGIN_S

__all__ = ["Guards", "WhisperOptions"]


@dataclass(frozen=True)
class Guards:
    """When a result is not trusted (faster-whisper's own thresholds, applied per segment)."""

    no_speech: float = 0.6
    """``no_speech_prob`` above this with ``avg_logprob`` below :attr:`logprob`: not speech."""
    logprob: float = -1.0
    """``avg_logprob`` below this (after the temperature fallback): decoded badly."""
    compression: float = 2.4
    """``compression_ratio`` above this: it repeats itself."""
    silent_no_speech: float = 0.5
    """No words at all and ``no_speech_prob`` above this: nothing was said."""
    tail_no_speech: float = 0.5
    tail_logprob: float = -0.5
    """A stretch after the first with ``no_speech_prob`` above :attr:`tail_no_speech` and
    ``avg_logprob`` below :attr:`tail_logprob` is dropped: Whisper's "Thank you." after the
    last word of a segment ends in silence (seen on a command said apart: no_speech_prob
    0.60, avg_logprob -0.79, which faster-whisper's own rule lets through)."""


@dataclass(frozen=True)
class WhisperOptions:
    """How the second pass loads and decodes."""

    model: str | Path = "tiny.en"
    """A model name (:mod:`dictate.store.whisper_models`) or a folder."""
    device: str = "auto"
    """"auto" (CUDA where CTranslate2 finds a GPU, else the CPU), "cpu" or "cuda"."""
    compute_type: str = "default"
    """CTranslate2's compute type; "default": int8 on the CPU, float16 on a GPU."""
    threads: int = 0
    """CPU threads (0: every core)."""
    beam_size: int = 1
    language: str | None = "en"
    window: str = "auto"
    """"auto": a window sized to the audio, and in 30 s where the guards doubt it; "full":
    always 30 s, as Whisper was trained; "sized": the sized window only (for benchmarks)."""
    window_margin_s: float = WINDOW_MARGIN_S
    """Seconds after the audio in a sized window."""
    again_beam: int = 0
    """The 30 s decode of a doubted segment: 0, faster-whisper's temperature fallback (it
    samples: its words depend on the decodes before it); N, a beam of N at temperature 0."""
    again_window_s: float = 30.0
    """The window (seconds) a doubted segment is decoded again in ("auto"): 30, Whisper's own;
    less, that window, or the audio and the margin where longer. 15 saved about 50 MiB and a
    quarter of a second per doubted segment but gave tiny.en 7.8% word errors on the real
    recordings against 7.4% (docs/second-pass.md, "Whisper tiers")."""
    greedy_below_s: float = 3.0
    """A doubted segment shorter than this (seconds) is decoded again in 30 s once, greedy (0:
    never): commands said apart took 1.5-3 s with the fallback (docs/second-pass.md)."""
    keep_case: bool = False
    """Keep Whisper's capitals inside a segment as a hint to the punctuator (its first word's
    capital is never kept)."""
    guards: Guards = field(default_factory=Guards)
