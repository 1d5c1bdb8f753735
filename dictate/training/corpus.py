"""The training data as the tagger reads it: the base encoder's tokenizer, every talk and
corpus document cleaned, labelled and tokenised into one flat :class:`Corpus`, and windows
sampled from it and padded into batches."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch

from dictate.training.data import AsrNoise, Variation, labelled_documents

IGNORE = -100


def load_tokenizer(path: Path) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    # That tokenizer.json pads and truncates to 128 tokens unless told not to.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


@dataclass
class Corpus:
    """Flattened, tokenised training words."""

    token_ids: np.ndarray  # all subtokens, concatenated
    word_end: np.ndarray  # exclusive end offset of each word in token_ids
    punct: np.ndarray
    case: np.ndarray
    doc_end: np.ndarray  # exclusive end word index of the document each word is in

    def save(self, path: Path) -> None:
        np.savez(path, **asdict(self))

    @classmethod
    def load(cls, path: Path) -> Corpus:
        with np.load(path) as z:
            return cls(**{k: z[k] for k in cls.__dataclass_fields__})

    @property
    def n_words(self) -> int:
        return len(self.punct)


def prepare(
    talks: Path,
    tokenizer: Any,
    seed: int,
    variation: Variation,
    corpora: dict[Path, float] | None = None,
    noise: AsrNoise | None = None,
) -> Corpus:
    """Clean, label and tokenise every talk, and the corpora documents ``labelled_documents``
    picks (see there for ``corpora`` and ``noise``)."""
    cache: dict[str, list[int]] = {}
    unk = tokenizer.token_to_id("[UNK]")
    ids: list[int] = []
    word_end: list[int] = []
    punct: list[int] = []
    case: list[int] = []
    doc_end: list[int] = []
    for labelled in labelled_documents(talks, seed, variation, corpora, noise):
        new = [w for w in dict.fromkeys(labelled.words) if w not in cache]
        for word, enc in zip(
            new, tokenizer.encode_batch(new, add_special_tokens=False), strict=True
        ):
            cache[word] = list(enc.ids[-16:]) or [unk]
        for word in labelled.words:
            ids.extend(cache[word])
            word_end.append(len(ids))
        punct += labelled.punct
        case += labelled.case
        doc_end += [len(punct)] * len(labelled)
    return Corpus(
        np.asarray(ids, np.int32),
        np.asarray(word_end, np.int64),
        np.asarray(punct, np.int8),
        np.asarray(case, np.int8),
        np.asarray(doc_end, np.int64),
    )


def sample_window(
    corpus: Corpus, rng: np.random.Generator, limit: int, cls_id: int, sep_id: int
) -> tuple[list[int], list[int], list[int]]:
    """A window of at most ``limit`` subtokens starting at a random word.

    Windows start and end mid-sentence, as the streaming decoder's windows do, not at sentence
    ends, so the model learns not to put a period at every window end.
    """
    budget = limit
    start = int(rng.integers(0, corpus.n_words))
    end_doc = int(corpus.doc_end[start])
    begin_tok = int(corpus.word_end[start - 1]) if start > 0 else 0
    # Last word whose end fits in the token limit.
    stop = int(np.searchsorted(corpus.word_end, begin_tok + limit, side="right"))
    stop = max(start + 1, min(stop, end_doc))
    tokens = corpus.token_ids[begin_tok : int(corpus.word_end[stop - 1])][:budget].tolist()
    punct = [IGNORE] * len(tokens)
    case = [IGNORE] * len(tokens)
    for w in range(start, stop):
        last = int(corpus.word_end[w]) - 1 - begin_tok
        if last < len(tokens):
            punct[last] = int(corpus.punct[w])
            case[last] = int(corpus.case[w])
    return [cls_id, *tokens, sep_id], [IGNORE, *punct, IGNORE], [IGNORE, *case, IGNORE]


def collate(
    items: list[tuple[list[int], list[int], list[int]]],
    width: int = 0,
) -> tuple[torch.Tensor, ...]:
    """Pad windows to ``width`` (at least the longest window) into id, mask and label tensors."""
    width = max(width, *(len(x) for x, _, _ in items))
    ids = torch.zeros((len(items), width), dtype=torch.long)
    mask = torch.zeros_like(ids)
    punct = torch.full_like(ids, IGNORE)
    case = torch.full_like(ids, IGNORE)
    for i, (x, p, c) in enumerate(items):
        ids[i, : len(x)] = torch.tensor(x)
        mask[i, : len(x)] = 1
        punct[i, : len(x)] = torch.tensor(p)
        case[i, : len(x)] = torch.tensor(c)
    return ids, mask, punct, case
