"""The title of the window text is typed into, for the dictation history: where it can be known
(X11, through ``xdotool getwindowname``, or a backend's own ``window_title()``), else None (the
history says "other application")."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
from typing import Any

log = logging.getLogger("dictate.typing")

X11_BACKENDS = ("xtest", "xdotool")
"""The backends whose :meth:`focused_window` is an X window id."""


def window_title(backend: Any) -> str | None:
    """The title of the window with the keyboard focus, as ``backend`` types into it; None
    where it cannot be known. Never raises."""
    own = getattr(backend, "window_title", None)
    try:
        if callable(own):
            return own() or None
        if getattr(backend, "name", "") not in X11_BACKENDS or not os.environ.get("DISPLAY"):
            return None
        window = backend.focused_window()
        xdotool = shutil.which("xdotool")
        if not window or not window.isdigit() or xdotool is None:
            return None
        result = subprocess.run(
            [xdotool, "getwindowname", window], capture_output=True, text=True, timeout=2
        )
    except Exception as exc:  # a title is a nicety: typing goes on without it
        log.debug("no window title: %s", exc)
        return None
    title = result.stdout.strip()
    return title if result.returncode == 0 and title else None
