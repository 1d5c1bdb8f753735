"""A tiny but real punctuation model directory for tests: ONNX graph, tokenizer, config.

The trained model is large and comes from the model issue; these tests need something small
whose answers are known. The graph looks each token up in a fixed table, so the tag of a word is
the row of its *last* subtoken:

- ``stop`` -> PERIOD, ``huh`` -> QUESTION, ``well`` -> COMMA, everything else O;
- ``stops`` is ``stop`` + ``##s``, so it is O (its last subtoken is ``##s``);
- casing head: ``london`` -> CAPITALIZED, ``nasa`` -> ALL_CAPS, everything else LOWER.

With ``edge_question=True`` every token within two tokens of either end of its window also gets
a strong QUESTION logit. Correct window stitching hides this effect for every word that has
context on both sides somewhere, which is what the runner tests check.

Run as a script to build one: ``python tests/tiny_model.py OUT_DIR [--max-length N]``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]"]
WORDS = (
    "the a and to of in is it you that we he she they this was for on are with as i his at be "
    "have not but what all were when there can said an each which do how their if will up other "
    "about out many then them these so some her would make like him into time has look two more "
    "go see no way could people my than first been call who its now find long down day did get "
    "come made may part over new sound take only little work know place year live me back give "
    "most very after thing our just name good sentence man think say great where help through "
    "much before line right too mean old any same tell boy follow came want show also around "
    "form three small set put end does another large must big even such because turn here why "
    "ask went men read need land different home us move try kind hand picture again change off "
    "play spell air away animal house point page letter mother answer found study still learn "
    "should america world stop huh well london nasa"
).split()
SUFFIXES = ["##s", "##ing", "##ed"]
PUNCT_ROWS = {"stop": 2, "huh": 3, "well": 1}  # column in O, COMMA, PERIOD, QUESTION
CASE_ROWS = {"london": 1, "nasa": 2}  # column in LOWER, CAPITALIZED, ALL_CAPS
EDGE_TOKENS = 2


def vocabulary() -> dict[str, int]:
    """Token -> id of the tiny WordPiece vocabulary."""
    tokens = SPECIALS + list(dict.fromkeys(WORDS)) + SUFFIXES
    return {t: i for i, t in enumerate(tokens)}


def build_tokenizer() -> Tokenizer:
    """An uncased BERT-style WordPiece tokenizer over :func:`vocabulary`."""
    tokenizer = Tokenizer(models.WordPiece(vocabulary(), unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    # Like the MiniLM tokenizer.json: truncation and padding left on, which the runner must undo.
    tokenizer.enable_truncation(max_length=8)
    tokenizer.enable_padding(length=8)
    return tokenizer


def _table(rows: dict[str, int], columns: int, vocab: dict[str, int]) -> np.ndarray:
    table = np.zeros((len(vocab), columns), dtype=np.float32)
    table[:, 0] = 5.0
    for word, column in rows.items():
        table[vocab[word]] = 0.0
        table[vocab[word], column] = 5.0
    return table


def build_graph(casing: bool, edge_question: bool) -> onnx.ModelProto:
    """The lookup-table graph described in the module docstring."""
    vocab = vocabulary()
    nodes = [helper.make_node("Gather", ["punct_table", "input_ids"], ["punct_raw"], axis=0)]
    inits = [numpy_helper.from_array(_table(PUNCT_ROWS, 4, vocab), "punct_table")]
    if edge_question:
        inits += [
            numpy_helper.from_array(np.array(1, np.int64), "axis1"),
            numpy_helper.from_array(np.array([1], np.int64), "axes1"),
            numpy_helper.from_array(np.array([2], np.int64), "axes2"),
            numpy_helper.from_array(np.array(1.0, np.float32), "one"),
            numpy_helper.from_array(np.array(float(EDGE_TOKENS), np.float32), "edge"),
            numpy_helper.from_array(np.array([[[0, 0, 0, 20]]], np.float32), "qvec"),
        ]
        nodes += [
            helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
            helper.make_node("CumSum", ["maskf", "axis1"], ["cum"]),
            helper.make_node("Sub", ["cum", "one"], ["pos"]),
            helper.make_node("ReduceSum", ["maskf", "axes1"], ["length"], keepdims=1),
            helper.make_node("Sub", ["length", "one"], ["last"]),
            helper.make_node("Sub", ["last", "pos"], ["right"]),
            helper.make_node("Min", ["pos", "right"], ["dist"]),
            helper.make_node("Less", ["dist", "edge"], ["near_b"]),
            helper.make_node("Cast", ["near_b"], ["near"], to=TensorProto.FLOAT),
            helper.make_node("Unsqueeze", ["near", "axes2"], ["near3"]),
            helper.make_node("Mul", ["near3", "qvec"], ["bonus"]),
            helper.make_node("Add", ["punct_raw", "bonus"], ["punct_logits"]),
        ]
    else:
        nodes.append(helper.make_node("Identity", ["punct_raw"], ["punct_logits"]))
    outputs = [helper.make_tensor_value_info("punct_logits", TensorProto.FLOAT, ["b", "s", 4])]
    if casing:
        inits.append(numpy_helper.from_array(_table(CASE_ROWS, 3, vocab), "case_table"))
        nodes.append(
            helper.make_node("Gather", ["case_table", "input_ids"], ["case_logits"], axis=0)
        )
        outputs.append(
            helper.make_tensor_value_info("case_logits", TensorProto.FLOAT, ["b", "s", 3])
        )
    graph = helper.make_graph(
        nodes,
        "tiny_punctuator",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["b", "s"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["b", "s"]),
        ],
        outputs,
        initializer=inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def build_tiny_model(
    out_dir: Path, *, max_length: int = 64, casing: bool = True, edge_question: bool = False
) -> Path:
    """Write ``model.onnx``, ``tokenizer.json`` and ``config.json`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    onnx.save(build_graph(casing, edge_question), str(out_dir / "model.onnx"))
    build_tokenizer().save(str(out_dir / "tokenizer.json"))
    config = {
        "format_version": 1,
        "model_version": "tiny-test",
        "punct_labels": ["O", "COMMA", "PERIOD", "QUESTION"],
        "case_labels": ["LOWER", "CAPITALIZED", "ALL_CAPS"] if casing else None,
        "max_length": max_length,
        "special_tokens": {"cls": "[CLS]", "sep": "[SEP]", "pad": "[PAD]", "unk": "[UNK]"},
    }
    (out_dir / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return out_dir


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--max-length", type=int, default=64)
    parser.add_argument("--edge-question", action="store_true")
    parser.add_argument("--no-casing", action="store_true")
    ns = parser.parse_args()
    build_tiny_model(
        ns.out_dir,
        max_length=ns.max_length,
        casing=not ns.no_casing,
        edge_question=ns.edge_question,
    )
    print(ns.out_dir)
