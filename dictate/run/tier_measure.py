"""One Whisper tier measured as the window dictates with it (:mod:`dictate.asr.tiers`): the live
pipeline with the model, fed the bundled clip at the speed it was said."""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from dictate.asr.tiers import TierTiming, p95
from dictate.errors import DictateError

CLIP = "calibration_en.flac"
"""J. F. Kennedy's "ask not" (11 s, four phrases; assets/README.md)."""


def measure_tier(name: str, clip: Path | None = None) -> TierTiming:
    """The live pipeline with Whisper ``name`` fed the calibration clip at the speed it was
    said, as the window is by a microphone: the settled words' times after each phrase's
    speech ended."""
    from dictate.asr.loader import load_engine, load_second_pass
    from dictate.asr.process_engine import out_of_process
    from dictate.audio.capture import FileSource
    from dictate.events import Segment
    from dictate.paths import asset_path
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import build_pipeline

    engine = out_of_process(load_engine())
    began = time.monotonic()
    second = load_second_pass(name, engine, required=True)
    load_s = time.monotonic() - began
    settled: list[float] = []

    def on_event(event: Any) -> None:
        if isinstance(event, Segment) and event.words:
            settled.append(event.time - event.end)

    pipeline = None
    try:
        pipeline = build_pipeline(engine, load_punctuation_model(), on_event, None, None, second,
                                  live=True, commit_after=None).pipeline  # fmt: skip
        pipeline.run(FileSource(clip or asset_path(CLIP), realtime=True))
    finally:
        # the pipeline closes its recogniser's and command decoder's processes and the refiners
        for thing in (pipeline, second, engine):
            close = getattr(thing, "close", None)
            if callable(close):
                close()
    if not settled:
        raise DictateError(f"Whisper {name} wrote nothing for the calibration clip")
    return TierTiming(
        name,
        round(statistics.median(settled), 3),
        round(p95(settled), 3),
        len(settled),
        round(load_s, 2),
    )
