"""Average the weights of fine-tuned runs that share a base encoder (a "model soup",
Wortsman et al. 2022) into a work folder that ``train export`` reads::

    python -m dictate.training.average WORK_A WORK_B OUT_WORK
    python -m dictate.training.train --work OUT_WORK --out OUT_WORK/model export

Each WORK holds ``model.pt`` and ``probe_head.pt`` from ``train fit``.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

#: The state-dict files ``train fit`` writes and ``train export`` reads.
WEIGHT_FILES = ("model.pt", "probe_head.pt")


def average_state_dicts(states: list[dict[str, Any]]) -> dict[str, Any]:
    """The element-wise mean of floating-point tensors; other tensors (ids, counters) must be
    equal and are copied. Raises ValueError when the runs' shapes or keys differ."""
    first = states[0]
    for state in states[1:]:
        if state.keys() != first.keys():
            raise ValueError("the runs have different layers; were they trained from one base?")
    out: dict[str, Any] = {}
    for key, tensor in first.items():
        tensors = [state[key] for state in states]
        if any(t.shape != tensor.shape for t in tensors):
            raise ValueError(f"{key}: shapes differ between the runs")
        if tensor.is_floating_point():
            total = sum(t.float() for t in tensors)
            out[key] = (total / len(tensors)).to(tensor.dtype)
        elif all(bool((t == tensor).all()) for t in tensors):
            out[key] = tensor
        else:
            raise ValueError(f"{key}: non-float values differ between the runs")
    return out


def main(argv: list[str] | None = None) -> int:
    import torch

    parser = argparse.ArgumentParser(
        prog="python -m dictate.training.average", description=__doc__.splitlines()[0]
    )
    parser.add_argument("works", type=Path, nargs="+", help="two or more train --work folders")
    parser.add_argument("out", type=Path, help="the work folder to write")
    args = parser.parse_args(argv)
    if len(args.works) < 2:
        parser.error("give at least two work folders to average")
    for work in args.works:
        for name in WEIGHT_FILES:
            if not (work / name).is_file():
                print(
                    f"error: {work / name} is missing; run `train fit` there first", file=sys.stderr
                )
                return 2
    for name in WEIGHT_FILES:
        try:
            states = [torch.load(work / name, map_location="cpu") for work in args.works]
            averaged = average_state_dicts(states)
            args.out.mkdir(parents=True, exist_ok=True)
            torch.save(averaged, args.out / name)
        except ValueError as error:
            print(f"error: {name}: {error}", file=sys.stderr)
            return 2
        except (OSError, RuntimeError, EOFError, pickle.UnpicklingError) as error:
            print(
                f"error: {name}: cannot read the runs or write {args.out}: {error}", file=sys.stderr
            )
            return 2
    print(f"averaged {len(args.works)} runs into {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
