"""dictate: offline dictation with streaming punctuation."""

__version__ = "0.2.0"
