"""The one dispatcher of the pipeline's events in the window: every part that handles them
subscribes here, under its name, and :data:`ORDER` (declared once, here) says who sees an event
first. It replaced six connections to the controller's signal whose right behaviour hung on
the order they were made in ("connect this after handle_event").

The controller's own bookkeeping (its state, the run's end) is not a part: it runs before the
dispatcher, as the controller connects it when it is made.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from dictate.events import Event

log = logging.getLogger(__name__)

ORDER: tuple[str, ...] = (
    "document",  # the editor applies the event (text, greyed words, commands); the rest read it
    "sounds",  # the feedback sounds, for what is now on screen
    "announcements",  # screen readers: what the document now says
    "kept_audio",  # the audio of a sentence linked to the sentence now in the document
    "audio_import",  # a file's transcription: its progress and its end, after the text is in
    "silence",  # a microphone that gives only digital silence is said
    "guide",  # the first-start guide: the level, and the first words dictated end it
    "tiers",  # a live phrase's settled words timed once they are in (the Whisper tier's check)
    "observer",  # tests, benchmarks and the self-test: they see everything, last
)
"""The parts, in the order an event reaches them."""

Handler = Callable[[Any], object]


class EventDispatcher:
    """Hands each pipeline event to the subscribed handlers, part by part in :data:`ORDER`,
    each part's handlers in the order they subscribed. A handler that raises does not keep the
    event from the parts after it; the first exception is raised again once all have run (as a
    Qt slot's would be reported)."""

    def __init__(self, order: tuple[str, ...] = ORDER) -> None:
        self.order = order
        self._handlers: dict[str, list[tuple[Handler, tuple[type[Event], ...]]]] = {
            part: [] for part in order
        }

    def subscribe(self, part: str, handler: Handler, *kinds: type[Event]) -> None:
        """``handler(event)`` for the events of ``kinds`` (all events if none are given).

        Raises:
            ValueError: ``part`` is not in the declared order.
        """
        if part not in self._handlers:
            raise ValueError(f"{part!r} is not a part in the dispatcher's order {self.order}")
        self._handlers[part].append((handler, kinds))

    def unsubscribe(self, handler: Handler) -> None:
        for handlers in self._handlers.values():
            handlers[:] = [(h, kinds) for h, kinds in handlers if h != handler]

    def dispatch(self, event: Event) -> None:
        failure: BaseException | None = None
        for part in self.order:
            for handler, kinds in list(self._handlers[part]):
                if kinds and not isinstance(event, kinds):
                    continue
                try:
                    handler(event)
                except Exception as exc:
                    log.exception("the %s part failed on %s", part, type(event).__name__)
                    failure = failure or exc
        if failure is not None:
            raise failure
