"""Quantisation sensitivity per layer: which layers of the punctuation model lose the most when
int8, and what keeping them in float costs in size.

    python benchmarks/quant_layers.py --float checkpoints/model.float.onnx \
        --model models/punctuator --reference ../shared/data/iwslt/dev2012.tsv \
        [--words 40000] [--keep-float 0,5] [--json]

For the float model, the all-int8 model and one model per transformer layer with that layer's
MatMuls left in float (``onnxruntime.quantization.quantize_dynamic``, per-channel int8, as
``dictate.training.export.export``), it prints the file size and overall punctuation F1 on the
first ``--words`` words of the reference (a validation file: never a test set when choosing).
``--keep-float`` also scores the model with those layers in float together. ``--model`` gives
the tokenizer.json and config.json that go beside each variant.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dictate.evaluation.readers import Reference, read_reference  # noqa: E402
from dictate.evaluation.streaming import score  # noqa: E402


def layer_nodes(float_path: Path) -> dict[int, list[str]]:
    """MatMul/Gemm node names of each transformer layer (``.../layer.K/...`` in the export)."""
    import onnx

    graph = onnx.load(str(float_path), load_external_data=False).graph
    layers: dict[int, list[str]] = {}
    for node in graph.node:
        if node.op_type not in ("MatMul", "Gemm"):
            continue
        for part in node.name.split("/"):
            if part.startswith("layer.") and part[6:].isdigit():
                layers.setdefault(int(part[6:]), []).append(node.name)
    return dict(sorted(layers.items()))


def variant(float_path: Path, model_dir: Path, out: Path, exclude: list[str] | None) -> Path:
    """A model folder: the float graph (``exclude`` None) or int8 with ``exclude`` in float."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    out.mkdir(parents=True, exist_ok=True)
    for name in ("tokenizer.json", "config.json"):
        shutil.copy(model_dir / name, out / name)
    if exclude is None:
        shutil.copy(float_path, out / "model.onnx")
    else:
        quantize_dynamic(
            str(float_path),
            str(out / "model.onnx"),
            weight_type=QuantType.QInt8,
            per_channel=True,
            nodes_to_exclude=exclude,
        )
    return out


def overall_f1(model_dir: Path, reference: Reference) -> float:
    from dictate.punctuation.model import load_punctuation_model

    model = load_punctuation_model(model_dir, "cpu", None)
    tags = model.tag(reference.words).punct_tags()
    return float(score(reference, tags, None)["punctuation"]["OVERALL"]["f1"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--float", type=Path, required=True, help="the float ONNX export")
    parser.add_argument("--model", type=Path, required=True, help="folder with tokenizer/config")
    parser.add_argument("--reference", type=Path, required=True, help="validation reference")
    parser.add_argument("--words", type=int, default=40_000)
    parser.add_argument("--keep-float", help="comma-separated layers to keep in float together")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    full = read_reference(args.reference)
    reference = Reference(full.words[: args.words], full.tags[: args.words], None)
    layers = layer_nodes(args.float)
    plans: dict[str, list[str] | None] = {"float": None, "int8": []}
    plans.update({f"layer {k} float": nodes for k, nodes in layers.items()})
    if args.keep_float:
        keep = [int(k) for k in args.keep_float.split(",")]
        plans[f"layers {args.keep_float} float"] = [n for k in keep for n in layers[k]]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, exclude) in enumerate(plans.items()):
            folder = variant(args.float, args.model, Path(tmp) / str(i), exclude)
            size = (folder / "model.onnx").stat().st_size
            rows.append({"variant": name, "mb": size / 1e6, "f1": overall_f1(folder, reference)})
            if not args.json:
                row = rows[-1]
                print(f"{row['variant']:<22} {row['mb']:7.1f} MB  F1 {100 * row['f1']:.2f}")
    if args.json:
        print(json.dumps({"words": len(reference.words), "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
