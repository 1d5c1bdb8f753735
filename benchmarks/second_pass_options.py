"""Word error rate of the second pass alone, per Whisper option, on the segments the app's own
segmenter cuts from the benchmark recordings.

    .venv/bin/python benchmarks/second_pass_options.py \\
        --variant default= --variant "beam 5=beam_size=5" --variant "no prompt=prompt=0" \\
        --variant "full window=window=full" --json /tmp/options.json

Every recording of the manifests (default: those of benchmarks/real_recordings.py and
benchmarks/longform_set.py, where built) is cut into segments by the Silero segmenter with the
app's default options, as the pipeline and ``transcribe`` cut it; each variant then decodes the
segments in order as :class:`dictate.seam.second_pass.SecondPassRefiner` does (the prompt is the
last ``prompt`` words it settled; none by default, as in the app), and its words are scored
against the reference with benchmarks/asr_wer.py's normalisation and alignment. The first pass
(PocketSphinx, or ``--engine``) hears each segment as the pipeline feeds it; a segment whose
verdict keeps the
first pass's words gets them, under each policy of :data:`POLICIES` (the app's, and one that
also trusts Whisper's "unsure" decodes); the verdicts are counted per variant. The decode
seconds are Whisper's alone, summed per variant (one run; the machine's load shows).

A variant is ``NAME=KEY=VALUE,KEY=VALUE`` over :class:`dictate.asr.whisper_engine.WhisperOptions`
fields (``beam_size``, ``again_beam``, ``greedy_below_s``, ``window``, ``window_margin_s``,
``keep_case``, ``threads``,
``model``), ``prompt`` (words; 0: none) and ``prompt_raw`` (1: the prompt is Whisper's
text as written, with its marks and capitals, not the settled words).
The punctuator does not run (word errors ignore punctuation and case).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import pickle
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

from dictate.seam.second_pass import PROMPT_WORDS  # noqa: E402
from dictate.seam.segment import ClosedSegment  # noqa: E402


def cut(path: Path, engine: Any) -> list[ClosedSegment]:
    """The segments the app's segmenter closes in ``path``, each with its whole audio and the
    words ``engine`` (the first pass) heard in it, as the pipeline feeds it."""
    from dictate.asr.segmenter import SegmentAudio, SegmentEnded, Segmenter, SpeechStarted
    from dictate.audio.capture import FileSource

    segmenter = Segmenter()
    recognizer = engine.recognizer()
    closed: list[ClosedSegment] = []
    pieces: list[np.ndarray] = []
    audio_start = 0.0

    def handle(events: list[Any]) -> None:
        nonlocal pieces, audio_start
        for event in events:
            if isinstance(event, SpeechStarted):
                pieces = []
                recognizer.start(event.time)
            elif isinstance(event, SegmentAudio):
                if not pieces:
                    audio_start = event.start
                pieces.append(np.asarray(event.samples, dtype=np.int16))
                recognizer.accept(event.samples)
            elif isinstance(event, SegmentEnded):
                audio = np.concatenate(pieces) if pieces else np.zeros(0, np.int16)
                number = len(closed) + 1
                segment = ClosedSegment(
                    number, event.start, event.end, event.reason, recognizer.finish(), audio,
                    audio_start,
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
        if key in ("beam_size", "again_beam", "threads", "prompt", "prompt_raw"):
            fields[key] = int(value)
        elif key in ("window_margin_s", "greedy_below_s"):
            fields[key] = float(value)
        elif key == "keep_case":
            fields[key] = value.lower() in ("1", "true", "yes")
        elif key in ("window", "model"):
            fields[key] = value
        else:
            raise SystemExit(f"second_pass_options.py: unknown option {key!r} in {text!r}")
    return name.strip() or "default", fields


def _cut_with(wav: str, engine_name: str | None) -> list[ClosedSegment]:
    from dictate.asr.loader import load_engine

    return cut(Path(wav), load_engine(engine_name))


POLICIES = {
    "app": ("speech",),
    "trust unsure": ("speech", "unsure"),
}
"""Which verdicts put Whisper's words in the text; the others keep the first pass's words
("no_speech" writes none). "app" is what
:class:`dictate.seam.second_pass.SecondPassRefiner` does."""


def main(argv: list[str] | None = None) -> int:
    from dictate.asr.loader import load_engine
    from dictate.asr.whisper_engine import WhisperOptions, WhisperSecondPass

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--manifest", action="append", type=Path)
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--engine", default=None, help="first pass (default: as transcribe)")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--jobs", type=int, default=2, help="processes cutting the recordings")
    parser.add_argument(
        "--cuts", type=Path, help="keep the segments and first-pass words here, to reuse"
    )
    args = parser.parse_args(argv)
    manifests = args.manifest or [m for m in DEFAULT_MANIFESTS if m.exists()]
    variants = [parse_variant(v) for v in args.variant or ["default="]]
    sets = [load_manifest(m) for m in manifests]
    engine = load_engine(args.engine)
    cuts: dict[str, list[ClosedSegment]] = {}
    if args.cuts is not None and args.cuts.exists():
        cuts = pickle.loads(args.cuts.read_bytes())
    todo = [r for _, recordings in sets for r in recordings if r["id"] not in cuts]
    with multiprocessing.Pool(args.jobs) as pool:  # the first pass is the slow part here
        done = pool.starmap(_cut_with, [(r["wav"], args.engine) for r in todo])
    cuts.update({r["id"]: segments for r, segments in zip(todo, done, strict=True)})
    if args.cuts is not None:
        args.cuts.write_bytes(pickle.dumps(cuts))
    rows: list[dict[str, Any]] = []

    def report(name: str, set_name: str, pooled: Errors, extra: dict[str, Any]) -> None:
        rows.append({"variant": name, "set": set_name, "wer": pooled.wer,
                     "ref_words": pooled.ref_words, "sub": pooled.sub, "dele": pooled.dele,
                     "ins": pooled.ins, **extra})  # fmt: skip
        print(
            f"{name:>28} {set_name:>9}: WER {pct(pooled.wer)} ({pooled.ref_words} words; "
            f"S{pooled.sub} D{pooled.dele} I{pooled.ins}) {extra.get('summary', '')}",
            flush=True,
        )

    for set_name, recordings in sets:
        pooled = Errors()
        for recording in recordings:
            heard = [w.text for seg in cuts[recording["id"]] for w in seg.words]
            pooled = pooled + align(normalise(recording["text"]), normalise(" ".join(heard)))
        report(f"first pass ({engine.label})", set_name, pooled, {})
    models: dict[str, WhisperSecondPass] = {}
    for name, fields in variants:
        prompt_words = fields.pop("prompt", PROMPT_WORDS)
        prompt_raw = bool(fields.pop("prompt_raw", 0))  # Whisper's text, marks and capitals
        options = replace(WhisperOptions(device="cpu"), **fields)
        key = f"{options.model}/{options.threads}"
        if key not in models:
            models[key] = WhisperSecondPass(options)
        second = models[key]
        second.options = options
        for set_name, recordings in sets:
            pooled_by = {policy: Errors() for policy in POLICIES}
            verdicts: dict[str, int] = {}
            retried = 0  # sized decodes doubted and made again in the 30 s window
            seconds = 0.0
            for recording in recordings:
                context: list[str] = []
                said: dict[str, list[str]] = {policy: [] for policy in POLICIES}
                for segment in cuts[recording["id"]]:
                    began = time.monotonic()
                    prompt = " ".join(context[-prompt_words:]) if prompt_words else ""
                    result = second.decode(segment, prompt)
                    seconds += time.monotonic() - began
                    verdicts[result.verdict] = verdicts.get(result.verdict, 0) + 1
                    retried += len(result.windows) > 1
                    words = [w.text for w in result.words]
                    for policy, trusted in POLICIES.items():
                        if result.verdict in trusted:
                            said[policy] += words
                        elif result.verdict != "no_speech":
                            said[policy] += [w.text for w in segment.words]
                    if result.verdict == "speech":  # the prompt is what the app settled
                        said_now = result.text.split() if prompt_raw else words
                        context = (context + said_now)[-max(prompt_words, 1) :]
                reference = normalise(recording["text"])
                for policy in POLICIES:
                    errors = align(reference, normalise(" ".join(said[policy])))
                    pooled_by[policy] = pooled_by[policy] + errors
            for policy, pooled in pooled_by.items():
                report(
                    f"{name} [{policy}]",
                    set_name,
                    pooled,
                    {"decode_s": round(seconds, 1), "verdicts": verdicts, "retried": retried,
                     "summary": f"decode {seconds:.0f} s, verdicts {verdicts}, "
                                f"{retried} decoded again in 30 s"},
                )  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps({"rows": rows}, indent=2), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
