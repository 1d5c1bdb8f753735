"""The window's part in choosing the Whisper tier (:mod:`dictate.asr.tiers`), where the second
pass is "auto" and more than one Whisper model is installed:

* **Measured in the background, while idle**: ``dictate models tiers --calibrate`` in a process
  of its own (the window dictating the bundled clip with each tier, about 47 s each), started
  :data:`IDLE_MS` after the window went idle; a dictation or file started meanwhile ends it (its
  measurement would be the run's, not the machine's), and it is tried again at the next idle.
  When it is done the models for the new choice are loaded at once (``preload``).
* **Watched while dictating**: every phrase's settled words are timed from the end of its
  speech (as said: :meth:`~dictate.ui.pipeline_runner.DictationController.wall_time`, to when
  the window has them); after the run :func:`~dictate.asr.tiers.observe_run` steps the live
  tier down if they came too late, and the message bar says so.
"""

from __future__ import annotations

import logging
import sys
import time
from typing import Any

from PySide6.QtCore import QObject, QProcess, QTimer

from dictate.events import Event, Finished, Segment
from dictate.ui.run_states import State

log = logging.getLogger("dictate.ui")

IDLE_MS = 10_000
"""How long the window is idle before it measures (not during its start, nor between two
dictations a moment apart)."""


class TierCalibration(QObject):
    """Measures and watches the Whisper tiers for ``window`` (its settings, controller and
    message bar)."""

    def __init__(self, window: Any) -> None:
        super().__init__(window)
        self._window = window
        self.command = [sys.executable, "-m", "dictate", "models", "tiers", "--calibrate"]
        """What measures (tests give a stand-in)."""
        self.process: QProcess | None = None
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(IDLE_MS)
        self._timer.timeout.connect(self.start)
        self._tier: str | None = None  # the live tier of the run being watched
        self._settled: list[float] = []
        self.finished_runs = 0
        self.failed = False
        """A measurement failed: not tried again until the window starts again (the log says
        why; ``dictate models tiers --calibrate`` says it on the terminal)."""
        controller = window.controller
        controller.stateChanged.connect(self._on_state)
        window.events.subscribe("tiers", self._on_event, Segment, Finished)

    def _auto(self) -> bool:
        from dictate.asr.loader import AUTO

        return bool(self._window.settings.second_pass == AUTO)

    def later(self) -> None:
        """Measure :data:`IDLE_MS` from now if it is needed and the window still idle then."""
        if self._auto() and self.process is None:
            self._timer.start()

    def start(self) -> None:
        from dictate.asr.tiers import needs_calibration

        if self.failed or self.process is not None or self._window.controller.state != State.IDLE:
            return
        if not self._auto() or not needs_calibration():
            return
        log.info("measuring the Whisper tiers in the background")
        process = QProcess(self)
        process.setProcessChannelMode(QProcess.ProcessChannelMode.MergedChannels)
        process.finished.connect(lambda code, status: self._ended(process, code, status))
        self.process = process
        process.start(self.command[0], self.command[1:])

    def _ended(self, process: QProcess, code: int, status: Any) -> None:
        if process is not self.process:
            return  # one stopped for a run: said then
        self.process = None
        said = bytes(process.readAll().data()).decode(errors="replace").strip()
        if status == QProcess.ExitStatus.NormalExit and code == 0:
            log.info("Whisper tiers measured")
            self._window.controller.preload()  # the chosen tier loaded before it is needed
        else:
            self.failed = True
            log.warning("measuring the Whisper tiers failed (exit %s): %s", code, said[-400:])
        process.deleteLater()

    def stop(self) -> None:
        """End a measurement under way (a run starts, the window closes); tried again later."""
        self._timer.stop()
        process, self.process = self.process, None
        if process is not None:
            log.info("measuring the Whisper tiers stopped: the machine is in use")
            process.kill()
            process.waitForFinished(2000)
            process.deleteLater()

    def _on_state(self, state: State) -> None:
        if state == State.IDLE:
            self.later()
            return
        self.stop()
        if state == State.STARTING:  # a new run: nothing of an earlier one carried into it
            self._tier, self._settled = None, []
        elif state == State.LISTENING and self._tier is None:
            self._begin_watch()

    def _begin_watch(self) -> None:
        from dictate.asr.tiers import auto_model

        self._settled = []
        # a file's run is not watched: nobody waits on its words
        live = not self._window.audio_import.busy
        self._tier = auto_model("live") if self._auto() and live else ""

    def _on_event(self, event: Event) -> None:
        if isinstance(event, Segment) and event.words and self._tier:
            said = self._window.controller.wall_time(event.end)
            if said is not None:
                self._settled.append(time.monotonic() - said)
        elif isinstance(event, Finished):
            tier, settled = self._tier, self._settled
            self._tier, self._settled = None, []
            self.finished_runs += 1
            if tier:
                from dictate.asr.tiers import observe_run

                message = observe_run(tier, settled)
                if message:
                    self._window.messages.show_message(message)
