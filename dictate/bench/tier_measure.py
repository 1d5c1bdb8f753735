"""One Whisper tier measured as a person dictating with it would see it (:mod:`dictate.asr.tiers`):
``dictate bench gui CLIP --second-pass NAME --runs 1 --cpu --json`` in a process of its own, the
window (offscreen) dictating the bundled clip at the speed it was said, each phrase's settled
words timed from the end of its speech to the window's thread having them, and the window's
peak memory. A process per tier, so that one tier's memory is not counted in the next's.

That window is the user's (their first pass, their Whisper model, as folders) but not their
data: its settings, history, kept audio and log go to a temporary folder (the XDG folders), so
the clip's sentences never reach the user's history. The cache is theirs (the int8 copies of
the models are made once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from dictate.asr.tiers import TierTiming
from dictate.errors import DictateError

CLIP = "calibration_en.flac"
"""Real people, 44.5 s: five LibriVox utterances of 2.6 to 6.6 s, then four short phrases said
apart (assets/README.md)."""
TIMEOUT_S = 300.0


def first_pass_args() -> list[str]:
    """``--engine`` (and ``--model``) for the first pass the user's window dictates with."""
    from dictate.asr.registry import VOSK, default_first_pass
    from dictate.config import load_settings
    from dictate.store.resolve import resolve_vosk_model

    settings = load_settings()
    engine = settings.engine or default_first_pass(settings.first_pass_model)
    if engine != VOSK.name:
        return ["--engine", engine]
    model = resolve_vosk_model(settings.first_pass_model)
    return ["--engine", engine, *(["--model", str(model)] if model is not None else [])]


def measure_tier(name: str, clip: Path | None = None) -> TierTiming:
    """Whisper ``name`` in the window on ``clip`` (the bundled one by default)."""
    from dictate.paths import asset_path
    from dictate.store.whisper_models import resolve_whisper_model

    clip = clip or asset_path(CLIP)
    command = [sys.executable, "-m", "dictate", "bench", "gui", str(clip), *first_pass_args(),
               "--second-pass", str(resolve_whisper_model(name)), "--runs", "1", "--cpu",
               "--json"]  # fmt: skip
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="dictate-tiers-") as home:
        # Offscreen whatever the user's session names (QT_QPA_PLATFORM=xcb or wayland is
        # common): else a second window appeared beside theirs, dictating the clip.
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
        for kind in ("DATA", "CONFIG", "STATE"):
            env[f"XDG_{kind}_HOME"] = str(Path(home) / kind.lower())
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S,
                                  stdin=subprocess.DEVNULL, env=env)  # fmt: skip
        except (OSError, subprocess.SubprocessError) as exc:
            raise DictateError(f"measuring Whisper {name} failed: {exc}") from exc
    took = time.monotonic() - began
    try:
        result = json.loads(done.stdout)
        run = result["runs"][0]
        settled = list(run["settled_s"])
    except (ValueError, KeyError, IndexError, TypeError):
        said = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
        raise DictateError(f"measuring Whisper {name} failed: {said}") from None
    if not settled:
        raise DictateError(f"Whisper {name} wrote nothing for the calibration clip")
    return TierTiming(
        name,
        round(float(run["settled_p50_s"]), 3),
        round(float(run["settled_p95_s"]), 3),
        len(settled),
        round(took, 1),
        round(float(result["peak_rss_mb"]), 1),
    )
