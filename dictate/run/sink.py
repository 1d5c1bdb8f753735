"""A closed segment's life after the cutter, in one place for every run: settled through the
refiners, its :class:`~dictate.events.Segment` event, its words through the text stage, commits
on a pause and the end of the run.

The live :class:`~dictate.run.pipeline.Pipeline` calls :meth:`Sink.settle` on its refining
thread and the rest on its punctuation thread; :func:`~dictate.run.file_decode.decode_file`
calls them all on its own thread, in the same order; recovery of kept audio runs a pipeline.
:func:`~dictate.run.assembly.build_sink` is what makes one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from dictate.editing.text import separator
from dictate.errors import close_quietly, log_failure
from dictate.events import Event, Finalized
from dictate.seam.segment import ClosedSegment, Refiner, Settled, prepare_early, settle
from dictate.text.stage import TextStage

log = logging.getLogger("dictate.run")


def starts_early(refiners: Sequence[Refiner]) -> bool:
    """Whether one of ``refiners`` can start on a segment before it closes (the second pass)."""
    return any(callable(getattr(r, "prepare", None)) for r in refiners)


def previews(refiners: Sequence[Refiner]) -> bool:
    """Whether one of ``refiners`` can preview an open segment's words (the second pass)."""
    return any(callable(getattr(r, "preview", None)) for r in refiners)


class Sink:
    """Settles closed segments in order and writes their words.

    Args:
        refiners: What settles a closed segment's words, in order (the second pass, the
            vocabulary, the command check: :func:`~dictate.run.assembly.refiner_chain`).
        text: The text stage the settled words go through.
        on_event: Receives every event; one that raises is logged, never stops the run.
    """

    def __init__(
        self, refiners: Sequence[Refiner], text: TextStage, on_event: Callable[[Event], None]
    ) -> None:
        self.refiners: list[Refiner] = list(refiners)
        self.text = text
        self.on_event = on_event
        self.now: Callable[[], float] = lambda: 0.0
        self.written = 0
        """The last segment whose words went through the text stage."""
        text.emit = self.emit

    @property
    def can_start_early(self) -> bool:
        """Whether a refiner can start on a segment before it closes (the second pass)."""
        return starts_early(self.refiners)

    @property
    def can_preview(self) -> bool:
        """Whether a refiner can preview an open segment's words (the second pass)."""
        return previews(self.refiners)

    def preview_seconds(self, seconds: float) -> float:
        """What a preview of ``seconds`` of audio costs, in seconds of audio decoded: the
        previewing refiner's window (Whisper's is at least 10 s), else ``seconds``."""
        for refiner in self.refiners:
            window = getattr(refiner, "preview_seconds", None)
            if callable(window):
                return float(window(seconds))
        return seconds

    def preview(self, segment: ClosedSegment) -> list[str] | None:
        """The words the first refiner that can preview (the second pass) hears in the open
        ``segment`` so far; None where none can, it heard nothing sure, or it failed (a
        preview is display only: a failure is logged and costs nothing else)."""
        for refiner in self.refiners:
            preview = getattr(refiner, "preview", None)
            if callable(preview):
                try:
                    return preview(segment)
                except Exception:
                    log.exception("%s could not preview segment %d", refiner.name,
                                  segment.number)  # fmt: skip
                    return None
        return None

    def start(self, now: Callable[[], float]) -> None:
        """A run begins; ``now`` is its clock (event times)."""
        self.now = self.text.now = now
        self.written = 0
        for refiner in self.refiners:
            refiner.reset()

    def emit(self, event: Event) -> None:
        try:
            self.on_event(event)
        except Exception:  # a broken listener must not kill the run
            log_failure(log, "event listener failed on %s", type(event).__name__)

    def early(self, segment: ClosedSegment) -> list[str] | None:
        """Let the refiners that can start on the open ``segment`` (its speaker paused): the
        words the second pass heard in it, if it did (:func:`prepare_early`)."""
        return prepare_early(segment, self.refiners)

    def settle(self, segment: ClosedSegment, shown: list[str] | None = None) -> Settled:
        """``segment``'s words through the refiners, and its Segment event (``shown``: the
        live words they replace)."""
        try:
            settled = settle(segment, self.refiners)
        except Exception:  # settle keeps words; this is a bug: the first pass's words
            log.exception("settling segment %d failed", segment.number)
            settled = settle(segment, [])
        self.emit(settled.event(self.now(), shown))
        return settled

    def write(self, settled: Settled) -> None:
        """A settled segment's words through the text stage."""
        segment = settled.segment
        self.written = segment.number
        self.text.segment(segment.number, settled.words, segment.pauses, settled.rewrites)

    def commit(self) -> None:
        """The speaker paused for the commit time: finalize what is pending."""
        self.text.commit(self.written)

    def finish(self, last: int) -> None:
        """The run ends (``last``: its last segment): flush the punctuator."""
        self.text.finish(last)

    def may_be_command(self, segment: Any) -> bool:
        """Whether closed ``segment`` (with the first pass's words) may be a command the check
        decides: until it is settled, :data:`dictate.events.COMMAND_MARK` is shown in place of
        its words."""
        from dictate.seam.command_refiner import CommandRefiner

        return any(isinstance(r, CommandRefiner) and r.shows_mark(segment) for r in self.refiners)

    def command_decoder(self) -> Any:
        """The command check's decoder (None: none), for tests and benchmarks."""
        from dictate.seam.command_refiner import CommandRefiner

        for refiner in self.refiners:
            if isinstance(refiner, CommandRefiner):
                return refiner.decoder
        return None

    def close(self) -> None:
        """Free what the refiners hold (a command decoder's process; a model is its owner's)."""
        for refiner in self.refiners:
            close_quietly(refiner, log, refiner.name)


def final_text(events: list[Event]) -> str:
    """The dictated text of a finished run: its finalized sentences joined (a mark appended
    after words a pause committed joins them without a space)."""
    text = ""
    for event in events:
        if isinstance(event, Finalized) and event.text:
            text += (separator(event.text) if text else "") + event.text
    return text
