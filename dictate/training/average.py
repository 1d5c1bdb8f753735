"""Average the weights of fine-tuned runs that share a base encoder (a "model soup",
Wortsman et al. 2022) into a work folder that ``train export`` reads::

    python -m dictate.training.average WORK_A WORK_B OUT_WORK
    python -m dictate.training.train --work OUT_WORK --out OUT_WORK/model export

Each WORK holds ``model.pt`` and ``probe_head.pt`` from ``train fit``.

:class:`TailAverage` does the same within one run: ``train --average-from FRAC`` keeps the mean
of the weights taken every few steps from that share of the schedule to its end (tail or
stochastic weight averaging, Izmailov et al. 2018), at the cost of one copy of the weights.
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


class TailAverage:
    """The running mean of named state dicts, taken at ``start`` and every ``every`` steps after
    it up to the end of training. Sums are kept in float32; non-float tensors are taken from the
    latest snapshot."""

    def __init__(self, start: int, every: int) -> None:
        if start < 0 or every < 1:
            raise ValueError(f"start must be >= 0 and every >= 1 (got {start}, {every})")
        self.start, self.every = start, every
        self.count = 0
        self.sums: dict[str, dict[str, Any]] = {}

    def due(self, step: int, last_step: int) -> bool:
        """Whether the weights after ``step`` are part of the mean (the last step always is)."""
        return step >= self.start and ((step - self.start) % self.every == 0 or step == last_step)

    def add(self, states: dict[str, dict[str, Any]]) -> None:
        for name, state in states.items():
            sums = self.sums.setdefault(name, {})
            for key, tensor in state.items():
                if tensor.is_floating_point():
                    value = tensor.detach().float()
                    sums[key] = value.clone() if key not in sums else sums[key] + value
                else:
                    sums[key] = tensor.detach().clone()
        self.count += 1

    def mean(self, name: str) -> dict[str, Any]:
        if self.count == 0:
            raise ValueError("no weights were averaged: training ended before the start step")
        return {
            key: (value / self.count if value.is_floating_point() else value)
            for key, value in self.sums[name].items()
        }

    def state_dict(self) -> dict[str, Any]:
        return {"start": self.start, "every": self.every, "count": self.count, "sums": self.sums}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.start, self.every = state["start"], state["every"]
        self.count, self.sums = state["count"], state["sums"]


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
