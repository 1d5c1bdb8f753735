"""Which typing backend to use here: the user's choice, or the first that works on this
platform and session (:func:`choose_backend`)."""

from __future__ import annotations

import logging
import os
import shutil
import sys
from collections.abc import Callable, Mapping
from typing import Any

from dictate.errors import TypingError
from dictate.output.backends import Backend
from dictate.output.backends.clipboard import ClipboardBackend
from dictate.output.backends.dotool import DotoolBackend
from dictate.output.backends.wayland import has_virtual_keyboard
from dictate.output.backends.wtype import WtypeBackend
from dictate.output.backends.xdotool import XdotoolBackend
from dictate.output.backends.ydotool import YdotoolBackend

BACKENDS = ("xtest", "xdotool", "wtype", "dotool", "ydotool", "sendinput", "quartz", "clipboard")
log = logging.getLogger("dictate.typing")


def _session(env: Mapping[str, str]) -> str:
    """ "wayland", "x11" or "" (no graphical session)."""
    kind = env.get("XDG_SESSION_TYPE", "").lower()
    if kind in ("wayland", "x11"):
        return kind
    if env.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "x11" if env.get("DISPLAY") else ""


_NO_VIRTUAL_KEYBOARD = ("GNOME", "KDE", "PANTHEON", "UNITY")
"""Wayland desktops whose compositor (Mutter, KWin, Gala) has no virtual-keyboard protocol:
wtype cannot type there ("Compositor does not support the virtual keyboard protocol")."""


def _desktop(env: Mapping[str, str]) -> str:
    return env.get("XDG_CURRENT_DESKTOP") or env.get("XDG_SESSION_DESKTOP") or ""


def virtual_keyboard(env: Mapping[str, str]) -> bool:
    """Whether wtype can type on the Wayland session in ``env``: the compositor is asked for
    its interfaces; where it cannot be asked, the desktop's name decides (wlroots compositors,
    sway, Hyprland, river, labwc, Wayfire, have the protocol; GNOME and KDE do not)."""
    offered = has_virtual_keyboard(env)
    if offered is not None:
        return offered
    names = {name.strip().upper() for name in _desktop(env).split(":")}
    return not names & set(_NO_VIRTUAL_KEYBOARD)


def _make(
    name: str, clipboard: Callable[[str], None] | None, env: Mapping[str, str] | None = None
) -> Backend:
    if name == "clipboard":
        return ClipboardBackend(clipboard)
    if name == "sendinput":
        if sys.platform != "win32":
            raise TypingError("the sendinput backend works on Windows only")
        from dictate.output.backends.sendinput import SendInputBackend

        return SendInputBackend()
    if name == "quartz":
        if sys.platform != "darwin":
            raise TypingError("the quartz backend works on macOS only")
        from dictate.output.backends.quartz import QuartzBackend

        return QuartzBackend()
    if name == "xtest":
        if sys.platform != "linux":
            raise TypingError("the xtest backend works on Linux (X11) only")
        from dictate.output.backends.xtest import XTestBackend

        return XTestBackend(display=(os.environ if env is None else env).get("DISPLAY"))
    classes: dict[str, Any] = {
        "xdotool": XdotoolBackend,
        "wtype": WtypeBackend,
        "dotool": DotoolBackend,
        "ydotool": YdotoolBackend,
    }
    if name not in classes:
        raise TypingError(f"unknown typing backend {name!r}; choose one of {', '.join(BACKENDS)}")
    if shutil.which(name) is None:
        raise TypingError(
            f"the {name} typing backend needs the {name} program, which is not installed"
        )
    backend: Backend = classes[name]()
    return backend


def choose_backend(
    preference: str | None = None,
    *,
    clipboard_fallback: bool = False,
    clipboard: Callable[[str], None] | None = None,
    env: Mapping[str, str] | None = None,
) -> Backend:
    """The typing backend to use.

    Args:
        preference: A name from :data:`BACKENDS`, or None to choose by platform and session:
            Windows SendInput, macOS Quartz, X11 xtest (or xdotool, dotool); on Wayland
            wtype where the compositor has the virtual-keyboard protocol (wlroots: sway,
            Hyprland, river...), else dotool or ydotool (GNOME, KDE); see
            :func:`virtual_keyboard`.
        clipboard_fallback: Use the clipboard when no backend can type.
        clipboard: How to put text on the clipboard (the window passes Qt's).
        env: The environment to read the session from (default ``os.environ``).

    Raises:
        TypingError: No backend can type here; the message names what to install or turn on.
    """
    if preference:
        return _make(preference, clipboard)
    env = os.environ if env is None else env
    if sys.platform == "win32":
        return _make("sendinput", clipboard)
    if sys.platform == "darwin":
        return _make("quartz", clipboard)
    session = _session(env)
    if session == "x11":
        try:
            return _make("xtest", clipboard, env)
        except TypingError as exc:
            log.info("xtest cannot type here (%s); trying the typing programs", exc)
    keyboard = session == "wayland" and virtual_keyboard(env)
    candidates = {"wayland": ("dotool", "ydotool"), "x11": ("xdotool", "dotool")}.get(session, ())
    if keyboard:
        candidates = ("wtype", *candidates)
    elif session == "wayland":
        log.info("no virtual-keyboard protocol on %s: wtype cannot type", _desktop(env) or "it")
    for name in candidates:
        if shutil.which(name):
            return _make(name, clipboard)
    if clipboard_fallback:
        return _make("clipboard", clipboard)
    if not session:
        raise TypingError(
            "there is no graphical session to type into (neither DISPLAY nor WAYLAND_DISPLAY "
            "is set)"
        )
    if session == "x11":
        need = "install xdotool (e.g. sudo apt install xdotool)"
    elif keyboard:
        need = "install wtype (sway, Hyprland, river and other wlroots desktops), dotool or ydotool"
    else:
        need = (
            f"this desktop ({_desktop(env) or 'its compositor'}) has no virtual-keyboard "
            "protocol, so wtype cannot type here: install dotool or ydotool (they type through "
            "/dev/uinput)"
        )
    raise TypingError(
        f"cannot type into other applications on this {session} session: {need}, or turn on "
        "the clipboard fallback in Settings"
    )
