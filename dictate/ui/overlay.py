"""The dictation overlay: a small always-on-top window shown while dictating into other apps.

It shows the input level, the words not yet final (greyed) and the words still being
recognised (lighter, italic), elided from the start so the newest words stay visible, for a
moment "✓ Committed" when words were typed into the other application (:meth:`show_committed`),
and for a few seconds a notice in place of the state line, e.g. that a command works in the
dictate window only (:meth:`show_notice`).
It never takes the keyboard focus: the keystrokes that dictation types must reach the application
the user is typing into, so the window asks the window system not to be focused
(``WindowDoesNotAcceptFocus``, which on X11 sets the ``WM_HINTS`` input field to False and on
Windows ``WS_EX_NOACTIVATE``), is shown without activation, and nothing in it accepts focus. It
can still be dragged with the mouse; :attr:`DictationOverlay.moved` says where it was put.

``X11BypassWindowManagerHint`` is deliberately not used: an override-redirect window is above
everything without a window manager's help, but window managers then cannot stack, move or
un-focus it properly, and the frameless tool window with ``WindowStaysOnTopHint`` already gets
``_NET_WM_STATE_ABOVE``. On Wayland a client cannot place its own windows, so :meth:`place` and
dragging only work where the window system lets them (X11, XWayland, Windows, macOS).
"""

from __future__ import annotations

import html
import math

from PySide6.QtCore import QEvent, QPoint, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QFont, QFontMetrics, QGuiApplication, QMouseEvent, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QVBoxLayout,
    QWidget,
)

from dictate.ui.text_view import LINE_CHARS, LINES, PARTIAL_MIX, PENDING_MIX, elide_start, mix

LEVEL_MIN_DB = -60
"""The level meter's range, as in the main window's toolbar."""
BOTTOM_MARGIN = 24
"""Pixels between the overlay and the bottom of the screen's available area by default."""

COMMITTED_MS = 1200
"""How long "✓ Committed" stays on the state line after words went out."""
COMMITTED_TEXT = "Committed"
STATE_SPACING = 6
"""Pixels between the state and "✓ Committed"."""
NOTICE_MS = 4000
"""How long a notice (:meth:`DictationOverlay.show_notice`) stays in place of the state."""


class DictationOverlay(QWidget):
    """A small always-on-top window with the level and the words being dictated.

    It never accepts the keyboard focus. Drag it anywhere with the mouse; :attr:`moved` is
    emitted with the new top-left corner when the drag ends.

    Args:
        parent: Best left None. With a parent the overlay becomes that window's transient tool
            window, which window managers (and Windows, for owned windows) hide together with
            it when it is minimised, while the overlay is meant for when it is not in front.
    """

    moved = Signal(int, int)
    """The user finished dragging the overlay: the new x, y of its top-left corner."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowFlags(
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint
            | Qt.WindowType.WindowDoesNotAcceptFocus
        )
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_X11DoNotAcceptFocus)
        # macOS hides tool windows while their application is not active: this one is shown
        # precisely while another application is active.
        self.setAttribute(Qt.WidgetAttribute.WA_MacAlwaysShowToolWindow)
        self.setWindowTitle("Dictation overlay")
        self.setAccessibleName("Dictation overlay")
        self.setAutoFillBackground(True)

        self.frame = QFrame()
        self.frame.setFrameShape(QFrame.Shape.Box)  # drawn in the palette's text colour
        self.status = QLabel("")
        self._state = ""  # shown elided to the overlay's width (_show_state)
        # "✓ Committed", briefly, at the right end of the state line (show_committed).
        self.committed = QLabel()
        self.committed.setAccessibleName("Committed")
        self.committed.hide()
        self._committed_timer = QTimer(self)
        self._committed_timer.setSingleShot(True)
        self._committed_timer.timeout.connect(self.hide_committed)
        # A notice, for a few seconds, in the state's place (show_notice).
        self.notice = QLabel()
        self.notice.setAccessibleName("Notice")
        italic = QFont()  # only the style is set: the size and family follow the overlay's
        italic.setItalic(True)
        self.notice.setFont(italic)
        self.notice.hide()
        self._notice = ""  # shown elided to the state's width (_show_state)
        self._notice_timer = QTimer(self)
        self._notice_timer.setSingleShot(True)
        self._notice_timer.timeout.connect(self.hide_notice)
        self.level = QProgressBar()
        self.level.setRange(LEVEL_MIN_DB, 0)
        self.level.setValue(LEVEL_MIN_DB)
        self.level.setTextVisible(False)
        self.level.setMaximumHeight(10)  # a thin bar reads as a meter, not as a text field
        self.level.setAccessibleName("Input level")
        self.level.setToolTip("Input level (dBFS)")
        self.words = QLabel()
        self.words.setTextFormat(Qt.TextFormat.RichText)
        self.words.setWordWrap(True)
        # Anything that overflows is cut at the top, where the oldest words are.
        self.words.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom)
        self.words.setAccessibleName("Dictated words")

        inner = QVBoxLayout(self.frame)
        inner.setContentsMargins(8, 6, 8, 6)
        inner.setSpacing(4)
        state_line = QHBoxLayout()
        state_line.setContentsMargins(0, 0, 0, 0)
        state_line.setSpacing(STATE_SPACING)
        state_line.addWidget(self.status)
        state_line.addWidget(self.notice)
        state_line.addWidget(self.committed)
        inner.addLayout(state_line)
        inner.addWidget(self.level)
        inner.addWidget(self.words)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.frame)

        for child in self.findChildren(QWidget):
            child.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            # Every press, move and release reaches the overlay itself, wherever it lands.
            child.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)

        self._pending = ""
        self._partial = ""
        self._shown: tuple[str, str] = ("", "")
        self._drag_offset: QPoint | None = None
        self._drag_start = QPoint()
        self.pending_color = QColor()
        self.partial_color = QColor()
        self._update_colors()
        self._update_size()
        self._render()

    # -- public API -------------------------------------------------------------------------

    def set_level(self, dbfs: float) -> None:
        """Show the input level (dBFS; clamped to -60..0, silence may be -inf)."""
        value = LEVEL_MIN_DB if math.isnan(dbfs) else round(max(LEVEL_MIN_DB, min(0.0, dbfs)))
        self.level.setValue(value)  # a no-op (no repaint) when the value is the same

    def set_pending(self, text: str) -> None:
        """Show the words not yet final (greyed, before the partial words)."""
        if text != self._pending:
            self._pending = text
            self._render()

    def set_partial(self, text: str) -> None:
        """Show the words still being recognised (lighter and italic, after the pending)."""
        if text != self._partial:
            self._partial = text
            self._render()

    def set_state(self, text: str) -> None:
        """Show a one-line state, e.g. "Listening — typing into other applications"."""
        if text != self._state:
            self._state = text
            self._show_state()
            self.setAccessibleDescription(text)

    def state(self) -> str:
        """The state line as set (it is shown elided if it is too long)."""
        return self._state

    def clear(self) -> None:
        """No words, a silent level, no "✓ Committed" and no notice (the state line is kept)."""
        self._pending = self._partial = ""
        self.level.setValue(LEVEL_MIN_DB)
        self.hide_committed()
        self.hide_notice()
        self._render()

    def show_committed(self, text: str = COMMITTED_TEXT, ms: int | None = None) -> None:
        """Show "✓ ``text``" at the end of the state line for ``ms`` milliseconds
        (:data:`COMMITTED_MS`; again from the start if it is shown): words went out to the
        other application."""
        shown = f"\N{CHECK MARK} {text}"
        if shown != self.committed.text() or self.committed.isHidden():
            self.committed.setText(shown)
            self.committed.setAccessibleName(text)
            self.committed.show()
            self._show_state()  # the state line makes room
        self._committed_timer.start(COMMITTED_MS if ms is None else ms)

    def hide_committed(self) -> None:
        """Take "✓ Committed" away (it goes by itself after a moment)."""
        self._committed_timer.stop()
        if not self.committed.isHidden():
            self.committed.hide()
            self._show_state()

    def committed_shown(self) -> str:
        """The text of "✓ Committed" while it is shown ("Committed"), else ""."""
        return "" if self.committed.isHidden() else self.committed.accessibleName()

    def show_notice(self, text: str, ms: int | None = None) -> None:
        """Show ``text`` in place of the state line for ``ms`` milliseconds (:data:`NOTICE_MS`;
        again from the start if one is shown), e.g. "“select” works in the dictate window
        only"; the state comes back after it."""
        self._notice = text
        self.notice.setAccessibleName(text)  # screen readers hear the change (NameChanged)
        if self.notice.isHidden():
            self.status.hide()
            self.notice.show()
        self._show_state()
        self._notice_timer.start(NOTICE_MS if ms is None else ms)

    def hide_notice(self) -> None:
        """Take the notice away and show the state again (it goes by itself after a while)."""
        self._notice_timer.stop()
        if not self.notice.isHidden():
            self._notice = ""
            self.notice.hide()
            self.status.show()
            self._show_state()

    def notice_shown(self) -> str:
        """The notice while it is shown (all of it, even where elided), else ""."""
        return "" if self.notice.isHidden() else self._notice

    def shown_words(self) -> tuple[str, str]:
        """The pending and partial words as shown (elided from the start to fit)."""
        return self._shown

    def place(self, position: list[int] | None) -> None:
        """Put the overlay at a saved top-left ``position`` if that point is on a screen, else
        at the bottom centre of the primary screen's available area.

        A saved position is moved just enough for the whole overlay to stay on its screen.
        """
        size = self.size()
        if position is not None and len(position) == 2:
            point = QPoint(int(position[0]), int(position[1]))
            screen = QGuiApplication.screenAt(point)
            if screen is not None:
                area = screen.availableGeometry()
                x = max(area.left(), min(point.x(), area.right() + 1 - size.width()))
                y = max(area.top(), min(point.y(), area.bottom() + 1 - size.height()))
                self.move(x, y)
                return
        primary = QGuiApplication.primaryScreen()
        if primary is None:
            return
        area = primary.availableGeometry()
        x = area.left() + (area.width() - size.width()) // 2
        y = max(area.top(), area.bottom() + 1 - size.height() - BOTTOM_MARGIN)
        self.move(x, y)

    # -- drawing ----------------------------------------------------------------------------

    def _update_colors(self) -> None:
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        back = palette.color(QPalette.ColorRole.Window)
        self.pending_color = mix(text, back, PENDING_MIX)
        self.partial_color = mix(text, back, PARTIAL_MIX)
        # A badge in the palette's selection colours: it stands out in any theme, high
        # contrast too, and reads at a glance from the corner of an eye.
        highlight = palette.color(QPalette.ColorRole.Highlight).name()
        highlighted = palette.color(QPalette.ColorRole.HighlightedText).name()
        self.committed.setStyleSheet(
            f"QLabel {{ color: {highlighted}; background-color: {highlight};"
            " border-radius: 3px; padding: 0px 5px; font-weight: bold; }"
        )

    def _update_size(self) -> None:
        metrics = QFontMetrics(self.words.font())
        self._text_width = metrics.averageCharWidth() * LINE_CHARS
        self._text_height = metrics.lineSpacing() * LINES
        self.words.setFixedSize(self._text_width, self._text_height)
        committed, notice = not self.committed.isHidden(), not self.notice.isHidden()
        # The size is the overlay's with the state alone: the others only take its room.
        self.committed.hide()
        self.notice.hide()
        self.status.show()
        self.status.setFixedWidth(self._text_width)
        self.setFixedSize(self.sizeHint())
        self.committed.setVisible(committed)
        self.notice.setVisible(notice)
        self.status.setVisible(not notice)
        self._show_state()

    def _show_state(self) -> None:
        width = self._text_width
        if not self.committed.isHidden():
            width -= self.committed.sizeHint().width() + STATE_SPACING
        for label, text in ((self.status, self._state), (self.notice, self._notice)):
            label.setFixedWidth(max(0, width))
            metrics = QFontMetrics(label.font())
            shown = metrics.elidedText(text, Qt.TextElideMode.ElideRight, width)
            label.setText(shown)
            label.setToolTip(text if shown != text else "")
        self.status.setAccessibleName(self._state)  # the whole state, even where elided

    def _fits(self, text: str) -> bool:
        metrics = QFontMetrics(self.words.font())
        # A little room for the italic partial words, which are measured upright here.
        box = QRect(0, 0, self._text_width - metrics.averageCharWidth(), 100 * self._text_height)
        used = metrics.boundingRect(box, Qt.TextFlag.TextWordWrap, text)
        return used.height() <= self._text_height

    def _render(self) -> None:
        pending, partial = elide_start(self._pending, self._partial, self._fits)
        self._shown = (pending, partial)
        parts = []
        if pending:
            parts.append(
                f'<span style="color:{self.pending_color.name()}">{html.escape(pending)}</span>'
            )
        if partial:
            parts.append(f'<i style="color:{self.partial_color.name()}">{html.escape(partial)}</i>')
        self.words.setText(" ".join(parts))
        # Qt sends NameChanged and DescriptionChanged accessibility events itself when these
        # change (QWidget::setAccessibleName/Description), so a screen reader can follow the
        # words; a label has no text interface for QAccessibleTextUpdateEvent.
        full = " ".join(t for t in (self._pending.strip(), self._partial.strip()) if t)
        self.words.setAccessibleName(f"Dictated words: {full}" if full else "Dictated words")
        described = []
        if self._pending.strip():
            described.append(f"Not final yet: {self._pending.strip()}.")
        if self._partial.strip():
            described.append(f"Still being recognised: {self._partial.strip()}.")
        self.words.setAccessibleDescription(" ".join(described))

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        kind = event.type()
        if kind in (QEvent.Type.PaletteChange, QEvent.Type.ApplicationPaletteChange):
            self._update_colors()  # the greys are mixed from the palette (high contrast too)
            self._render()
        elif kind in (QEvent.Type.FontChange, QEvent.Type.ApplicationFontChange):
            self._update_size()
            self._render()

    # -- dragging ---------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_start = self.pos()
            self._drag_offset = event.globalPosition().toPoint() - self.pos()
            event.accept()
        else:
            super().mousePressEvent(event)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if self._drag_offset is not None and event.buttons() & Qt.MouseButton.LeftButton:
            self.move(event.globalPosition().toPoint() - self._drag_offset)
            event.accept()
        else:
            super().mouseMoveEvent(event)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:
        if self._drag_offset is not None and event.button() == Qt.MouseButton.LeftButton:
            self._drag_offset = None
            event.accept()
            if self.pos() != self._drag_start:
                self.moved.emit(self.x(), self.y())
        else:
            super().mouseReleaseEvent(event)
