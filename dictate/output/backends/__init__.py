"""The typing backends: how keys reach whichever application has the keyboard focus.

One interface (:class:`Backend`) with a backend per platform, a module each, chosen by
:func:`dictate.output.chooser.choose_backend` (or by the user in Settings):

========== ============================================================ ====================
backend    how                                                          tested here
========== ============================================================ ====================
xtest      X11: XTEST key events from this process (python-xlib); a     yes, under Xvfb
           character the map lacks gets a spare keycode of its own that
           stays mapped while a busy receiver may still read it
           (:mod:`dictate.output.backends.xtest`)
xdotool    X11: XTest key events through ``xdotool`` (Unicode through   yes, under Xvfb
           a spare keycode it remaps each time: a busy receiver can
           miss those characters)
wtype      Wayland with the virtual-keyboard protocol (wlroots: sway,   yes, headless sway
           Hyprland, river; not GNOME or KDE), waiting for the keymap
           before the first key (:mod:`dictate.output.backends.wtype`)
dotool     Wayland or X11: uinput, reads commands on stdin              no (no uinput here)
ydotool    Wayland or X11: uinput through ``ydotoold``; refuses text    no (no uinput here)
           outside ASCII, which it would drop
sendinput  Windows: ``SendInput`` with ``KEYEVENTF_UNICODE`` events     no
quartz     macOS: Quartz keyboard events (needs the accessibility       no
           permission: System Settings > Privacy & Security)
clipboard  anywhere: each sentence is put on the clipboard to paste      yes (X11 clipboard)
========== ============================================================ ====================

On Wayland the choice asks the compositor which interfaces it offers
(:mod:`dictate.output.backends.wayland`): wtype where it has the virtual-keyboard protocol,
else dotool or ydotool. The XDG desktop portal's RemoteDesktop keyboard (GNOME, KDE) is not
implemented: it needs an interactive session grant; on GNOME and KDE Wayland use ``dotool`` or
``ydotool``, or the clipboard.

The keys said ("press enter", "press tab", "press escape") are each backend's ``press_key``: X
keysyms Return, Tab and Escape (xtest, xdotool, wtype), Linux key codes (dotool by name, ydotool
by number), Windows and macOS virtual keys; the clipboard adds Enter and Tab to the next text
and leaves Escape out.

What was typed where is kept by :class:`dictate.output.typist.Typist`.
"""

from __future__ import annotations

import logging
from typing import Protocol

from dictate.editing.text import joins_previous
from dictate.errors import TypingError

log = logging.getLogger("dictate.typing")


class Backend(Protocol):
    """Sends key events to the focused window."""

    name: str
    takes_back: bool
    """Whether :meth:`backspace` can remove what was typed ("scratch that"); False where
    nothing is typed (the clipboard)."""

    def type_text(self, text: str) -> None:
        """Type ``text`` (no line breaks: see :meth:`press_return`)."""

    def press_return(self, count: int = 1) -> None:
        """Press Return ``count`` times."""

    # Every backend here also has ``press_key(name)``, which presses "enter", "tab" or "escape"
    # (:data:`dictate.output.backends.keys.KEYS`; another name is a TypingError). It is called
    # through :func:`press_key`, so that a backend without it (a test's) still types.

    def backspace(self, count: int) -> None:
        """Press BackSpace ``count`` times."""

    def focused_window(self) -> str | None:
        """An identity of the window with the keyboard focus, or None if it cannot be known."""


def keystrokes(text: str) -> int:
    """How many BackSpace presses remove ``text`` in a typical editor: one per user-perceived
    character (combining marks, zero-width joiners, variation selectors and skin-tone
    modifiers join the character before them)."""
    count = 0
    join_next = False
    for char in text:
        if not joins_previous(char) and not join_next:
            count += 1
        join_next = char == "\u200d"
    return count


def close_backend(backend: Backend) -> None:
    """Let ``backend`` put back what it changed (xtest's spare keycodes), where it has any."""
    close = getattr(backend, "close", None)
    if close is not None:
        close()


def press_key(backend: Backend, name: str) -> None:
    """Press the key ``name`` ("enter", "tab" or "escape") in the focused window. A backend
    without ``press_key`` presses Return for "enter" and refuses the others."""
    press = getattr(backend, "press_key", None)
    if press is not None:
        press(name)
    elif name == "enter":
        backend.press_return()
    else:
        raise TypingError(f"the {backend.name} typing backend cannot press {name}")


def type_into(backend: Backend, text: str) -> None:
    """Type ``text``, pressing Return for each line break."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if i:
            backend.press_return()
        backend.type_text(line)
