"""Announcements for screen readers: each finalized sentence and each change of the dictation
state ("Listening.", "Stopped.", asleep, typing failed) spoken through the platform's
accessibility API (AT-SPI on Linux, UI Automation on Windows, NSAccessibility on macOS) with
Qt's :class:`~PySide6.QtGui.QAccessibleAnnouncementEvent`.

Politely: the reader says them after what it is saying, never cutting the user off. And rate
limited: the first text is announced at once, and whatever comes within the next
:data:`MERGE_S` seconds (a burst of sentences finalized together, the "Stopped." after the last
one) goes into one announcement when that time is up, so a reader is never flooded.

Without a screen reader nothing listens and Qt sends nothing: announcing is harmless, so the
setting (``announce``) is on by default.
"""

from __future__ import annotations

import logging
import math
import time
from typing import Any

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent

from dictate.errors import DictateError, as_sentence
from dictate.events import Error, Event, Finalized
from dictate.ui.run_states import State

log = logging.getLogger("dictate.ui")

MERGE_S = 1.0
"""At most one announcement in this many seconds; what comes meanwhile is merged."""


class Announcer(QObject):
    """Announces short texts for ``source`` (a widget: the reader names it as the speaker).

    :meth:`say` never blocks and never raises: the announcement is an event that Qt's
    accessibility bridge turns into a D-Bus signal (AT-SPI) or a UI Automation notification.

    Args:
        source: The object the announcements come from; also this object's parent.
        interval_s: The rate limit: at most one announcement in this many seconds.
    """

    def __init__(self, source: QObject, interval_s: float = MERGE_S) -> None:
        super().__init__(source)
        self._source = source
        self._interval = interval_s
        self._pending: list[str] = []
        self._last = -math.inf  # time.monotonic() of the last announcement
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)  # a coarse one may fire 5% early
        self._timer.timeout.connect(self.flush)

    def say(self, text: str) -> None:
        """Announce ``text`` now, or with whatever else comes before the rate limit allows the
        next announcement; the same text twice in a row is said once."""
        text = " ".join(text.split())
        if not text or (self._pending and self._pending[-1] == text):
            return
        self._pending.append(text)
        if self._timer.isActive():
            return  # merged into the announcement already due
        wait = self._last + self._interval - time.monotonic()
        if wait <= 0:
            self.flush()
        else:
            self._timer.start(math.ceil(wait * 1000))

    def flush(self) -> None:
        """Announce what is waiting now, as one announcement."""
        self._timer.stop()
        if not self._pending:
            return
        message = " ".join(self._pending)
        self._pending.clear()
        self._last = time.monotonic()
        try:
            event = QAccessibleAnnouncementEvent(self._source, message)
            event.setPoliteness(QAccessible.AnnouncementPoliteness.Polite)
            QAccessible.updateAccessibility(event)
        except Exception:  # an announcement must never cost the dictation anything
            log.warning("a screen reader announcement failed", exc_info=True)

    def clear(self) -> None:
        """Drop what is waiting (the setting was turned off)."""
        self._timer.stop()
        self._pending.clear()


class WindowAnnouncements(QObject):
    """What the dictation window announces: its controller's states ("Listening.", and
    "Stopped." once listening is over; a start that failed says why instead), each finalized
    sentence (not while asleep: those words are not dictation), a lost microphone; and, called
    by the window, asleep and awake, and typing that failed. Nothing when the ``announce``
    setting is off.

    Args:
        window: The :class:`~dictate.ui.main_window.MainWindow` (its ``settings``,
            ``controller`` and ``_asleep``); connected after its own handlers.
    """

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self.announcer = Announcer(window)
        self._listening = False  # "Listening." was said: "Stopped." is due when it ends
        window.controller.stateChanged.connect(self._on_state)
        window.events.subscribe("announcements", self._on_event)
        window.controller.failed.connect(self._on_start_failed)

    def say(self, text: str) -> None:
        if self._window.settings.announce:
            self.announcer.say(text)
        else:
            self.announcer.clear()

    def asleep(self, sleeping: bool) -> None:
        self.say("Asleep; say wake up to dictate again." if sleeping else "Listening.")

    def typing_failed(self) -> None:
        self.say("Typing failed; the dictated text comes into this window.")

    def _on_state(self, state: State) -> None:
        if state == State.LISTENING:
            self._listening = True
            self.say("Listening.")
        elif state == State.IDLE and self._listening:
            self._listening = False
            self.say("Stopped.")

    def _on_event(self, event: Event) -> None:
        if isinstance(event, Finalized) and not self._window.event_view.asleep:
            self.say(event.text)
        elif isinstance(event, Error) and event.fatal:
            self.say(as_sentence(event.message))

    def _on_start_failed(self, error: BaseException) -> None:
        why = f": {error}" if isinstance(error, DictateError) else ""
        self.say(f"Dictation did not start{why}.")
