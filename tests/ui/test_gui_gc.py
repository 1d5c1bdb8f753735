"""The cyclic garbage collector runs in the GUI thread only (dictate.ui.gui_gc)."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import cast

from PySide6.QtCore import QObject, QTimer
from pytestqt.qtbot import QtBot

from dictate.ui.app import application
from dictate.ui.gui_gc import GuiThreadCollector, collect_in_gui_thread


class _Cyclic(QObject):
    """A Qt object with a running timer, kept only by a reference cycle (as a connection object
    of the instance server was when a worker thread's allocation freed it)."""

    def __init__(self) -> None:
        super().__init__()
        self.me = self
        self.timer = QTimer(self)
        self.timer.start(60_000)


def _allocate_in_a_thread() -> None:
    def churn() -> None:
        for _ in range(20):
            [[] for _ in range(10_000)]  # far past the collector's thresholds

    thread = threading.Thread(target=churn)
    thread.start()
    thread.join()


def test_the_app_collects_in_its_gui_thread_only(qtbot: QtBot) -> None:
    app = cast(QObject, application())
    assert collect_in_gui_thread(app) is collect_in_gui_thread(app)  # one, made once
    assert not gc.isenabled()
    obj = _Cyclic()
    alive = weakref.ref(obj)
    del obj
    _allocate_in_a_thread()
    assert alive() is not None  # not freed in the thread (Qt would warn, or crash)
    # Allocations kept here pass the first threshold (the thread's were freed again), more at
    # each look (frees of older objects count down): the timer's next check, in this thread,
    # collects the youngest generation, where it is.
    kept: list[list[int]] = []

    def freed() -> bool:
        kept.extend([] for _ in range(1_000))
        return alive() is None

    qtbot.waitUntil(freed, timeout=10_000)


def test_check_collects_as_the_thresholds_say(qtbot: QtBot) -> None:
    collector = GuiThreadCollector(interval_ms=60_000)
    try:
        gc.collect()
        assert collector.check() == 0  # under the first threshold: nothing done
        obj = _Cyclic()
        alive = weakref.ref(obj)
        del obj
        kept: list[list[int]] = [
            [] for _ in range(collector.threshold[0] + 10)
        ]  # past the first threshold
        assert collector.check() >= 1
        assert alive() is None
        assert len(kept) > collector.threshold[0]
    finally:
        collector.stop()
        collector.deleteLater()
    assert not gc.isenabled()  # automatic collection was off before this one: it stays off
