"""The system tray icon: whether dictation is on, and a menu to start or stop it, choose where the
text goes, bring the window up, and quit.

It knows nothing of the window: it is built with callbacks, and :meth:`DictationTray.set_state`
tells it what to show. Make it with :func:`create_tray`, which gives None where the desktop has no
system tray (GNOME without an extension, the offscreen platform).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QPointF, Qt
from PySide6.QtGui import QAction, QActionGroup, QBrush, QColor, QIcon, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from dictate.ui.run_states import State

log = logging.getLogger("dictate.ui")

TARGETS = (("window", "&This window"), ("apps", "&Other applications"))
"""The "Type into" choices: the setting's value, the menu text."""
_ICON_SIZE = 64


class DictationTray(QSystemTrayIcon):
    """The tray icon and its menu.

    Args:
        toggle: Start or stop dictation.
        set_target: Where finalized text goes from now on: ``"window"`` or ``"apps"``.
        show_window: Bring the main window up.
        quit: Quit the app.
        parent: The Qt parent.
    """

    def __init__(
        self,
        toggle: Callable[[], None],
        set_target: Callable[[str], None],
        show_window: Callable[[], None],
        quit: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._toggle = toggle
        self._show_window = show_window
        self.idle_icon = app_icon()
        self.listening_icon = listening_icon(self.idle_icon)

        self.menu = QMenu()  # the tray does not own its menu: kept here
        self.toggle_action = QAction("&Start dictation", self.menu)
        self.toggle_action.triggered.connect(lambda _checked=False: toggle())
        self.menu.addAction(self.toggle_action)
        self.target_menu = self.menu.addMenu("Type &into")
        self.target_group = QActionGroup(self.target_menu)
        self.target_group.setExclusive(True)
        self.target_actions: dict[str, QAction] = {}
        for value, text in TARGETS:
            action = QAction(text, self.target_group)
            action.setCheckable(True)
            action.setData(value)
            action.triggered.connect(lambda _checked=False, value=value: set_target(value))
            self.target_menu.addAction(action)
            self.target_actions[value] = action
        self.menu.addSeparator()
        self.show_action = QAction("Show &window", self.menu)
        self.show_action.triggered.connect(lambda _checked=False: show_window())
        self.menu.addAction(self.show_action)
        self.quit_action = QAction("&Quit", self.menu)
        self.quit_action.triggered.connect(lambda _checked=False: quit())
        self.menu.addAction(self.quit_action)
        self.setContextMenu(self.menu)
        self.activated.connect(self._on_activated)

        self.listening = False
        self.target = "window"
        self.set_state(False, "window")

    def set_state(self, listening: bool, target: str) -> None:
        """Show whether dictation is on (icon, tooltip, the first menu entry) and where the text
        goes (the checked "Type into" entry). Calls none of the callbacks."""
        self.listening = listening
        self.target = target
        self.toggle_action.setText("&Stop dictation" if listening else "&Start dictation")
        self.setIcon(self.listening_icon if listening else self.idle_icon)
        where = "other applications" if target == "apps" else "this window"
        state = "listening" if listening else "idle"
        self.setToolTip(f"dictate — {state} (types into {where})")
        for value, action in self.target_actions.items():
            action.setChecked(value == target)

    def _on_activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        """A click brings the window up; a middle click starts or stops dictation."""
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self._show_window()
        elif reason == QSystemTrayIcon.ActivationReason.MiddleClick:
            self._toggle()


def create_tray(
    toggle: Callable[[], None],
    set_target: Callable[[str], None],
    show_window: Callable[[], None],
    quit: Callable[[], None],
    parent: QObject | None = None,
) -> DictationTray | None:
    """The tray icon, shown; None where the desktop has no system tray."""
    if not QSystemTrayIcon.isSystemTrayAvailable():
        log.info("no system tray here; dictate runs without a tray icon")
        return None
    tray = DictationTray(toggle, set_target, show_window, quit, parent)
    tray.show()
    return tray


def app_icon() -> QIcon:
    """The app's icon (``assets/dictate.svg``), or the application's window icon."""
    from dictate.paths import asset_path

    try:
        return QIcon(str(asset_path("dictate.svg")))
    except FileNotFoundError as exc:
        log.warning("%s", exc)
        return QApplication.windowIcon()


def listening_icon(base: QIcon) -> QIcon:
    """The app icon with a red dot in its lower right corner: dictation is on."""
    pixmap = base.pixmap(_ICON_SIZE, _ICON_SIZE)
    if pixmap.isNull():
        pixmap = QPixmap(_ICON_SIZE, _ICON_SIZE)
        pixmap.fill(QColor("#2b5797"))
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(QPen(QColor("white"), _ICON_SIZE / 20))
    painter.setBrush(QBrush(QColor("#d32f2f"), Qt.BrushStyle.SolidPattern))
    radius = _ICON_SIZE * 0.22
    centre = QPointF(_ICON_SIZE - radius - 2, _ICON_SIZE - radius - 2)
    painter.drawEllipse(centre, radius, radius)
    painter.end()
    return QIcon(pixmap)


def attach_tray(window: Any) -> DictationTray | None:
    """``window``'s tray icon (where the desktop has a tray): its state follows the window's
    controller and its target; start/stop, target and quit act on the window."""

    def show() -> None:
        window.showNormal()
        window.raise_()
        window.activateWindow()

    dictation = window.dictation
    tray = create_tray(dictation.toggle, dictation.set_target, show, window.close, window)
    if tray is None:
        return None

    def update(state: State | None = None) -> None:
        state = state or window.controller.state
        tray.set_state(state in (State.STARTING, State.LISTENING), window.settings.target)

    update()
    window.controller.stateChanged.connect(update)
    window.dictation.targetChanged.connect(lambda _target: update())
    window.event_view.asleepChanged.connect(
        lambda asleep: tray.setToolTip(
            "dictate: Asleep: say \u201cwake up\u201d to dictate again" if asleep else "dictate"
        )
    )
    return tray
