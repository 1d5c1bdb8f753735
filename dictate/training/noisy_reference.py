"""Write a recogniser-like copy of an IWSLT reference (``word<TAB>TAG`` lines), made by the
training noise process, as validation for the noise rate (``dev2012`` in, never a test set)::

    python -m dictate.training.noisy_reference --rate 0.15 ../shared/data/iwslt/dev2012.tsv \
        dev2012_noisy15.tsv [--talks ../shared/data/ted/talks.jsonl.gz] [--seed 7]

``dictate eval punctuation dev2012_noisy15.tsv`` then scores a model on it.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dictate.evaluation.readers import read_reference
from dictate.training.data import AsrNoise, noise_vocabulary, noisy_reference


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m dictate.training.noisy_reference", description=__doc__.splitlines()[0]
    )
    parser.add_argument("reference", type=Path, help="IWSLT TSV reference (dev2012.tsv)")
    parser.add_argument("out", type=Path, help="where to write the noisy TSV")
    parser.add_argument("--rate", type=float, default=0.15, help="share of words given an error")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--talks",
        type=Path,
        default=Path("../shared/data/ted/talks.jsonl.gz"),
        help="TED talks file the substituted and inserted words are drawn from",
    )
    args = parser.parse_args(argv)
    if "test" in args.reference.name:
        parser.error(f"{args.reference} looks like a test set; build validation from dev2012")
    for path in (args.reference, args.talks):
        if not path.is_file():
            parser.error(f"{path} does not exist")
    try:
        noise = AsrNoise(rate=args.rate)
    except ValueError as exc:
        parser.error(str(exc))
    reference = read_reference(args.reference)
    words, tags = noisy_reference(
        reference.words, reference.tags, noise, args.seed, noise_vocabulary(args.talks)
    )
    args.out.write_text("".join(f"{w}\t{t}\n" for w, t in zip(words, tags, strict=True)))
    print(f"{args.out}: {len(words):,} words ({len(reference.words):,} in the reference)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
