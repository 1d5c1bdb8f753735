"""Audio in: microphone and audio file sources, all delivered as 16 kHz mono int16."""

SAMPLE_RATE = 16_000
"""The rate every source delivers and every recogniser and VAD expects."""
