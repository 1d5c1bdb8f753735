"""Status messages at the window's minimum width: the labels that can wait step aside, the rest
is elided with the whole message in the tooltip; never drawn under the labels (issue 53)."""

from __future__ import annotations

from typing import Any

from dictate.ui.status_bar import ElidingStatusBar

LONG = (
    "Recognising the last 24 s said before dictate stopped: 2 phrases so far; the window can "
    "be used meanwhile, and Stop keeps what was heard"
)


def test_a_long_message_is_elided_at_the_minimum_width_and_whole_when_there_is_room(
    window: Any, qtbot: Any
) -> None:
    bar = window.statusBar()
    assert isinstance(bar, ElidingStatusBar)
    window.resize(window.minimumSizeHint().width(), 600)
    qtbot.wait(50)
    bar.showMessage(LONG)
    shown = bar.drawn_message()
    assert shown != LONG and shown.endswith("…"), shown
    assert bar.fontMetrics().horizontalAdvance(shown) <= bar.room()
    assert (
        bar.room()
        + sum(  # the labels beside it keep their own room
            w.width()
            for w in (window.dictation.engine_label, window.dictation.target_label)
            if w.isVisible()
        )
        <= bar.width()
    )
    assert bar.toolTip() == LONG and bar.currentMessage() == LONG  # as given: to the code
    window.resize(3000, 600)  # room enough: the whole message, no tooltip
    qtbot.waitUntil(lambda: bar.drawn_message() == LONG, timeout=2000)
    assert bar.toolTip() == ""


def test_a_timed_message_still_goes_after_a_resize(window: Any, qtbot: Any) -> None:
    bar = window.statusBar()
    window.resize(window.minimumSizeHint().width(), 600)
    bar.showMessage(LONG, 400)
    window.resize(window.minimumSizeHint().width() + 40, 600)
    qtbot.waitUntil(lambda: bar.drawn_message() == "", timeout=3000)
    assert bar.toolTip() == "" and bar.currentMessage() == ""
    bar.showMessage("Listening…")
    assert bar.drawn_message() == "Listening…" and bar.toolTip() == ""


def test_a_status_tip_shown_by_qt_itself_is_the_current_message(window: Any, qtbot: Any) -> None:
    """Qt shows an action's status tip through QStatusBar's own showMessage, past the Python
    override: the bar still says what it shows."""
    from PySide6.QtGui import QStatusTipEvent
    from PySide6.QtWidgets import QApplication

    bar = window.statusBar()
    bar.showMessage(LONG)
    QApplication.sendEvent(window, QStatusTipEvent("Start or stop dictation (F9)"))
    assert bar.currentMessage() == bar.drawn_message() == "Start or stop dictation (F9)"
    QApplication.sendEvent(window, QStatusTipEvent(""))
    assert bar.currentMessage() == "" and bar.toolTip() == ""
