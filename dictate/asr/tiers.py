"""Whisper tiers: the second pass "auto" chooses, per machine and by measurement, among the
Whisper models installed (issue 55).

* **Files** (``dictate transcribe FILE``, File > Transcribe audio file) use the most accurate
  installed tier (:data:`ACCURACY`): nobody waits on each phrase there.
* **Live dictation** uses the most accurate tier whose settled words came within
  :data:`DEADLINE_S` of the end of speech (their 95th percentile) when the machine decoded
  the bundled clip (``assets/calibration_en.flac``, 44.5 s of real people: five LibriVox
  phrases of 2.6 to 6.6 s, four short ones said apart) with it, as a person would: the
  window (offscreen) dictating the clip at the speed it was said, each phrase timed from the
  end of its speech to the words in the window
  (:func:`dictate.bench.tier_measure.measure_tier`, about 47 s a tier). The least accurate
  tier is not measured: it is used where no other keeps up. Nothing is guessed from a
  model's size.
* **Once, then kept** (:func:`load_choice`): in the user's cache, for this machine's cores and
  the tiers installed; installing or removing a tier, or another machine, measures again.
  ``dictate models tiers --calibrate`` measures now; the window measures in the background, in
  a process of its own, while it is idle (:mod:`dictate.ui.tier_calibration`).
* **A machine that gets busier** falls back by the same rule (:func:`observe_run`): a live run
  whose settled words came later than the deadline (95th percentile of at least
  :data:`MIN_PHRASES` phrases) steps the live tier down one, until it is measured again.
* With tiny.en alone installed (the default install) nothing is measured and nothing changes.

The user overrides all of it by naming a model (Settings > Final words, ``--second-pass``).
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

log = logging.getLogger("dictate.asr.tiers")

DEADLINE_S = 1.5
"""The live deadline: a phrase's settled words at most this long after its speech ended (the
95th percentile)."""
MIN_PHRASES = 5
"""Phrases a live run must have for its settled times to step the tier down."""
ACCURACY: tuple[str, ...] = (
    "tiny",
    "tiny.en",
    "base",
    "base.en",
    "small",
    "distil-small.en",
    "small.en",
    "distil-medium.en",
    "medium.en",
    "distil-large-v3",
    "large-v3-turbo",
)
"""The catalogue's models, least accurate on English first: the English-only model of a size
before the multilingual one (Radford et al. 2022, and measured here for base: 7.7% against
tiny.en's 8.6% on the real recordings, docs/second-pass.md), a distilled model below the one it
was distilled from."""
DEFAULT = "tiny.en"
STATE_FILE = "whisper-tiers.json"


@dataclass(frozen=True)
class TierTiming:
    """How one tier kept up with the clip, seconds after each phrase's speech ended."""

    name: str
    settled_p50: float
    settled_p95: float
    phrases: int
    took_s: float
    """How long the measurement took (the window's start and load included)."""
    peak_rss_mb: float = 0.0
    """The window's peak memory with this tier (MiB)."""


@dataclass
class TierChoice:
    """What "auto" uses on this machine, and why."""

    live: str
    files: str
    why: str
    timings: dict[str, TierTiming] = field(default_factory=dict)
    signature: str = ""
    measured: str = ""
    """When (ISO date and time); "" for a choice that needed no measurement."""
    stepped_down: bool = False
    """A live run was too slow since (:func:`observe_run`): measured again at the next chance."""

    def describe(self) -> str:
        """Two lines for ``dictate models`` and the settings."""
        return f"live dictation: Whisper {self.live} ({self.why})\nfiles: Whisper {self.files}"


def installed_tiers() -> list[str]:
    """The catalogue models installed (the bundled tiny.en included), least accurate first."""
    from dictate.store.whisper_models import installed_whisper_models

    names = {model.name for model in installed_whisper_models()}
    return [name for name in ACCURACY if name in names]


def signature(tiers: Sequence[str]) -> str:
    """What a measurement holds for: this machine's cores and the tiers installed."""
    return f"{os.cpu_count()} cores; tiers {', '.join(tiers)}"


def files_tier(tiers: Sequence[str] | None = None) -> str:
    """The tier for files: the most accurate installed."""
    tiers = installed_tiers() if tiers is None else tiers
    return tiers[-1] if tiers else DEFAULT


def choose(timings: dict[str, TierTiming], tiers: Sequence[str]) -> TierChoice:
    """The live tier from ``timings``: the most accurate that met :data:`DEADLINE_S`, else
    the least accurate installed (the floor: one has to be used, measured or not)."""
    measured = [name for name in tiers if name in timings]
    met = [name for name in measured if timings[name].settled_p95 <= DEADLINE_S]
    live = met[-1] if met else (tiers[0] if tiers else DEFAULT)
    slower = [n for n in measured if ACCURACY.index(n) > ACCURACY.index(live)]
    late = ", ".join(f"{n} {timings[n].settled_p95:.2f} s" for n in slower)
    if met:
        why = f"settled words {timings[live].settled_p95:.2f} s after speech (p95)"
        why += f"; over {DEADLINE_S:g} s: {late}" if late else ""
    else:
        why = f"the smallest: over {DEADLINE_S:g} s here: {late}" if late else "the smallest"
    return TierChoice(live, files_tier(tiers), why, dict(timings), signature(tiers))


def state_path() -> Path:
    from dictate.paths import user_cache_dir

    return user_cache_dir() / STATE_FILE


def save_choice(choice: TierChoice, path: Path | None = None) -> None:
    path = path or state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_text(json.dumps(asdict(choice), indent=1), encoding="utf-8")
    os.replace(part, path)


def load_choice(tiers: Sequence[str] | None = None, path: Path | None = None) -> TierChoice | None:
    """The stored choice if it holds for this machine and ``tiers`` (else None)."""
    tiers = installed_tiers() if tiers is None else tiers
    try:
        data = json.loads((path or state_path()).read_text(encoding="utf-8"))
        data["timings"] = {k: TierTiming(**v) for k, v in data.get("timings", {}).items()}
        choice = TierChoice(**data)
    except (OSError, ValueError, TypeError, AttributeError):
        return None
    if choice.signature != signature(tiers) or choice.live not in tiers:
        return None
    return choice


def current_choice(tiers: Sequence[str] | None = None) -> TierChoice | None:
    """What "auto" uses now: the stored choice; with one tier, that tier; None where more are
    installed and they were not measured yet (tiny.en is used meanwhile)."""
    tiers = installed_tiers() if tiers is None else tiers
    if len(tiers) <= 1:
        only = tiers[0] if tiers else DEFAULT
        return TierChoice(only, only, "the only Whisper model installed", {}, signature(tiers))
    return load_choice(tiers)


def needs_calibration(tiers: Sequence[str] | None = None) -> bool:
    """Whether more than one tier is installed and the live one is not measured for them, or
    was stepped down since it was."""
    tiers = installed_tiers() if tiers is None else tiers
    choice = current_choice(tiers)
    return choice is None or choice.stepped_down


def auto_model(use: str) -> str:
    """The model "auto" means for ``use``: "live" or "files"."""
    tiers = installed_tiers()
    if use == "files":
        return files_tier(tiers)
    choice = current_choice(tiers)
    return choice.live if choice is not None else (DEFAULT if DEFAULT in tiers else files_tier())


def calibrate(
    measure: Callable[[str], TierTiming],
    tiers: Sequence[str] | None = None,
    say: Callable[[str], None] | None = None,
) -> TierChoice:
    """Measure the installed tiers with ``measure``
    (:func:`dictate.bench.tier_measure.measure_tier`), the most accurate first, until one keeps
    up; the least accurate is not measured (the floor, used where none keeps up). Choose, store
    and return."""
    tiers = installed_tiers() if tiers is None else list(tiers)
    timings = {}
    for name in reversed(tiers[1:]):  # the most accurate first; the first in time ends it
        if say is not None:
            say(f"measuring Whisper {name} on the calibration clip")
        timings[name] = measure(name)
        log.info("tier %s: %s", name, timings[name])
        if timings[name].settled_p95 <= DEADLINE_S:
            break
    choice = choose(timings, tiers)
    choice.measured = time.strftime("%Y-%m-%d %H:%M")
    save_choice(choice)
    return choice


def p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def observe_run(tier: str, settled: Sequence[float], path: Path | None = None) -> str | None:
    """After a live run with ``tier`` chosen by "auto": where its settled words came later
    than :data:`DEADLINE_S` (p95 of at least :data:`MIN_PHRASES` phrases), the live tier
    steps down one until measured again; what to tell the user, else None."""
    if len(settled) < MIN_PHRASES:
        return None
    late = p95(settled)
    tiers = installed_tiers()
    if late <= DEADLINE_S or tier not in tiers or tiers.index(tier) == 0:
        return None
    choice = current_choice(tiers) or choose({}, tiers)
    lower = tiers[tiers.index(tier) - 1]
    choice.live, choice.stepped_down = lower, True
    choice.why = (
        f"{tier}'s settled words came {late:.2f} s after speech (p95 of {len(settled)} "
        f"phrases) in a dictation on {time.strftime('%Y-%m-%d')}, over {DEADLINE_S:g} s"
    )
    save_choice(choice, path)
    log.info("live tier stepped down to %s: %s", lower, choice.why)
    return f"Whisper {lower} is used for dictation from now on: {choice.why}."
