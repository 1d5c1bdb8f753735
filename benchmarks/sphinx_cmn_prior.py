"""The cepstral means PocketSphinx starts from (``dictate.asr.sphinx_engine.CMN_PRIOR``), measured.

    .venv/bin/python benchmarks/sphinx_cmn_prior.py [--manifest M] [--cuts CUTS.pkl]

Every recording of the manifest (default: the real recordings of
benchmarks/real_recordings.py) is cut into segments by the app's segmenter
(benchmarks/second_pass_options.py's ``cut``; ``--cuts`` reuses that script's pickle) and decoded
segment after segment by one PocketSphinx recogniser, as the pipeline feeds it; the cepstral
means it ends with are that recording's. Then, leave one out: each recording is decoded again
starting from PocketSphinx's own default (40,3,-1) and from the mean of the other recordings'
means, and both are scored (benchmarks/asr_wer.py's normalisation). Prints the word error rate
per recording and pooled, and the mean of all the recordings' means: the value to ship.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from asr_wer import CACHE, Errors, align, load_manifest, normalise, pct  # noqa: E402

DEFAULT = "40,3,-1,0,0,0,0,0,0,0,0,0,0"
"""PocketSphinx's own ``cmninit``, padded to the 13 coefficients."""


def decode(segments: list[Any], cmn: str) -> tuple[list[str], np.ndarray]:
    """The words of ``segments`` decoded in order from the means ``cmn``, and the means after."""
    from dictate.asr.sphinx_engine import SphinxRecognizer

    recognizer = SphinxRecognizer()
    recognizer._decoder.set_cmn(cmn)
    words: list[str] = []
    for segment in segments:
        recognizer.start(segment.audio_start)
        audio = segment.audio
        for i in range(0, len(audio), 480):  # 30 ms blocks, as the microphone gives them
            recognizer.accept(audio[i : i + 480])
        words += [w.text for w in recognizer.finish()]
    means = np.array([float(v) for v in recognizer._decoder.get_cmn(False).split(",")])
    return words, means


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--manifest", type=Path, default=CACHE / "real" / "manifest.json")
    parser.add_argument("--cuts", type=Path, help="second_pass_options.py's --cuts pickle")
    args = parser.parse_args(argv)

    _, recordings = load_manifest(args.manifest)
    cuts: dict[str, list[Any]] = {}
    if args.cuts and args.cuts.is_file():
        cuts = pickle.loads(args.cuts.read_bytes())
    if any(r["id"] not in cuts for r in recordings):
        from second_pass_options import cut

        from dictate.asr.loader import load_engine

        engine = load_engine("sphinx")
        for r in recordings:
            cuts.setdefault(r["id"], cut(Path(r["wav"]), engine))
    ended = {r["id"]: decode(cuts[r["id"]], DEFAULT)[1] for r in recordings}
    totals = {"default": Errors(), "leave one out": Errors()}
    print("| recording | from 40,3,-1 | from the others' mean |\n|---|---:|---:|")
    for r in recordings:
        others = np.mean([m for key, m in ended.items() if key != r["id"]], axis=0)
        prior = ",".join(f"{v:.3f}" for v in others)
        reference = normalise(r["text"])
        cells = []
        for name, cmn in (("default", DEFAULT), ("leave one out", prior)):
            errors = align(reference, normalise(" ".join(decode(cuts[r["id"]], cmn)[0])))
            totals[name] = totals[name] + errors
            cells.append(pct(errors.wer))
        print(f"| {r['id']} | {cells[0]} | {cells[1]} |")
    pooled = [pct(totals[name].wer) for name in ("default", "leave one out")]
    print(f"| **pooled** | **{pooled[0]}** | **{pooled[1]}** |")
    shipped = np.mean(list(ended.values()), axis=0)
    print("\nmean of all the recordings' means (CMN_PRIOR):", ",".join(f"{v:.1f}" for v in shipped))
    return 0


if __name__ == "__main__":
    sys.exit(main())
