"""A deterministic stand-in for the punctuation model: per-word probabilities from a table.

The decoder tests need exact control of the probabilities; the decoders run on the real ONNX
model in ``test_cli.py`` and ``test_pipeline.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dictate.punctuation.model import Tagging

FIXED = {
    "stop": [0.05, 0.05, 0.85, 0.05],
    "huh": [0.05, 0.05, 0.05, 0.85],
    "well": [0.1, 0.8, 0.05, 0.05],
    "maybe": [0.55, 0.0, 0.45, 0.0],  # a weak boundary: arg-max says O
    "perhaps": [0.6, 0.0, 0.1, 0.3],  # weaker, and more a question than a statement
}
PLAIN = [0.97, 0.01, 0.01, 0.01]
WINDOW_END = [0.3, 0.0, 0.7, 0.0]  # an untuned model's habit: a period at every window end


class FakeTagger:
    """Per-word probabilities from a table; optionally a period at the end of every window."""

    def __init__(self, *, window_end_period: bool = True, window_tokens: int = 64) -> None:
        self.window_end_period = window_end_period
        self.window_tokens = window_tokens
        self.calls: list[list[str]] = []

    def tag(self, words: Sequence[str]) -> Tagging:
        self.calls.append(list(words))
        rows = [FIXED.get(w, PLAIN) for w in words]
        if self.window_end_period and rows and words[-1] not in FIXED:
            rows[-1] = WINDOW_END
        return Tagging(np.array(rows, dtype=np.float32).reshape(-1, 4))

    def count_tokens(self, words: Sequence[str]) -> int:
        return sum(1 + len(w) // 8 for w in words)
