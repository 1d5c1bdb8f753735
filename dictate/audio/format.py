"""The one audio format inside the app: every source delivers, and every recogniser and voice
activity detector expects, 16 kHz mono int16 samples."""

from typing import Any

SAMPLE_RATE = 16_000
"""The rate every source delivers and every recogniser and VAD expects."""


def between(samples: Any, first_at: float, start: float, end: float) -> Any:
    """The part of ``samples`` (whose first sample is at source second ``first_at``) from
    source second ``start`` to ``end``, as far as they go."""
    first = max(0, round((start - first_at) * SAMPLE_RATE))
    last = max(first, round((end - first_at) * SAMPLE_RATE))
    return samples[first:last]
