"""Python's cyclic garbage collector run in the GUI thread only.

The collector runs in whichever thread happens to allocate when its thresholds are passed: the
audio callback, the punctuation worker, a client thread. A Qt object caught in a reference cycle
is then destroyed in that thread, while Qt still works on it and its children in the GUI thread:
Qt warns "Timers cannot be stopped from another thread" and may crash in ``QObject::~QObject``
(seen in CI with connection objects of the instance server). So automatic collection is turned
off and this collects on a timer in the GUI thread instead, with the thresholds the collector
itself would use (the approach of pyqtgraph's ``GarbageCollector``). Reference counting, which
frees almost everything, is untouched.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000
"""How often the thresholds are checked (cycles are rare; a second's delay costs nothing)."""


class GuiThreadCollector(QObject):
    """Turn automatic collection off and collect from the event loop of the thread this is made in.

    :meth:`stop` gives automatic collection back (the app quitting, or a test ending).
    """

    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self.threshold = gc.get_threshold()
        gc.disable()
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.check)
        self._timer.start(interval_ms)

    def check(self) -> int:
        """Collect the generations whose thresholds are passed, as the collector would.

        Returns:
            The number of unreachable objects found.
        """
        count0, count1, count2 = gc.get_count()
        if count0 <= self.threshold[0]:
            return 0
        if count1 <= self.threshold[1]:
            return gc.collect(0)
        if count2 <= self.threshold[2]:
            return gc.collect(1)
        return gc.collect(2)

    def stop(self) -> None:
        """Stop the timer, collect once here, and give automatic collection back."""
        self._timer.stop()
        gc.collect()
        if self._was_enabled:
            gc.enable()


_installed: GuiThreadCollector | None = None


def collect_in_gui_thread(app: QObject) -> GuiThreadCollector:
    """The one collector for ``app`` (made on the first call, in the GUI thread), stopped when
    the app quits."""
    global _installed
    if _installed is None:
        _installed = GuiThreadCollector(app)
        if hasattr(app, "aboutToQuit"):
            app.aboutToQuit.connect(_installed.stop)
    return _installed
