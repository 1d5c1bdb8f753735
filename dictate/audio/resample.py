"""Conversion of any audio block to 16 kHz mono int16 with a real resampler (soxr).

Devices record at their own rate (often 44.1 or 48 kHz) and channel count; files come in any
rate, width and layout. Everything downstream wants 16 kHz mono int16, so every source pushes
its blocks through one :class:`Resampler`, which keeps the filter state across blocks (a
streaming resampler: no clicks or lost samples at block edges).
"""

from __future__ import annotations

import math

import numpy as np
import soxr

from dictate.audio.format import SAMPLE_RATE

_INT16_MAX = 32767


def to_float_mono(block: np.ndarray) -> np.ndarray:
    """Mix a block of shape (frames,) or (frames, channels) of any numeric dtype to float32 mono.

    Integer samples are scaled to [-1, 1] by their type's range; unsigned 8-bit (WAV's 8-bit
    format) is centred first. Channels are averaged.
    """
    data = np.asarray(block)
    if data.dtype == np.uint8:
        data = (data.astype(np.float32) - 128.0) / 128.0
    elif np.issubdtype(data.dtype, np.integer):
        data = data.astype(np.float32) / float(np.iinfo(data.dtype).max + 1)
    else:
        data = data.astype(np.float32, copy=False)
    if data.ndim == 2:
        data = data.mean(axis=1, dtype=np.float32) if data.shape[1] > 1 else data[:, 0]
    return data


def float_to_int16(samples: np.ndarray) -> np.ndarray:
    """Clip float samples to [-1, 1] and scale them to int16."""
    return np.clip(np.rint(samples * _INT16_MAX), -_INT16_MAX - 1, _INT16_MAX).astype(np.int16)


class Resampler:
    """Streaming conversion from ``in_rate`` to 16 kHz mono int16.

    Args:
        in_rate: Sample rate of the blocks that will be fed, in Hz.
        quality: soxr quality ("HQ" by default: sharp enough for speech, cheap at these rates).
    """

    def __init__(self, in_rate: float, quality: str = "HQ") -> None:
        if not in_rate or not math.isfinite(in_rate) or in_rate <= 0:
            raise ValueError(f"invalid input sample rate {in_rate!r}")
        self.in_rate = float(in_rate)
        self._stream = (
            None
            if self.in_rate == SAMPLE_RATE
            else soxr.ResampleStream(self.in_rate, SAMPLE_RATE, 1, dtype="float32", quality=quality)
        )

    def process(self, block: np.ndarray, last: bool = False) -> np.ndarray:
        """Convert one block; ``last=True`` drains the filter (call it once, at the end)."""
        mono = to_float_mono(block)
        if self._stream is not None:
            mono = self._stream.resample_chunk(mono, last=last)
        return float_to_int16(mono)

    def flush(self) -> np.ndarray:
        """The samples still inside the filter (empty when no resampling is needed)."""
        return self.process(np.zeros(0, dtype=np.float32), last=True)


def level_dbfs(samples: np.ndarray) -> float:
    """RMS level of int16 samples in dB relative to full scale (-100 for silence or no samples)."""
    if samples.size == 0:
        return -100.0
    rms = float(np.sqrt(np.mean(np.square(samples.astype(np.float64)))))
    if rms <= 0:
        return -100.0
    return max(-100.0, 20.0 * math.log10(rms / _INT16_MAX))
