"""The punctuation model runner: one ONNX Runtime session and tokenizer, loaded once, reused.

A model directory holds:

- ``model.onnx``: inputs ``input_ids`` and ``attention_mask`` (int64, ``[batch, seq]``); output
  ``punct_logits`` (``[batch, seq, len(punct_labels)]``) and, for a model with a casing head,
  ``case_logits`` (``[batch, seq, len(case_labels)]``).
- ``tokenizer.json``: a ``tokenizers`` tokenizer.
- ``config.json``: label names in output column order, casing labels (or null), the maximum
  sequence length in tokens including specials, the special tokens, and versions.

Words are tokenized to subtokens and each word's tag is read from its last subtoken. Inputs longer
than the model's maximum are tagged in overlapping windows; each word keeps the prediction of the
window in which it had the most context on both sides.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from dictate.errors import ModelError, ModelNotFound
from dictate.punctuation.labels import CASE_TAGS, PUNCT_TAGS
from dictate.punctuation.session import create_session
from dictate.punctuation.tokenization import WordTokenizer

log = logging.getLogger(__name__)

CONFIG_FORMAT_VERSION = 1

FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class ModelConfig:
    """The contents of a model directory's ``config.json``.

    Attributes:
        punct_labels: Punctuation tag of each ``punct_logits`` column.
        case_labels: Casing tag of each ``case_logits`` column, or None without a casing head.
        max_length: Longest input the model takes, in tokens, specials included.
        special_tokens: Token names for the roles ``cls``, ``sep``, ``pad`` and ``unk``.
        model_version: Free-form version of the trained weights.
    """

    punct_labels: tuple[str, ...]
    case_labels: tuple[str, ...] | None
    max_length: int
    special_tokens: dict[str, str]
    model_version: str = "unknown"
    language: str = "en"
    """The language the model was trained on (``language`` in config.json; English if absent)."""

    @classmethod
    def load(cls, path: Path) -> ModelConfig:
        """Read and validate ``config.json``.

        Raises:
            ModelError: The file is unreadable, not JSON, or its fields are wrong.
        """
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelError(f"cannot read model config {path}: {exc}") from exc
        if not isinstance(raw, dict):
            raise ModelError(f"model config {path} is not a JSON object")
        if raw.get("format_version") != CONFIG_FORMAT_VERSION:
            raise ModelError(
                f"model config {path} has format_version {raw.get('format_version')!r}; "
                f"this version of dictate reads {CONFIG_FORMAT_VERSION}"
            )
        try:
            punct = tuple(raw["punct_labels"])
            case = tuple(raw["case_labels"]) if raw.get("case_labels") else None
            max_length = int(raw["max_length"])
            specials = {str(k): str(v) for k, v in dict(raw["special_tokens"]).items()}
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"model config {path} is missing or has a bad field: {exc}") from exc
        if sorted(punct) != sorted(PUNCT_TAGS):
            raise ModelError(f"model config {path}: punct_labels must be {list(PUNCT_TAGS)}")
        if case is not None and sorted(case) != sorted(CASE_TAGS):
            raise ModelError(f"model config {path}: case_labels must be {list(CASE_TAGS)}")
        if max_length < 8:
            raise ModelError(f"model config {path}: max_length {max_length} is too small")
        return cls(
            punct,
            case,
            max_length,
            specials,
            str(raw.get("model_version", "unknown")),
            str(raw.get("language", "en")),
        )


@dataclass(frozen=True)
class Tagging:
    """Per-word probabilities for one tagged word sequence.

    Attributes:
        punct_probs: ``[n_words, 4]`` probabilities in the order of ``labels.PUNCT_TAGS``.
        case_probs: ``[n_words, 3]`` probabilities in the order of ``labels.CASE_TAGS``, or None
            when the model has no casing head.
    """

    punct_probs: FloatArray
    case_probs: FloatArray | None = None

    def __len__(self) -> int:
        return int(self.punct_probs.shape[0])

    def punct_tags(self) -> list[str]:
        """The most probable punctuation tag of each word."""
        return [PUNCT_TAGS[i] for i in self.punct_probs.argmax(axis=1)]

    def case_tags(self) -> list[str] | None:
        """The most probable casing tag of each word, or None without a casing head."""
        if self.case_probs is None:
            return None
        return [CASE_TAGS[i] for i in self.case_probs.argmax(axis=1)]

    def slice(self, start: int, stop: int) -> Tagging:
        """The tagging of words ``start:stop``."""
        case = None if self.case_probs is None else self.case_probs[start:stop]
        return Tagging(self.punct_probs[start:stop], case)


def plan_windows(lengths: Sequence[int], budget: int) -> list[tuple[int, int]]:
    """Cover words with overlapping windows of at most ``budget`` tokens.

    Consecutive windows overlap by about half a window, so every word lies well inside at least
    one of them unless the text is shorter than a window.

    Args:
        lengths: Subtoken count of each word (each at most ``budget``).
        budget: Tokens available for words in one window.

    Returns:
        ``(start, stop)`` word ranges, in order, covering every word.
    """
    n = len(lengths)
    windows: list[tuple[int, int]] = []
    start = 0
    while start < n:
        stop, used = start, 0
        while stop < n and used + lengths[stop] <= budget:
            used += lengths[stop]
            stop += 1
        stop = max(stop, start + 1)
        windows.append((start, stop))
        if stop >= n:
            break
        # Start the next window so that the end of this one sits near the middle of the next.
        nxt, tail = stop, 0
        while nxt - 1 > start and tail + lengths[nxt - 1] <= budget // 2:
            nxt -= 1
            tail += lengths[nxt]
        start = max(nxt, start + 1)
    return windows


def context_scores(
    lengths: Sequence[int], window: tuple[int, int], total_words: int
) -> list[float]:
    """Context of each word of ``window``: the fewer tokens on its poorer side.

    A window edge that is also the edge of the whole text counts as unlimited context, since no
    other window could see more on that side.
    """
    start, stop = window
    inside = lengths[start:stop]
    scores: list[float] = []
    left = 0
    right = sum(inside)
    for count in inside:
        right -= count
        left_ctx = float("inf") if start == 0 else float(left)
        right_ctx = float("inf") if stop == total_words else float(right)
        scores.append(min(left_ctx, right_ctx))
        left += count
    return scores


def best_windows(
    lengths: Sequence[int], windows: Sequence[tuple[int, int]]
) -> npt.NDArray[np.int64]:
    """For each word, the index of the window that gives it the most context (first on ties).

    Args:
        lengths: Subtoken count of each word.
        windows: Word ranges from :func:`plan_windows`.

    Returns:
        One window index per word.
    """
    n = len(lengths)
    best = np.full(n, -1.0)
    choice = np.zeros(n, dtype=np.int64)
    for index, window in enumerate(windows):
        start = window[0]
        for offset, score in enumerate(context_scores(lengths, window, n)):
            if score > best[start + offset]:
                best[start + offset] = score
                choice[start + offset] = index
    return choice


def _softmax(logits: npt.NDArray[Any]) -> FloatArray:
    shifted = logits - logits.max(axis=-1, keepdims=True)
    exp = np.exp(shifted)
    return (exp / exp.sum(axis=-1, keepdims=True)).astype(np.float32)


class PunctuationModel:
    """A loaded punctuation model: tokenizer, ONNX session and config, reused for every call.

    Safe to call from several threads (ONNX Runtime sessions are; the tokenizer cache is locked).

    Args:
        model_dir: Directory with ``model.onnx``, ``tokenizer.json`` and ``config.json``.
        provider: ``auto`` (CUDA if it works, else CPU), ``cpu`` or ``cuda``.
        threads: CPU intra-op threads (see :func:`~dictate.punctuation.session.create_session`).
        batch_size: Windows per ONNX Runtime call when a long input is split.

    Raises:
        ModelNotFound: The directory or one of its files does not exist.
        ModelError: A file is corrupt or the model's inputs and outputs are not as described.
        ProviderError: The requested provider cannot be used.
    """

    def __init__(
        self,
        model_dir: str | Path,
        provider: str = "auto",
        *,
        threads: int | None = None,
        batch_size: int = 8,
    ) -> None:
        self.model_dir = Path(model_dir)
        if not self.model_dir.is_dir():
            raise ModelNotFound(f"punctuation model directory {self.model_dir} does not exist")
        for name in ("model.onnx", "tokenizer.json", "config.json"):
            if not (self.model_dir / name).is_file():
                raise ModelNotFound(
                    f"punctuation model directory {self.model_dir} has no {name}; "
                    "it must hold model.onnx, tokenizer.json and config.json"
                )
        self.config = ModelConfig.load(self.model_dir / "config.json")
        self.tokenizer = WordTokenizer(
            self.model_dir / "tokenizer.json", self.config.special_tokens
        )
        self._session, self.session_info = create_session(
            self.model_dir / "model.onnx", provider, threads
        )
        self._check_signature()
        self._batch_size = max(1, batch_size)
        head, tail = self.tokenizer.specials
        self._head, self._tail = head, tail
        #: Tokens available for words in one window.
        self.window_tokens = self.config.max_length - len(head) - len(tail)
        # Columns of the model's outputs in canonical tag order.
        self._punct_order = [self.config.punct_labels.index(t) for t in PUNCT_TAGS]
        self._case_order = (
            [self.config.case_labels.index(t) for t in CASE_TAGS]
            if self.config.case_labels
            else None
        )

    def _check_signature(self) -> None:
        inputs = {i.name for i in self._session.get_inputs()}
        outputs = [o.name for o in self._session.get_outputs()]
        path = self.model_dir / "model.onnx"
        if inputs != {"input_ids", "attention_mask"}:
            raise ModelError(
                f"{path} takes inputs {sorted(inputs)}; expected input_ids and attention_mask"
            )
        if "punct_logits" not in outputs:
            raise ModelError(f"{path} has no output 'punct_logits' (outputs: {outputs})")
        if (self.config.case_labels is not None) != ("case_logits" in outputs):
            raise ModelError(
                f"{path}: config.json case_labels and the model's case_logits output disagree"
            )
        self._outputs = ["punct_logits"] + (["case_logits"] if "case_logits" in outputs else [])

    @property
    def provider(self) -> str:
        """The execution provider the session actually uses, e.g. ``CPUExecutionProvider``."""
        return self.session_info.provider

    @property
    def threads(self) -> int:
        """CPU intra-op threads of the session."""
        return self.session_info.threads

    @property
    def has_casing(self) -> bool:
        """Whether the model predicts casing."""
        return self.config.case_labels is not None

    def count_tokens(self, words: Sequence[str]) -> int:
        """Subtokens of ``words`` (specials not included)."""
        return self.tokenizer.count(words)

    def run_ids(
        self, input_ids: npt.NDArray[np.int64], attention_mask: npt.NDArray[np.int64]
    ) -> list[Any]:
        """Run the session on ready-made token ids; used by the benchmarks."""
        return list(
            self._session.run(
                self._outputs, {"input_ids": input_ids, "attention_mask": attention_mask}
            )
        )

    def tag(self, words: Sequence[str]) -> Tagging:
        """Tag a sequence of words, windowing it when it is longer than the model's maximum.

        Args:
            words: Lowercase words without punctuation, as a recogniser produces them.

        Returns:
            Per-word probabilities.
        """
        n = len(words)
        case_cols = len(CASE_TAGS) if self.has_casing else 0
        if n == 0:
            empty = np.zeros((0, len(PUNCT_TAGS)), np.float32)
            return Tagging(empty, np.zeros((0, case_cols), np.float32) if case_cols else None)
        # A word longer than a window (pathological input) keeps its last subtokens: its tag is
        # read from the last one.
        ids = [w[-self.window_tokens :] for w in self.tokenizer.word_ids(words)]
        lengths = [len(w) for w in ids]
        windows = plan_windows(lengths, self.window_tokens)
        choice = best_windows(lengths, windows)
        punct = np.zeros((n, len(PUNCT_TAGS)), np.float32)
        case = np.zeros((n, case_cols), np.float32) if case_cols else None
        for first in range(0, len(windows), self._batch_size):
            batch = windows[first : first + self._batch_size]
            outputs = self._run_windows(ids, batch)
            for index, (start, stop), (p_win, c_win) in zip(
                range(first, first + len(batch)), batch, outputs, strict=True
            ):
                mine = np.flatnonzero(choice[start:stop] == index)
                punct[start + mine] = p_win[mine]
                if case is not None and c_win is not None:
                    case[start + mine] = c_win[mine]
        return Tagging(punct, case)

    def _run_windows(
        self, ids: list[tuple[int, ...]], windows: list[tuple[int, int]]
    ) -> list[tuple[FloatArray, FloatArray | None]]:
        """Run one batch of windows; returns per-word probabilities of each window."""
        rows: list[list[int]] = []
        last_positions: list[list[int]] = []
        for start, stop in windows:
            row = list(self._head)
            positions = []
            for word in ids[start:stop]:
                row.extend(word)
                positions.append(len(row) - 1)
            row.extend(self._tail)
            rows.append(row)
            last_positions.append(positions)
        width = max(len(r) for r in rows)
        input_ids = np.full((len(rows), width), self.tokenizer.pad_id, dtype=np.int64)
        mask = np.zeros((len(rows), width), dtype=np.int64)
        for i, row in enumerate(rows):
            input_ids[i, : len(row)] = row
            mask[i, : len(row)] = 1
        outputs = self.run_ids(input_ids, mask)
        punct_logits = np.asarray(outputs[0])[..., self._punct_order]
        case_logits = (
            np.asarray(outputs[1])[..., self._case_order] if self._case_order is not None else None
        )
        result: list[tuple[FloatArray, FloatArray | None]] = []
        for i, positions in enumerate(last_positions):
            p = _softmax(punct_logits[i, positions])
            c = _softmax(case_logits[i, positions]) if case_logits is not None else None
            result.append((p, c))
        return result


def load_punctuation_model(
    model_dir: str | Path | None = None, provider: str = "auto", threads: int | None = None
) -> PunctuationModel:
    """The one way every caller (command line, pipeline, window, benchmarks) gets the model:
    found in the documented order (``model_dir``, ``$DICTATE_PUNCTUATOR_MODEL``, the user data
    directory, the shipped model; see :func:`dictate.store.resolve.resolve_punctuator_model`) and
    loaded on ``provider``."""
    from dictate.store.resolve import resolve_punctuator_model

    model = PunctuationModel(resolve_punctuator_model(model_dir), provider, threads=threads)
    log.info("punctuation model %s on %s", model.model_dir, model.provider)
    return model
