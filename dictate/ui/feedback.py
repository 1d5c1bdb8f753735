"""Feedback while dictating, a part of the main window: the always-on-top overlay shown while
typing into other applications (level, partial and pending words, never taking the focus: see
:mod:`dictate.ui.overlay`), and the feedback sounds (Settings: feedback_sounds)."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject

from dictate.config import Settings
from dictate.events import Event, Finalized, Finished, Level, Live, Partial, Pending
from dictate.text.stage import live_partial
from dictate.ui.run_states import State
from dictate.writing.live_mask import LiveMask


class Feedback(QObject):
    """The overlay and the sounds.

    Args:
        settings: The user's settings (the overlay's position, whether sounds play).
        settings_changed: Called after the overlay was moved (its position is saved).
        parent: The Qt parent (the window); the overlay itself has none, so that it is not
            minimised with the window.
    """

    def __init__(self, settings: Settings, settings_changed: Any, parent: QObject) -> None:
        super().__init__(parent)
        self._settings = settings
        self._settings_changed = settings_changed
        self.overlay: Any = None  # dictate.ui.overlay.DictationOverlay, once shown
        self.sounds: Any = None  # dictate.output.sounds.FeedbackSounds, once needed
        self._start_sound = ""  # "due" once listening, "played" at the first level; "" idle
        self.mask = LiveMask()  # the live words' obscenities and slurs masked

    def visible_overlay(self) -> Any:
        """The overlay if it is shown, else None."""
        if self.overlay is not None and self.overlay.isVisible():
            return self.overlay
        return None

    def show_overlay(self, backend: str) -> None:
        """Show the overlay for a run typing with ``backend``, where the user last put it."""
        from dictate.ui.overlay import DictationOverlay

        if self.overlay is None:
            self.overlay = DictationOverlay()  # no parent: not minimised with the window
            self.overlay.moved.connect(self._on_overlay_moved)
        self.overlay.clear()
        self.overlay.set_state(f"Listening — typing with {backend}")
        self.overlay.place(self._settings.overlay_position)
        self.overlay.show()

    def hide_overlay(self) -> None:
        if self.overlay is not None:
            self.overlay.clear()
            self.overlay.hide()

    def close(self) -> None:
        if self.overlay is not None:
            self.overlay.close()

    def _on_overlay_moved(self, x: int, y: int) -> None:
        self._settings.overlay_position = [x, y]
        self._settings_changed()

    def on_event(self, event: Event, live: Live | None, shown_segment: int) -> None:
        """Show ``event`` in the overlay, if it is shown (``live``: the last live punctuation;
        ``shown_segment``: the last segment whose pending words are shown)."""
        overlay = self.visible_overlay()
        if overlay is None:
            return
        if isinstance(event, Level):
            overlay.set_level(event.dbfs)
        elif isinstance(event, Partial):
            overlay.set_partial(self.mask(live_partial(live, event.segment, event.words)))
        elif isinstance(event, Live):
            if event.segment > shown_segment:  # as the editor: not a stale one
                overlay.set_pending(event.pending)
                overlay.set_partial(self.mask(event.partial))
        elif isinstance(event, Pending):
            overlay.set_pending(event.text)
            overlay.set_partial("")
        elif isinstance(event, Finalized):
            overlay.set_pending(event.pending or "")
        elif isinstance(event, Finished):
            overlay.clear()
            overlay.hide()

    def sound_on_state(self, state: State) -> None:
        if state == State.LISTENING:
            self._start_sound = "due"  # played when the first input level shows audio coming

    def sound_on_event(self, event: Event) -> None:
        if isinstance(event, Level) and self._start_sound == "due":
            self._start_sound = "played"
            self.play("start")
        elif isinstance(event, Finished) and self._start_sound:
            self._start_sound = ""
            self.play("stop")

    def play(self, name: str) -> None:
        """Play the feedback sound ``name`` if the settings say so; never blocks or raises."""
        if not self._settings.feedback_sounds:
            return
        if self.sounds is None:
            from dictate.output.sounds import FeedbackSounds

            self.sounds = FeedbackSounds()
        self.sounds.play(name)
