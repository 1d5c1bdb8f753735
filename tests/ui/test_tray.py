"""The tray icon, offscreen: its menu calls the callbacks, and follows set_state."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtWidgets import QSystemTrayIcon
from pytestqt.qtbot import QtBot

from dictate.ui.tray import DictationTray, create_tray


@pytest.fixture
def calls() -> list[str]:
    return []


@pytest.fixture
def tray(qtbot: QtBot, calls: list[str]) -> Iterator[DictationTray]:
    icon = DictationTray(
        toggle=lambda: calls.append("toggle"),
        set_target=lambda target: calls.append(f"target {target}"),
        show_window=lambda: calls.append("show"),
        quit=lambda: calls.append("quit"),
    )
    yield icon
    icon.menu.deleteLater()
    icon.deleteLater()


def texts(tray: DictationTray) -> list[str]:
    return [a.text() for a in tray.menu.actions() if not a.isSeparator()]


def test_the_menu_and_its_callbacks(tray: DictationTray, calls: list[str]) -> None:
    assert texts(tray) == ["&Start dictation", "Type &into", "Show &window", "&Quit"]
    assert tray.contextMenu() is tray.menu
    assert [a.text() for a in tray.target_menu.actions()] == [
        "&This window",
        "&Other applications",
    ]
    tray.toggle_action.trigger()
    tray.target_actions["apps"].trigger()
    tray.target_actions["window"].trigger()
    tray.show_action.trigger()
    tray.quit_action.trigger()
    assert calls == ["toggle", "target apps", "target window", "show", "quit"]


def test_set_state_moves_the_texts_checks_icon_and_tooltip(
    tray: DictationTray, calls: list[str]
) -> None:
    assert tray.toolTip() == "dictate — idle (types into this window)"
    assert tray.target_actions["window"].isChecked()
    assert not tray.target_actions["apps"].isChecked()
    idle_icon = tray.icon().cacheKey()

    tray.set_state(True, "apps")
    assert tray.toggle_action.text() == "&Stop dictation"
    assert tray.toolTip() == "dictate — listening (types into other applications)"
    assert tray.target_actions["apps"].isChecked()
    assert not tray.target_actions["window"].isChecked()
    assert tray.icon().cacheKey() != idle_icon
    assert not tray.listening_icon.pixmap(32, 32).isNull()

    tray.set_state(False, "window")
    assert tray.toggle_action.text() == "&Start dictation"
    assert tray.toolTip() == "dictate — idle (types into this window)"
    assert tray.target_actions["window"].isChecked()
    assert tray.icon().cacheKey() == idle_icon
    assert calls == []  # showing the state calls nothing back


def test_the_targets_are_exclusive(tray: DictationTray, calls: list[str]) -> None:
    tray.target_actions["apps"].trigger()
    assert tray.target_actions["apps"].isChecked()
    assert not tray.target_actions["window"].isChecked()
    tray.target_actions["apps"].trigger()  # checking the checked one keeps it checked
    assert tray.target_actions["apps"].isChecked()
    assert calls == ["target apps", "target apps"]


def test_clicks_on_the_icon(tray: DictationTray, calls: list[str]) -> None:
    reason = QSystemTrayIcon.ActivationReason
    tray.activated.emit(reason.Trigger)
    tray.activated.emit(reason.MiddleClick)
    tray.activated.emit(reason.Context)  # the menu opens by itself
    assert calls == ["show", "toggle"]


def test_no_tray_where_the_desktop_has_none(qtbot: QtBot) -> None:
    assert not QSystemTrayIcon.isSystemTrayAvailable()  # the offscreen platform
    assert create_tray(lambda: None, lambda t: None, lambda: None, lambda: None) is None
