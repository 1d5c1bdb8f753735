"""A global keyboard shortcut that starts and stops dictation from any application.

Where the platform lets an application take a key combination for itself:

* **X11**: ``XGrabKey`` on the root window through python-xlib (tested here under Xvfb); the
  grab is made for every combination of Caps Lock and Num Lock, so they do not block it. Key
  releases are reported too (the keyboard's auto-repeat left out), for push-to-talk.
* **Wayland**: the XDG GlobalShortcuts portal where the desktop has one (KDE Plasma, GNOME 48+,
  Hyprland; :mod:`dictate.ui.portal_shortcuts`, tested against a stand-in portal). Elsewhere
  (sway and other wlroots desktops, older GNOME) no client can take a key: bind ``dictate
  toggle`` (or ``dictate start`` / ``dictate stop`` on press and release) in the desktop's own
  keyboard settings; :data:`DESKTOP_BINDINGS` says how, and the Settings dialog shows it.
* **Windows**: ``RegisterHotKey`` (written against its documented API, not tested here; no
  release, so no push-to-talk).
* **macOS**: not taken by the app.

The shortcut is written as Qt writes key sequences: ``Ctrl+Alt+D``, ``Meta+F9``.
"""

from __future__ import annotations

import logging
import os
import select
import sys
import threading
from typing import Any

from PySide6.QtCore import QObject, Signal

log = logging.getLogger("dictate.ui")

_MODIFIERS = {"ctrl": "ControlMask", "control": "ControlMask", "alt": "Mod1Mask",
              "shift": "ShiftMask", "meta": "Mod4Mask", "super": "Mod4Mask"}  # fmt: skip


DESKTOP_BINDINGS = (
    "GNOME: Settings > Keyboard > View and Customise Shortcuts > Custom Shortcuts > +, "
    "command: dictate toggle",
    "KDE Plasma: System Settings > Keyboard > Shortcuts > Add New > Command or Script, "
    "command: dictate toggle",
    "sway (~/.config/sway/config): bindsym Ctrl+Alt+d exec dictate toggle; push-to-talk: "
    "bindsym --no-repeat Ctrl+Alt+d exec dictate start and "
    "bindsym --release Ctrl+Alt+d exec dictate stop",
)
"""How to bind the shortcut in a desktop's own settings where the app cannot take it."""


def can_take_shortcuts(env: dict[str, str] | None = None) -> bool:
    """Whether the app can likely take a global shortcut itself here: Windows, X11, or a
    Wayland session whose desktop has the GlobalShortcuts portal (KDE, GNOME, Hyprland; not
    sway and other wlroots desktops)."""
    env = dict(os.environ) if env is None else env
    if sys.platform == "win32":
        return True
    if sys.platform == "darwin":
        return False
    wayland = env.get("XDG_SESSION_TYPE") == "wayland" or (
        env.get("WAYLAND_DISPLAY") and not env.get("DISPLAY")
    )
    if not wayland:
        return bool(env.get("DISPLAY"))
    desktop = env.get("XDG_CURRENT_DESKTOP", "").lower()
    return any(name in desktop for name in ("kde", "gnome", "hyprland"))


class HotkeyError(Exception):
    """The shortcut cannot be taken (taken by another application, unknown key, no X11)."""


def parse_shortcut(text: str) -> tuple[list[str], str]:
    """(modifier names, key name) of a shortcut like ``Ctrl+Alt+D``.

    Raises:
        HotkeyError: No key, or a modifier that is not Ctrl, Alt, Shift or Meta.
    """
    parts = [p.strip() for p in text.split("+") if p.strip()]
    if not parts:
        raise HotkeyError("the shortcut is empty")
    *mods, key = parts
    unknown = [m for m in mods if m.lower() not in _MODIFIERS]
    if unknown:
        raise HotkeyError(f"{unknown[0]!r} is not a modifier (use Ctrl, Alt, Shift or Meta)")
    if not mods and not (key.upper().startswith("F") and key[1:].isdigit()):
        raise HotkeyError(f"{text!r} has no modifier: every key press of {key} would toggle")
    return [m.lower() for m in mods], key


class GlobalHotkey(QObject):
    """Emits :attr:`activated` when the shortcut is pressed anywhere (see the module docstring).

    Args:
        shortcut: Like ``Ctrl+Alt+D``.

    Raises:
        HotkeyError: This platform or session cannot take a global shortcut, or this one is
            taken or invalid; the message says which and what to do instead.
    """

    activated = Signal()
    """The shortcut was pressed (toggle)."""
    released = Signal()
    """The shortcut was let go (push-to-talk; X11 and the portal report it)."""

    def __init__(self, shortcut: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.shortcut = shortcut
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._portal: Any = None
        self.reports_release = False
        """Whether :attr:`released` will come (push-to-talk can work)."""
        mods, key = parse_shortcut(shortcut)
        wayland = os.environ.get("XDG_SESSION_TYPE") == "wayland" or (
            os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("DISPLAY")
        )
        if sys.platform == "win32":  # pragma: no cover - not tested here
            self._start_windows(mods, key)
        elif os.environ.get("DISPLAY") and not wayland:
            self._start_x11(mods, key)
            self.reports_release = True
        elif sys.platform.startswith("linux"):
            self._start_portal(mods, key)
            self.reports_release = True
        else:
            raise HotkeyError(
                "this desktop does not let an application take a global shortcut; bind "
                "`dictate toggle` to a key in the desktop's keyboard settings instead"
            )

    # -- Wayland: the GlobalShortcuts portal ---------------------------------------------------

    def _start_portal(self, mods: list[str], key: str) -> None:
        from dictate.ui.portal_shortcuts import PortalError, PortalShortcut, portal_trigger

        try:
            self._portal = PortalShortcut(
                portal_trigger(mods, key),
                "Start or stop dictation",
                self.activated.emit,  # queued to the GUI thread by Qt
                self.released.emit,
            )
        except PortalError as exc:
            raise HotkeyError(
                f"{exc}; bind `dictate toggle` to a key in the desktop's keyboard settings "
                "instead (Settings shows how)"
            ) from None

    # -- X11 ---------------------------------------------------------------------------------

    def _start_x11(self, mods: list[str], key: str) -> None:
        from Xlib import XK, X, error
        from Xlib.display import Display

        try:
            display = Display()
        except Exception as exc:  # Xlib raises its own DisplayError family
            raise HotkeyError(f"cannot open the X display for the shortcut: {exc}") from None
        keysym = XK.string_to_keysym(key) or XK.string_to_keysym(key.lower())
        keycode = display.keysym_to_keycode(keysym) if keysym else 0
        if not keycode:
            display.close()
            raise HotkeyError(f"{key!r} is not a key this keyboard has")
        mask = 0
        for mod in mods:
            mask |= getattr(X, _MODIFIERS[mod])
        root = display.screen().root
        failed: list[Any] = []
        self._grabs = [
            mask | extra for extra in (0, X.LockMask, X.Mod2Mask, X.LockMask | X.Mod2Mask)
        ]
        catcher = error.CatchError(error.BadAccess)
        for grab in self._grabs:
            root.grab_key(keycode, grab, True, X.GrabModeAsync, X.GrabModeAsync, onerror=catcher)
        display.sync()
        if catcher.get_error():
            failed.append(catcher.get_error())
        if failed:
            for grab in self._grabs:
                root.ungrab_key(keycode, grab)
            display.close()
            raise HotkeyError(
                f"{self.shortcut} is taken by another application; choose another shortcut in "
                "Settings"
            )
        self._display, self._root, self._keycode = display, root, keycode
        self._thread = threading.Thread(target=self._x11_loop, name="dictate-hotkey", daemon=True)
        self._thread.start()
        log.info("global shortcut %s taken (X11)", self.shortcut)

    def _x11_loop(self) -> None:
        from Xlib import X

        display = self._display
        held = False
        release: Any = None  # a release that may be auto-repeat: decided by the next event
        while not self._stop.is_set():
            if not display.pending_events():
                # A repeat's press comes at once after its release: 50 ms without one is a
                # real release.
                select.select([display.fileno()], [], [], 0.05 if release is not None else 0.2)
                if not display.pending_events():
                    if release is not None:
                        release, held = None, False
                        self.released.emit()
                    continue
            event = display.next_event()
            if event.type not in (X.KeyPress, X.KeyRelease) or event.detail != self._keycode:
                continue
            if release is not None:
                if event.type == X.KeyPress and event.time == release.time:
                    release = None  # the keyboard's auto-repeat while the key is held
                    continue
                release, held = None, False
                self.released.emit()
            if event.type == X.KeyRelease:
                release = event
            elif not held:
                held = True
                self.activated.emit()  # queued to the GUI thread by Qt

    # -- Windows -----------------------------------------------------------------------------

    def _start_windows(self, mods: list[str], key: str) -> None:  # pragma: no cover
        import ctypes
        from ctypes import wintypes

        flags = {"alt": 0x1, "ctrl": 0x2, "control": 0x2, "shift": 0x4, "meta": 0x8, "super": 0x8}
        modifiers = 0x4000  # MOD_NOREPEAT
        for mod in mods:
            modifiers |= flags[mod]
        if len(key) == 1:
            vk = ord(key.upper())
        elif key.upper().startswith("F") and key[1:].isdigit():
            vk = 0x6F + int(key[1:])  # VK_F1 is 0x70
        else:
            raise HotkeyError(f"{key!r} cannot be a global shortcut key here")
        user32 = ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined]
        ready = threading.Event()
        errors: list[str] = []

        def loop() -> None:
            # RegisterHotKey posts WM_HOTKEY to the registering thread's message queue.
            if not user32.RegisterHotKey(None, 1, modifiers, vk):
                errors.append(f"{self.shortcut} is taken by another application")
                ready.set()
                return
            ready.set()
            msg = wintypes.MSG()
            while not self._stop.is_set() and user32.GetMessageW(ctypes.byref(msg), None, 0, 0):
                if msg.message == 0x0312:  # WM_HOTKEY
                    self.activated.emit()
            user32.UnregisterHotKey(None, 1)

        self._thread = threading.Thread(target=loop, name="dictate-hotkey", daemon=True)
        self._thread.start()
        ready.wait(5)
        if errors:
            raise HotkeyError(errors[0] + "; choose another shortcut in Settings")

    # -- both --------------------------------------------------------------------------------

    def close(self) -> None:
        """Give the shortcut back."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(2)
        if self._portal is not None:
            self._portal.close()
            self._portal = None
        display = self.__dict__.pop("_display", None)
        if display is not None:
            for grab in self._grabs:
                self._root.ungrab_key(self._keycode, grab)
            display.close()
