"""Words to model subtokens, with a bounded cache.

The streaming decoder re-tags a window that overlaps the previous one, so the same words are
tokenized again and again; caching per word makes that cost disappear. A word's tag is read from
its last subtoken, so every word must map to at least one subtoken (unknown input maps to UNK).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from tokenizers import Tokenizer

from dictate.errors import ModelError


class WordTokenizer:
    """Tokenizes single words with a ``tokenizers`` tokenizer.

    Args:
        path: A ``tokenizer.json`` file.
        special_tokens: Names of the ``cls``, ``sep``, ``pad`` and ``unk`` tokens (``cls`` and
            ``sep`` may be missing for models trained without them).
        cache_size: Number of distinct words whose subtokens are remembered.

    Raises:
        ModelError: The file cannot be loaded or lacks a named special token.
    """

    def __init__(
        self, path: Path, special_tokens: dict[str, str], *, cache_size: int = 50_000
    ) -> None:
        try:
            self._tokenizer = Tokenizer.from_file(str(path))
        except Exception as exc:  # tokenizers raises a bare Exception on bad JSON
            raise ModelError(
                f"cannot load tokenizer {path}: {exc}; the model directory is corrupt, reinstall it"
            ) from exc
        # A tokenizer.json saved by a training script may pad or truncate every encoding (the
        # MiniLM one truncates to 128 tokens): that would silently cut words off.
        self._tokenizer.no_padding()
        self._tokenizer.no_truncation()
        self._ids: dict[str, int | None] = {}
        for role in ("cls", "sep", "pad", "unk"):
            name = special_tokens.get(role)
            token_id = self._tokenizer.token_to_id(name) if name else None
            if name and token_id is None:
                raise ModelError(f"tokenizer {path} has no {role} token {name!r}")
            self._ids[role] = token_id
        if self._ids["unk"] is None or self._ids["pad"] is None:
            raise ModelError(f"config for tokenizer {path} must name its 'unk' and 'pad' tokens")
        self._cache: OrderedDict[str, tuple[int, ...]] = OrderedDict()
        self._cache_size = cache_size
        self._lock = threading.Lock()

    @property
    def pad_id(self) -> int:
        """Id of the padding token."""
        pad = self._ids["pad"]
        assert pad is not None  # checked in __init__
        return pad

    @property
    def vocab_size(self) -> int:
        """Number of tokens in the vocabulary."""
        return int(self._tokenizer.get_vocab_size())

    @property
    def specials(self) -> tuple[list[int], list[int]]:
        """Token ids placed before and after the words of every window."""
        cls, sep = self._ids["cls"], self._ids["sep"]
        return ([cls] if cls is not None else []), ([sep] if sep is not None else [])

    def word_ids(self, words: Sequence[str]) -> list[tuple[int, ...]]:
        """Subtoken ids of each word; never empty.

        Args:
            words: Words without surrounding whitespace.

        Returns:
            One tuple of ids per word, in order.
        """
        with self._lock:
            missing = list(dict.fromkeys(w for w in words if w not in self._cache))
            if missing:
                encodings = self._tokenizer.encode_batch(missing, add_special_tokens=False)
                unk = self._ids["unk"]
                assert unk is not None
                for word, encoding in zip(missing, encodings, strict=True):
                    self._cache[word] = tuple(encoding.ids) or (unk,)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
            result = []
            for word in words:
                ids = self._cache.get(word)
                if ids is None:  # evicted while this call added others: tokenize it again
                    ids = tuple(self._tokenizer.encode(word, add_special_tokens=False).ids)
                    ids = ids or (self._ids["unk"] or 0,)
                else:
                    self._cache.move_to_end(word)
                result.append(ids)
            return result

    def count(self, words: Sequence[str]) -> int:
        """Total number of subtokens of ``words`` (specials not included)."""
        return sum(len(ids) for ids in self.word_ids(words))
