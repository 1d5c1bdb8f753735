"""Audio in: microphone and audio file sources, all delivered as 16 kHz mono int16."""
