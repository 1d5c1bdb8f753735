"""The dictation overlay (offscreen): never focusable, shows the newest words, follows the
palette, tells screen readers what it shows, can be dragged and remembers where."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QFont, QGuiApplication, QPalette
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QWidget

from dictate.ui.overlay import BOTTOM_MARGIN, NOTICE_MS, DictationOverlay
from dictate.ui.text_view import ELLIPSIS, MAX_CHARS, elide_start

# The offscreen platform cannot raise windows; an always-on-top window asks it to when shown.
pytestmark = pytest.mark.qt_log_ignore("This plugin does not support raise")


@pytest.fixture
def overlay(qtbot) -> Iterator[DictationOverlay]:  # type: ignore[no-untyped-def]
    widget = DictationOverlay()
    qtbot.addWidget(widget)
    yield widget


def shown(overlay: DictationOverlay) -> str:
    return " ".join(part for part in overlay.shown_words() if part)


def test_window_flags_and_attributes_keep_the_focus_elsewhere(overlay: DictationOverlay) -> None:
    flags = overlay.windowFlags()
    for flag in (
        Qt.WindowType.Tool,
        Qt.WindowType.FramelessWindowHint,
        Qt.WindowType.WindowStaysOnTopHint,
        Qt.WindowType.WindowDoesNotAcceptFocus,
    ):
        assert flags & flag == flag, flag
    assert not flags & Qt.WindowType.X11BypassWindowManagerHint
    for attribute in (
        Qt.WidgetAttribute.WA_ShowWithoutActivating,
        Qt.WidgetAttribute.WA_X11DoNotAcceptFocus,
        Qt.WidgetAttribute.WA_MacAlwaysShowToolWindow,
    ):
        assert overlay.testAttribute(attribute), attribute
    overlay.show()
    handle = overlay.windowHandle()
    assert handle is not None and handle.flags() & Qt.WindowType.WindowDoesNotAcceptFocus
    assert overlay.accessibleName() == "Dictation overlay"


def test_no_widget_in_it_accepts_focus(overlay: DictationOverlay) -> None:
    widgets = [overlay, *overlay.findChildren(QWidget)]
    assert len(widgets) >= 4  # the frame, the state, the level and the words at least
    for widget in widgets:
        assert widget.focusPolicy() == Qt.FocusPolicy.NoFocus, widget


@pytest.mark.qt_log_ignore("This plugin does not support raise", "requestActivate")
def test_qt_refuses_to_activate_it(qtlog, overlay: DictationOverlay) -> None:  # type: ignore[no-untyped-def]
    """activateWindow() is refused by Qt itself (QWindow::requestActivate). Whether a shown
    window becomes active is the window system's decision, and the offscreen platform makes
    every shown window active, so the real proof is tests/ui/test_overlay_x11.py."""
    overlay.show()
    overlay.activateWindow()
    refused = [r.message for r in qtlog.records if "requestActivate" in r.message]
    assert refused and "WindowDoesNotAcceptFocus" in refused[0]


def test_pending_then_partial_words(overlay: DictationOverlay) -> None:
    overlay.set_pending("hello there")
    overlay.set_partial("general kenobi")
    assert overlay.shown_words() == ("hello there", "general kenobi")
    html = overlay.words.text()
    pending_at = html.index("hello there")
    partial_at = html.index("general kenobi")
    assert pending_at < partial_at
    assert overlay.pending_color.name() in html[:pending_at]
    assert f'<i style="color:{overlay.partial_color.name()}">general kenobi</i>' in html
    overlay.set_partial("")
    assert overlay.shown_words() == ("hello there", "")
    assert "<i" not in overlay.words.text()


def test_text_is_escaped(overlay: DictationOverlay) -> None:
    overlay.set_pending("a <b>bold</b> & claim")
    assert "&lt;b&gt;bold&lt;/b&gt; &amp; claim" in overlay.words.text()
    assert overlay.shown_words() == ("a <b>bold</b> & claim", "")


def test_long_text_keeps_the_newest_words(overlay: DictationOverlay) -> None:
    words = [f"word{i}" for i in range(80)]
    overlay.set_pending(" ".join(words))
    overlay.set_partial("and the newest")
    pending, partial = overlay.shown_words()
    assert partial == "and the newest"
    assert pending.startswith(ELLIPSIS) and pending.endswith("word79")
    kept = pending.removeprefix(ELLIPSIS).split()
    assert kept == words[-len(kept) :] and 0 < len(kept) < len(words)
    assert len(shown(overlay)) <= MAX_CHARS
    assert overlay._fits(shown(overlay))  # two lines of the words area at most
    # Only partial words: they are elided the same way.
    overlay.set_pending("")
    overlay.set_partial(" ".join(words))
    pending, partial = overlay.shown_words()
    assert pending == "" and partial.startswith(ELLIPSIS) and partial.endswith("word79")
    # The overlay's size does not change with the text.
    size = overlay.size()
    overlay.clear()
    assert overlay.size() == size and overlay.shown_words() == ("", "")


def test_elide_start() -> None:
    def fits(text: str) -> bool:
        return len(text) <= 13

    assert elide_start("", "", fits) == ("", "")
    assert elide_start("one two", "three", fits) == ("one two", "three")
    assert elide_start("one two three", "four", fits) == (f"{ELLIPSIS}three", "four")
    assert elide_start("one two three", "four five", fits) == ("", f"{ELLIPSIS}four five")
    assert elide_start("one", "supercalifragilistic", fits) == ("", f"{ELLIPSIS}ifragilistic")
    assert elide_start("supercalifragilistic", "", fits) == (f"{ELLIPSIS}ifragilistic", "")
    assert elide_start("a b c d e f g h", "", lambda t: True, max_chars=6) == (
        f"{ELLIPSIS}f g h",
        "",
    )


def test_screen_readers_get_the_words_and_the_state(overlay: DictationOverlay) -> None:
    assert overlay.words.accessibleName() == "Dictated words"
    overlay.set_pending("it was a dark")
    overlay.set_partial("and stormy night")
    assert overlay.words.accessibleName() == "Dictated words: it was a dark and stormy night"
    description = overlay.words.accessibleDescription()
    assert "Not final yet: it was a dark." in description
    assert "Still being recognised: and stormy night." in description
    long = " ".join(f"word{i}" for i in range(80))
    overlay.set_pending(long)
    assert long in overlay.words.accessibleName()  # the whole text, not the elided one
    overlay.clear()
    assert overlay.words.accessibleName() == "Dictated words"
    assert overlay.words.accessibleDescription() == ""
    state = "Listening — typing into other applications " * 3
    overlay.set_state(state)
    assert overlay.state() == state
    assert overlay.accessibleDescription() == state
    assert overlay.status.accessibleName() == state
    assert overlay.status.text() != state and overlay.status.text().endswith(ELLIPSIS)
    overlay.set_state("Stopped")
    assert overlay.status.text() == "Stopped" and overlay.accessibleDescription() == "Stopped"


def test_level(overlay: DictationOverlay) -> None:
    assert (overlay.level.minimum(), overlay.level.maximum()) == (-60, 0)
    assert not overlay.level.isTextVisible()
    for dbfs, value in ((-12.4, -12), (-80.0, -60), (3.0, 0), (-math.inf, -60), (math.nan, -60)):
        overlay.set_level(dbfs)
        assert overlay.level.value() == value, dbfs
    overlay.set_level(-6)
    overlay.clear()
    assert overlay.level.value() == -60


def test_dragging_moves_it_and_says_where(qtbot, overlay: DictationOverlay) -> None:  # type: ignore[no-untyped-def]
    overlay.place([100, 120])
    overlay.show()
    qtbot.waitExposed(overlay)
    assert overlay.pos() == QPoint(100, 120)
    moves: list[tuple[int, int]] = []
    overlay.moved.connect(lambda x, y: moves.append((x, y)))
    # Where the pointer is, on the screen: QTest takes positions in the widget, which moves.
    start = overlay.words.mapToGlobal(QPoint(5, 5))  # on a child: it moves the overlay too

    def at(offset: QPoint) -> QPoint:
        return overlay.mapFromGlobal(start + offset)

    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QTest.mousePress(overlay, left, none, at(QPoint(0, 0)))
    QTest.mouseMove(overlay, at(QPoint(30, 10)))
    assert overlay.pos() == QPoint(130, 130)
    QTest.mouseMove(overlay, at(QPoint(50, 30)))
    assert moves == []  # only when the drag ends
    QTest.mouseRelease(overlay, left, none, at(QPoint(50, 30)))
    assert overlay.pos() == QPoint(150, 150)
    assert moves == [(150, 150)]
    # A click without a move is no move.
    QTest.mouseClick(overlay, left, none, overlay.mapFromGlobal(start))
    assert moves == [(150, 150)] and overlay.pos() == QPoint(150, 150)


def test_place(overlay: DictationOverlay) -> None:
    screen = QGuiApplication.primaryScreen()
    assert screen is not None
    area = screen.availableGeometry()
    size = overlay.size()
    overlay.place([area.left() + 30, area.top() + 40])
    assert overlay.pos() == QPoint(area.left() + 30, area.top() + 40)
    bottom_centre = QPoint(
        area.left() + (area.width() - size.width()) // 2,
        area.bottom() + 1 - size.height() - BOTTOM_MARGIN,
    )
    for position in (None, [-5000, -5000], [area.right() + 5000, 10], [1, 2, 3]):
        overlay.move(0, 0)
        overlay.place(position)
        assert overlay.pos() == bottom_centre, position
    # A saved point near the edge of a screen: the whole overlay stays on it.
    overlay.place([area.right() - 3, area.bottom() - 3])
    assert area.contains(overlay.geometry())
    assert overlay.geometry().bottomRight() == area.bottomRight()


def test_palette_change_changes_the_greys(qtbot, overlay: DictationOverlay) -> None:  # type: ignore[no-untyped-def]
    overlay.set_pending("grey words")
    overlay.set_partial("lighter ones")
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    original = app.palette()
    light = QPalette(original)
    light.setColor(QPalette.ColorRole.WindowText, QColor("#000000"))
    light.setColor(QPalette.ColorRole.Window, QColor("#ffffff"))
    dark = QPalette(original)
    dark.setColor(QPalette.ColorRole.WindowText, QColor("#ffffff"))
    dark.setColor(QPalette.ColorRole.Window, QColor("#000000"))

    def switch(palette: QPalette) -> tuple[str, str]:
        """The greys once the application's palette is ``palette`` (the change is posted)."""
        QApplication.setPalette(palette)  # as a change of the system's theme does
        text = palette.color(QPalette.ColorRole.WindowText)
        qtbot.waitUntil(lambda: overlay.palette().color(QPalette.ColorRole.WindowText) == text)
        return overlay.pending_color.name(), overlay.partial_color.name()

    try:
        on_light = switch(light)
        on_dark = switch(dark)
    finally:
        QApplication.setPalette(original)
    assert on_light != on_dark
    # On white, the partial words are lighter than the pending ones; on black, darker.
    assert QColor(on_light[1]).lightness() > QColor(on_light[0]).lightness() > 0
    assert QColor(on_dark[1]).lightness() < QColor(on_dark[0]).lightness() < 255
    # The widget's own palette (e.g. a high-contrast one) counts too, and the text follows.
    contrast = QPalette(overlay.palette())
    contrast.setColor(QPalette.ColorRole.WindowText, QColor("#ffff00"))
    contrast.setColor(QPalette.ColorRole.Window, QColor("#000000"))
    overlay.setPalette(contrast)
    assert overlay.pending_color.name() not in (on_light[0], on_dark[0])
    assert overlay.pending_color.name() in overlay.words.text()
    assert overlay.partial_color.name() in overlay.words.text()


def test_a_bigger_font_makes_a_bigger_overlay(overlay: DictationOverlay) -> None:
    overlay.set_pending(" ".join(f"word{i}" for i in range(80)))
    before = overlay.size()
    font = QFont(overlay.font())
    font.setPointSizeF(font.pointSizeF() * 2)
    overlay.setFont(font)
    assert overlay.width() > before.width() and overlay.height() > before.height()
    assert overlay._fits(shown(overlay))


def test_a_notice_takes_the_state_line_for_a_few_seconds(qtbot, overlay: DictationOverlay) -> None:  # type: ignore[no-untyped-def]
    """What the window shows when a command that needs the dictate window ("select", "cap
    that"...) is said while typing into another application."""
    assert 2000 <= NOTICE_MS <= 6000  # long enough to read, short enough not to linger
    overlay.set_state("Listening — typing with xtest")
    overlay.set_pending("not final yet")
    overlay.show()
    qtbot.waitExposed(overlay)
    size = overlay.size()
    text = "\u201cselect\u201d works in the dictate window only"
    assert overlay.notice_shown() == "" and not overlay.notice.isVisible()
    overlay.show_notice(text, ms=300)
    assert overlay.notice_shown() == text and overlay.notice.isVisible()
    assert overlay.notice.text() == text and overlay.notice.accessibleName() == text
    # In the state's place, on its line; the overlay neither grows nor moves its words.
    assert not overlay.status.isVisible() and overlay.state() == "Listening — typing with xtest"
    assert overlay.notice.geometry().top() < overlay.level.geometry().top()
    assert overlay.notice.width() == overlay.words.width()
    assert overlay.size() == size and overlay.shown_words() == ("not final yet", "")
    # With "✓ Committed" beside it, it is elided to the room left, whole in its tooltip.
    overlay.show_committed(ms=5000)
    assert overlay.notice.text().endswith(ELLIPSIS) and overlay.notice.toolTip() == text
    assert overlay.notice.geometry().right() < overlay.committed.geometry().left()
    assert overlay.notice_shown() == text and overlay.size() == size
    qtbot.waitUntil(lambda: overlay.notice_shown() == "", timeout=2000)
    assert overlay.status.isVisible() and not overlay.notice.isVisible()
    assert overlay.status.accessibleName() == "Listening — typing with xtest"
    assert overlay.committed_shown() == "Committed" and overlay.size() == size
    # Again from the start when it is shown again; clear() takes it away at once.
    overlay.show_notice("\u201cgo to end\u201d works in the dictate window only")
    qtbot.wait(350)
    assert overlay.notice_shown().startswith("\u201cgo to end\u201d")
    overlay.clear()
    assert overlay.notice_shown() == "" and overlay.status.isVisible()
