"""The pipeline's events: what the recogniser and the punctuator report, in order, with times.

Plain frozen dataclasses with no behaviour beyond :meth:`Event.to_json`, shared by the pipeline
(which emits them), the window, the command line's ``--json`` output and the tests.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from dictate.asr.engine import Word


@dataclass(frozen=True)
class Event:
    """Base of all pipeline events; ``time`` is seconds since :meth:`Pipeline.start`."""

    time: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict with the event's kind under "event"."""
        return {"event": type(self).__name__.lower(), **asdict(self)}


@dataclass(frozen=True)
class Level(Event):
    """Input level of the last ~100 ms, for a meter."""

    dbfs: float


@dataclass(frozen=True)
class SpeechStart(Event):
    """The VAD heard speech begin (source time ``at``)."""

    segment: int
    at: float


@dataclass(frozen=True)
class Partial(Event):
    """The live, unpunctuated words of the segment being spoken (replace the previous ones)."""

    segment: int
    words: list[str]
    """The words of the closed segments not settled yet, then the open one's; a closed segment
    that may be a command shows as :data:`COMMAND_MARK` until it is settled."""


COMMAND_MARK = "\u2026"
"""What the live words show in place of a closed segment's words while it is decided: a short
segment said apart may be a command, which writes no words."""


@dataclass(frozen=True)
class Live(Event):
    """The words being spoken (segment ``segment``, still open) punctuated together with the
    pending words: show ``pending`` and ``partial`` in place of the last :class:`Pending` text
    and :class:`Partial` words until the next of either. Nothing here is final."""

    segment: int
    pending: str
    partial: str
    words: list[str] | None = None
    """The partial words as recognised that ``partial`` punctuates."""


@dataclass(frozen=True)
class Segment(Event):
    """A segment's words are settled (:mod:`dictate.seam.segment`): its final words with source
    times, as the text stage gets them."""

    segment: int
    start: float
    end: float
    reason: str
    words: list[Word]
    pauses: list[list[float]] | None = None
    """Silences inside the segment, [start, end] each (where voice commands can be)."""
    alternatives: list[list[str]] | None = None
    """What else the recogniser heard for the segment (its n-best hypotheses after the best,
    as words), for "correct that"; None when it gives none."""
    first_pass: list[Word] | None = None
    """The streaming recogniser's words where a refiner replaced them (the second pass, a
    command heard): what was recognised first, beside what was settled; None: the same."""
    settled_by: str = ""
    """The refiner whose words ``words`` are ("whisper", "commands"; "": the first pass)."""
    closed: float = 0.0
    """Event time at which the segmenter closed the segment (``time`` is when its words were
    settled): the latency of its final words counts from here."""
    rewrites: list[list[str]] | None = None
    """The user's vocabulary's rewrites in ``words``, in order: [the entry as written, the
    words it replaced] each (what was recognised: undo and the history keep it); None: none."""
    shown: list[str] | None = None
    """The live words shown (greyed) for the segment until these replaced them: the first
    pass's, or a preview's and then the first pass's newer ones; None where not shown live."""


@dataclass(frozen=True)
class Pending(Event):
    """The words not yet finalized, as currently punctuated, through segment ``segment``.

    Replaces the previous pending text; partial words of segments up to ``segment`` are now in it.
    """

    segment: int
    text: str
    spoken: str | None = None
    """The same words before written forms and replacements ("twenty five dollars" where
    ``text`` says "$25"); None when they are the same."""


@dataclass(frozen=True)
class Finalized(Event):
    """Sentences that are final: append them; they never change."""

    segment: int
    sentences: list[str]
    punctuated: bool = True
    pending: str | None = None
    """The pending words once these sentences are taken out (the :class:`Pending` event that
    follows says the same): the window journals both in one record, so a crash between the two
    events can never repeat words. None if not known."""
    spoken: list[str] | None = None
    """The sentences before written forms and replacements; None when they are the same."""
    continues: bool = False
    """The first sentence goes on with the text finalized before it, which a pause committed
    open (no sentence end): join it as the same sentence, keeping its first word's case (a
    text that begins with a mark, "," or ".", is that mark said after the pause: attach it)."""
    committed: bool = False
    """Finalized because the speaker paused for the commit time (not because the next
    sentence began, nor at Stop); the last sentence may be open."""
    rewrites: list[list[list[str]]] | None = None
    """Per sentence, the user's vocabulary's rewrites in it, in order: [the entry as written,
    the words it replaced] each (:attr:`Segment.rewrites`, followed to the sentence that holds
    them); None: no sentence holds one."""
    heard: list[str] | None = None
    """Each sentence as recognised, with the words heard in place of its rewrites (what the
    history and the kept audio's links keep beside the text); None: as ``sentences``."""

    @property
    def text(self) -> str:
        return " ".join(self.sentences)


@dataclass(frozen=True)
class Command(Event):
    """A voice command the user said (see :mod:`dictate.commands.table`), to carry out in order.

    Spoken punctuation and "cap" never appear here: the punctuator applies them. The pipeline
    has already done its part: for "new_line"/"new_paragraph" the pending sentence is
    finalized (a :class:`Finalized` event came first); for "scratch" the punctuator dropped its
    pending words (``target`` "pending") or had none (``target`` "sentence": remove the last
    dictated sentence); "stop" stops the pipeline.
    """

    segment: int
    kind: str
    """A :class:`dictate.commands.table.CommandKind` (equal to its string: "new_line",
    "new_paragraph", "scratch", "undo" or "stop", as ``--json`` prints it)."""
    spoken: str
    target: str = ""


@dataclass(frozen=True)
class Error(Event):
    """Something failed; ``fatal`` errors end the run (after flushing what was recognised)."""

    message: str
    fatal: bool


@dataclass(frozen=True)
class Finished(Event):
    """The run is over; every word recognised has been emitted as :class:`Finalized`."""

    reason: str
    """"end_of_audio", "stopped", "left" (stopped, the rest not recognised:
    :meth:`~dictate.run.pipeline.Pipeline.leave`) or "error"."""
    audio_seconds: float
    dropped_blocks: int
