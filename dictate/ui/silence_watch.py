"""A microphone that gives only digital silence: said in the window.

Every sample zero, not even the noise every real microphone makes, means nothing can be heard:
a muted or disconnected input, a device another program holds, or the wrong device. A review
found the first run after Settings > OK recording pure silence with no word about it; whatever
the cause, after :data:`SILENT_S` of it the window says so, once a run, with what to do.
"""

from __future__ import annotations

import logging
from typing import Any

from dictate.events import Level
from dictate.ui.run_states import State

log = logging.getLogger(__name__)

SILENT_S = 3.0
"""Seconds of digital silence, since the run began listening, before it is said."""
DIGITAL_SILENCE_DBFS = -99.5
"""A level at or below this is digital silence: :func:`~dictate.audio.resample.level_dbfs`
gives -100 for samples that are all zero; a quiet room through a real microphone measures
-70 to -50 dBFS."""


class SilenceWatch:
    """Watches the input level of ``window``'s runs (its ``events`` dispatcher, ``controller``,
    ``messages`` bar and ``settings``)."""

    def __init__(self, window: Any) -> None:
        self._window = window
        self._silent_since: float | None = None
        self._said = False
        window.events.subscribe("silence", self._on_level, Level)
        window.controller.stateChanged.connect(self._on_state)

    @property
    def said(self) -> bool:
        """Whether this run's silence has been said."""
        return self._said

    def _on_state(self, state: State) -> None:
        if state == State.STARTING:  # a new run: its own notice
            self._silent_since, self._said = None, False

    def _on_level(self, event: Level) -> None:
        if event.dbfs > DIGITAL_SILENCE_DBFS:
            self._silent_since = None
            return
        if self._silent_since is None:
            self._silent_since = event.time
        if self._said or event.time - self._silent_since < SILENT_S:
            return
        self._said = True
        device = self._window.settings.input_device or "the system default microphone"
        log.warning("digital silence from %s for %.0f s", device, SILENT_S)
        self._window.messages.add_message(  # below a problem shown already, not over it
            f"The microphone ({device}) gives only digital silence: not a sound, not even "
            f"noise, for {SILENT_S:.0f} s. It may be muted, held by another program, or the "
            "wrong one: check it, or pick another microphone in the toolbar or in Settings."
        )
