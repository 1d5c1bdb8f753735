"""Two ways of reading the punctuation model's output that need no training, scored on a
validation file (never a test set when choosing):

    python benchmarks/decode_variants.py --model models/punctuator \
        --reference ../shared/data/iwslt/dev2012.tsv [--words N] [--json]

``--reference`` may also be one ``*.heldout.jsonl.gz`` file of the validation split that
``train prepare`` writes to ``WORK/validation/`` (cased, so capitalisation is scored too).

* **Windows:** a text longer than one model window is tagged in windows that overlap by half
  (``PunctuationModel.tag``), and each word keeps the window that gave it the most context.
  The variant averages the log-probabilities of every window holding the word, weighted by its
  context (capped at 60 tokens), with the windows' starts every 1/2 (no extra cost) or every
  1/4 of a window (twice the model runs).
* **Joint boundary:** the casing head also learnt where sentences start (training labels keep
  the capital of a sentence's first word). The variant adds ``lambda * (logit P(next word not
  lowercase) - b)`` to the sentence-end scores of each word, on a grid of lambda and b.

It prints overall punctuation F1 (and capitalisation F1 where the reference is cased) for the
model as shipped and for each variant.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dictate.evaluation.metrics import capitalization_scores, punctuation_scores  # noqa: E402
from dictate.evaluation.readers import Reference, read_reference  # noqa: E402
from dictate.evaluation.registers import read_documents  # noqa: E402
from dictate.punctuation.labels import CASE_TAGS, PUNCT_TAGS  # noqa: E402
from dictate.punctuation.model import (  # noqa: E402
    PunctuationModel,
    context_scores,
    load_punctuation_model,
)
from dictate.punctuation.render import case_words  # noqa: E402

CONTEXT_CAP = 60
GRID = [(0.1, b) for b in (-1, 0, 1, 2)] + [(0.2, b) for b in (0, 1, 2)] + [(0.5, 0), (0.5, 1)]


def windows(lengths: list[int], budget: int, step_fraction: float) -> list[tuple[int, int]]:
    """Word ranges of at most ``budget`` tokens whose starts are ``step_fraction`` of a window
    apart; the last one reaches the end."""
    cum = np.concatenate([[0], np.cumsum(lengths)])
    n, start, out = len(lengths), 0, []
    while True:
        stop = max(int(np.searchsorted(cum, cum[start] + budget, side="right")) - 1, start + 1)
        out.append((start, stop))
        if stop >= n:
            return out
        step = int(np.searchsorted(cum, cum[start] + budget * step_fraction, side="right")) - 1
        start = max(step, start + 1)


def tag_averaged(
    model: PunctuationModel, words: list[str], step_fraction: float
) -> tuple[np.ndarray, np.ndarray]:
    """Per-word punctuation and casing log-probabilities averaged over every window."""
    ids = [w[-model.window_tokens :] for w in model.tokenizer.word_ids(words)]
    lengths = [len(w) for w in ids]
    n = len(words)
    punct, case, weight = np.zeros((n, len(PUNCT_TAGS))), np.zeros((n, 3)), np.zeros(n)
    plan = windows(lengths, model.window_tokens, step_fraction)
    for first in range(0, len(plan), 16):
        batch = plan[first : first + 16]
        for (start, stop), (p, c) in zip(batch, model._run_windows(ids, batch), strict=True):
            w = np.minimum(np.array(context_scores(lengths, (start, stop), n), float), CONTEXT_CAP)
            w += 1.0
            punct[start:stop] += np.log(p + 1e-9) * w[:, None]
            if c is not None:
                case[start:stop] += np.log(c + 1e-9) * w[:, None]
            weight[start:stop] += w
    return punct / weight[:, None], case / weight[:, None]


def scores(reference: Reference, punct: np.ndarray, case: np.ndarray | None) -> dict[str, float]:
    tags = [PUNCT_TAGS[i] for i in punct.argmax(1)]
    result = {"overall_f1": 100 * punctuation_scores(reference.tags, tags)["OVERALL"].f1}
    if reference.cased is not None and case is not None:
        cased = case_words(reference.words, tags, [CASE_TAGS[i] for i in case.argmax(1)])
        result["capitalization_f1"] = 100 * capitalization_scores(reference.cased, cased).f1
    return result


def joint(punct: np.ndarray, case: np.ndarray, lam: float, bias: float) -> np.ndarray:
    """Sentence-end log-scores moved by the casing head's belief that the next word starts
    with a capital."""
    log_p = np.log(punct + 1e-9)
    not_lower = np.clip(1.0 - case[:, 0], 1e-6, 1 - 1e-6)
    next_logit = np.append((np.log(not_lower) - np.log1p(-not_lower))[1:], 0.0)
    for tag in ("PERIOD", "QUESTION"):
        log_p[:, PUNCT_TAGS.index(tag)] += lam * (next_logit - bias)
    return log_p


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", type=Path, default=ROOT / "models" / "punctuator")
    parser.add_argument("--reference", required=True)
    parser.add_argument("--words", type=int, default=0, help="first N words only (0: all)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.reference.endswith(".jsonl.gz"):  # a validation-split (held-out format) slice
        reference = read_documents(args.reference)
    else:
        reference = read_reference(args.reference)
    if args.words:
        cased = None if reference.cased is None else reference.cased[: args.words]
        reference = Reference(reference.words[: args.words], reference.tags[: args.words], cased)
    model = load_punctuation_model(args.model, "cpu")
    tagging = model.tag(reference.words)
    case = tagging.case_probs
    results: dict[str, Any] = {"shipped": scores(reference, tagging.punct_probs, case)}
    for fraction in (0.5, 0.25):
        p, c = tag_averaged(model, reference.words, fraction)
        results[f"windows averaged, step {fraction:g}"] = scores(reference, p, np.exp(c))
    if case is not None:
        for lam, bias in GRID:
            joint_scores = joint(tagging.punct_probs, case, lam, bias)
            results[f"joint boundary, lambda {lam:g}, b {bias:g}"] = scores(
                reference, joint_scores, case
            )
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, values in results.items():
            print(f"{name:36} " + "  ".join(f"{k} {v:.2f}" for k, v in values.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
