"""The training recipe's settings, shared by training and export: the hyper-parameters
(:class:`TrainConfig`) and the model version written to ``config.json``."""

from __future__ import annotations

from dataclasses import dataclass

MODEL_VERSION = "minilm-l6-mixed-1"


@dataclass(frozen=True)
class TrainConfig:
    """Training hyper-parameters (units in the names)."""

    seed: int = 1234
    steps: int = 6000
    batch_windows: int = 16
    max_tokens: int = 256  # the app's window (config.json max_length)
    short_batch_windows: int = 32
    short_window_p: float = 0.3  # share of batches cut to a random length (contextual dropout)
    lr: float = 3e-4
    warmup_frac: float = 0.05
    weight_decay: float = 0.01
    dropout: float = 0.1
    attention_dropout: float = 0.0  # see EncoderConfig.attention_dropout
    # Class weights of the main punctuation head; the probe head (same encoder, gradients
    # stopped) is trained with probe_question_weight, so the two can be compared.
    question_weight: float = 1.0
    probe_question_weight: float = 3.0
    case_loss_weight: float = 0.5
    bf16: bool = False
