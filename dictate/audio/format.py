"""The one audio format inside the app: every source delivers, and every recogniser and voice
activity detector expects, 16 kHz mono int16 samples."""

SAMPLE_RATE = 16_000
"""The rate every source delivers and every recogniser and VAD expects."""
