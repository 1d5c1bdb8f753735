"""A BERT encoder (the all-MiniLM-L6-v2 shape) with punctuation and casing heads, in PyTorch.

Written out here rather than taken from ``transformers`` so training needs nothing but torch,
and the ONNX export sees a small, plain graph. Parameter names follow the Hugging Face BERT
checkpoint, so its ``model.safetensors`` loads with no missing or unexpected keys.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn

from dictate.punctuation.labels import CASE_TAGS, PUNCT_TAGS


@dataclass(frozen=True)
class EncoderConfig:
    """Shape of a BERT encoder (read from the checkpoint's ``config.json``)."""

    vocab_size: int = 30522
    hidden_size: int = 384
    num_hidden_layers: int = 6
    num_attention_heads: int = 12
    intermediate_size: int = 1536
    max_position_embeddings: int = 512
    type_vocab_size: int = 2
    layer_norm_eps: float = 1e-12
    dropout: float = 0.1
    # Dropout on attention probabilities. It keeps PyTorch's scaled_dot_product_attention on its
    # slow reference path on the CPU (measured: 2.6x slower steps on 256-token windows), so
    # training turns it off; hidden-state dropout stays.
    attention_dropout: float = 0.1

    @classmethod
    def from_file(cls, path: Path) -> EncoderConfig:
        raw = json.loads(path.read_text(encoding="utf-8"))
        names = set(cls.__dataclass_fields__) - {"dropout", "attention_dropout"}
        return cls(**{k: v for k, v in raw.items() if k in names})


class Embeddings(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.word_embeddings = nn.Embedding(c.vocab_size, c.hidden_size, padding_idx=0)
        self.position_embeddings = nn.Embedding(c.max_position_embeddings, c.hidden_size)
        self.token_type_embeddings = nn.Embedding(c.type_vocab_size, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.dropout)
        self.register_buffer("position_ids", torch.arange(c.max_position_embeddings)[None])

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = self.get_buffer("position_ids")[:, : input_ids.shape[1]]
        x = (
            self.word_embeddings(input_ids)
            + self.position_embeddings(positions)
            + self.token_type_embeddings.weight[0]
        )
        return self.dropout(self.LayerNorm(x))


class SelfAttention(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.heads = c.num_attention_heads
        self.query = nn.Linear(c.hidden_size, c.hidden_size)
        self.key = nn.Linear(c.hidden_size, c.hidden_size)
        self.value = nn.Linear(c.hidden_size, c.hidden_size)
        self.dropout_p = c.attention_dropout

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        b, s, h = x.shape

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.view(b, s, self.heads, h // self.heads).transpose(1, 2)

        out = F.scaled_dot_product_attention(
            split(self.query(x)),
            split(self.key(x)),
            split(self.value(x)),
            attn_mask=bias,
            dropout_p=self.dropout_p if self.training else 0.0,
        )
        return out.transpose(1, 2).reshape(b, s, h)


class DenseNorm(nn.Module):
    """Projection, dropout, residual, LayerNorm: BERT's ``*.output`` blocks."""

    def __init__(self, c: EncoderConfig, width: int) -> None:
        super().__init__()
        self.dense = nn.Linear(width, c.hidden_size)
        self.LayerNorm = nn.LayerNorm(c.hidden_size, eps=c.layer_norm_eps)
        self.dropout = nn.Dropout(c.dropout)

    def forward(self, x: torch.Tensor, residual: torch.Tensor) -> torch.Tensor:
        return self.LayerNorm(self.dropout(self.dense(x)) + residual)


class Attention(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.self = SelfAttention(c)
        self.output = DenseNorm(c, c.hidden_size)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        return self.output(self.self(x, bias), x)


class Intermediate(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.intermediate_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.gelu(self.dense(x))


class Layer(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.attention = Attention(c)
        self.intermediate = Intermediate(c)
        self.output = DenseNorm(c, c.intermediate_size)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        a = self.attention(x, bias)
        return self.output(self.intermediate(a), a)


class Encoder(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.layer = nn.ModuleList(Layer(c) for _ in range(c.num_hidden_layers))


class Pooler(nn.Module):
    """Unused by the tagger; present so the checkpoint loads strictly."""

    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.dense = nn.Linear(c.hidden_size, c.hidden_size)


class Bert(nn.Module):
    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.embeddings = Embeddings(c)
        self.encoder = Encoder(c)
        self.pooler = Pooler(c)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        # Additive mask: padded keys get a large negative score in every head.
        bias = (1.0 - attention_mask[:, None, None, :].to(torch.float32)) * -10000.0
        x = self.embeddings(input_ids)
        for layer in self.encoder.layer:
            x = layer(x, bias.to(x.dtype))
        return x


class PunctuationTagger(nn.Module):
    """Encoder + a punctuation head and a casing head (dropout + linear each, as in the paper)."""

    def __init__(self, c: EncoderConfig) -> None:
        super().__init__()
        self.config = c
        self.bert = Bert(c)
        self.dropout = nn.Dropout(c.dropout)
        self.punct_head = nn.Linear(c.hidden_size, len(PUNCT_TAGS))
        self.case_head = nn.Linear(c.hidden_size, len(CASE_TAGS))

    def forward(
        self, input_ids: torch.Tensor, attention_mask: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        h = self.dropout(self.bert(input_ids, attention_mask))
        return self.punct_head(h), self.case_head(h)

    def load_encoder(self, safetensors_path: Path) -> None:
        """Load pretrained encoder weights; every key must match."""
        from safetensors.torch import load_file

        state = load_file(str(safetensors_path))
        result = self.bert.load_state_dict(state, strict=False)
        if result.missing_keys or result.unexpected_keys:
            raise RuntimeError(
                f"{safetensors_path} does not fit the encoder: missing {result.missing_keys}, "
                f"unexpected {result.unexpected_keys}"
            )
