"""What a running :class:`~dictate.run.pipeline.Pipeline` takes between two segments when the
user changes recogniser or Whisper model during a run (:meth:`Pipeline.switch_to`): loaded
beside the run, it replaces the parts that change; the source, the text stage and the words
pending stay, so nothing said is lost and no sentence is closed by the switch. The parts
given up are freed; ``done`` is called once the refiners took over."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dictate.seam.segment import Refiner


@dataclass
class Switch:
    """The parts to switch to."""

    engine: Any
    """The recogniser's engine (:class:`~dictate.asr.engine.Engine`)."""
    refiners: list[Refiner]
    """The refiners (the second pass, the vocabulary, the command check) for the segments
    that close after the switch."""
    recognizer: Any = None
    """A new streaming recogniser of ``engine`` for the segments that open after it; None:
    the one the pipeline has (the engine did not change)."""
    done: Callable[[], None] | None = None
    """Called on the refining thread once the refiners took over."""
