"""Word error rate of the second pass alone, per Whisper option, on the segments the app's own
segmenter cuts from the benchmark recordings.

    .venv/bin/python benchmarks/second_pass_options.py \\
        --variant default= --variant "beam 5=beam_size=5" --variant "no prompt=prompt=0" \\
        --variant "full window=window=full" --json /tmp/options.json

Every recording of the manifests (default: those of benchmarks/real_recordings.py and
benchmarks/longform_set.py, where built) is cut into segments by the Silero segmenter with the
app's default options, as the pipeline and ``transcribe`` cut it; each variant then decodes the
segments in order as :class:`dictate.segments.SecondPassRefiner` does (the prompt is the last
``prompt`` words it settled, 24 by default; 0: none), and its words are scored against the
reference with benchmarks/asr_wer.py's normalisation and alignment. A segment whose verdict
is not "speech" adds no words (in the app the first pass's words would stand): the verdicts are
counted per variant. The first pass and the punctuator do not run, so a variant's cost is
Whisper's alone: the decode seconds are summed per variant (one run; the machine's load shows).

A variant is ``NAME=KEY=VALUE,KEY=VALUE`` over :class:`dictate.asr.whisper_engine.WhisperOptions`
fields (``beam_size``, ``window``, ``keep_case``, ``threads``, ``model``) and ``prompt``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from asr_wer import DEFAULT_MANIFESTS, Errors, align, load_manifest, normalise, pct  # noqa: E402

from dictate.segments import PROMPT_WORDS, ClosedSegment  # noqa: E402


def cut(path: Path) -> list[ClosedSegment]:
    """The segments the app's segmenter closes in ``path``, each with its whole audio."""
    from dictate.asr.segmenter import SegmentAudio, SegmentEnded, Segmenter, SpeechStarted
    from dictate.audio.capture import FileSource

    segmenter = Segmenter()
    closed: list[ClosedSegment] = []
    pieces: list[np.ndarray] = []
    audio_start = 0.0

    def handle(events: list[Any]) -> None:
        nonlocal pieces, audio_start
        for event in events:
            if isinstance(event, SpeechStarted):
                pieces = []
            elif isinstance(event, SegmentAudio):
                if not pieces:
                    audio_start = event.start
                pieces.append(np.asarray(event.samples, dtype=np.int16))
            elif isinstance(event, SegmentEnded):
                audio = np.concatenate(pieces) if pieces else np.zeros(0, np.int16)
                number = len(closed) + 1
                segment = ClosedSegment(
                    number, event.start, event.end, event.reason, [], audio, audio_start,
                    event.pauses,
                )  # fmt: skip
                closed.append(segment)
                pieces = []

    for block in FileSource(path).blocks():
        handle(segmenter.process(block.samples))
    handle(segmenter.flush())
    return closed


def parse_variant(text: str) -> tuple[str, dict[str, Any]]:
    name, _, spec = text.partition("=")
    fields: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        key, _, value = part.partition("=")
        if key in ("beam_size", "threads", "prompt"):
            fields[key] = int(value)
        elif key == "keep_case":
            fields[key] = value.lower() in ("1", "true", "yes")
        elif key in ("window", "model"):
            fields[key] = value
        else:
            raise SystemExit(f"second_pass_options.py: unknown option {key!r} in {text!r}")
    return name.strip() or "default", fields


def main(argv: list[str] | None = None) -> int:
    from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", action="append", type=Path)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    manifests = args.manifest or [m for m in DEFAULT_MANIFESTS if m.exists()]
    variants = [parse_variant(v) for v in args.variant or ["default="]]
    sets = [load_manifest(m) for m in manifests]
    cuts = {r["id"]: cut(Path(r["wav"])) for _, recordings in sets for r in recordings}
    models: dict[str, WhisperSecondPass] = {}
    rows: list[dict[str, Any]] = []
    for name, fields in variants:
        prompt_words = fields.pop("prompt", PROMPT_WORDS)
        options = replace(WhisperOptions(device="cpu"), **fields)
        key = f"{options.model}/{options.threads}"
        if key not in models:
            models[key] = WhisperSecondPass(options)
        second = models[key]
        second.options = options
        for set_name, recordings in sets:
            pooled, verdicts, seconds, files = Errors(), {}, 0.0, {}
            for recording in recordings:
                context: list[str] = []
                said: list[str] = []
                for segment in cuts[recording["id"]]:
                    began = time.monotonic()
                    prompt = " ".join(context[-prompt_words:]) if prompt_words else ""
                    result = second.decode(segment, prompt)
                    seconds += time.monotonic() - began
                    verdicts[result.verdict] = verdicts.get(result.verdict, 0) + 1
                    if result.verdict == "speech":
                        words = [w.text for w in result.words]
                        said += words
                        context = (context + words)[-max(prompt_words, 1) :]
                errors = align(normalise(recording["text"]), normalise(" ".join(said)))
                files[recording["id"]] = round(errors.wer, 4)
                pooled = pooled + errors
            rows.append({
                "variant": name, "set": set_name, "wer": pooled.wer, "ref_words": pooled.ref_words,
                "sub": pooled.sub, "dele": pooled.dele, "ins": pooled.ins,
                "decode_s": round(seconds, 1), "verdicts": verdicts, "files": files,
                "segments": sum(len(cuts[r["id"]]) for r in recordings),
            })  # fmt: skip
            print(
                f"{name:>14} {set_name:>9}: WER {pct(pooled.wer)} ({pooled.ref_words} words; "
                f"S{pooled.sub} D{pooled.dele} I{pooled.ins}), decode {seconds:.0f} s, "
                f"verdicts {verdicts}",
                flush=True,
            )
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
