"""macOS: Quartz keyboard events (not tested here)."""

from __future__ import annotations

import ctypes

from dictate.errors import TypingError
from dictate.output.backends.keys import key_for

# Virtual key codes of Carbon's Events.h (kVK_Return 0x24, kVK_Tab 0x30, kVK_Escape 0x35), which
# do not depend on the layout. Written from Apple's headers and not run here (macOS only), like
# the rest of this backend.
_KEYS = {"enter": 36, "tab": 48, "escape": 53}


class QuartzBackend:  # pragma: no cover - macOS only, not tested here
    """macOS: Quartz keyboard events carrying Unicode strings (``CGEventKeyboardSetUnicodeString``).
    The app needs the accessibility permission (System Settings > Privacy & Security >
    Accessibility) or the events are silently dropped."""

    name = "quartz"
    takes_back = True
    _DELETE = 51  # kVK_Delete (BackSpace)
    _HID_EVENT_TAP = 0

    def __init__(self) -> None:
        path = "/System/Library/Frameworks/ApplicationServices.framework/ApplicationServices"
        self._cg = ctypes.cdll.LoadLibrary(path)
        self._cg.CGEventCreateKeyboardEvent.restype = ctypes.c_void_p
        self._cg.CGEventCreateKeyboardEvent.argtypes = [
            ctypes.c_void_p,
            ctypes.c_uint16,
            ctypes.c_bool,
        ]
        self._cg.CGEventKeyboardSetUnicodeString.argtypes = [
            ctypes.c_void_p, ctypes.c_ulong, ctypes.POINTER(ctypes.c_uint16)
        ]  # fmt: skip
        self._cg.CGEventPost.argtypes = [ctypes.c_uint32, ctypes.c_void_p]
        self._cf = ctypes.cdll.LoadLibrary(
            "/System/Library/Frameworks/CoreFoundation.framework/CoreFoundation"
        )
        self._cf.CFRelease.argtypes = [ctypes.c_void_p]
        trusted = getattr(self._cg, "AXIsProcessTrusted", None)
        if trusted is not None and not trusted():
            raise TypingError(
                "macOS does not let dictate type into other applications yet: allow it in "
                "System Settings > Privacy & Security > Accessibility, then try again"
            )

    def _post(self, key: int, text: str = "") -> None:
        for down in (True, False):
            event = self._cg.CGEventCreateKeyboardEvent(None, key, down)
            if text:
                data = text.encode("utf-16-le")
                units = (ctypes.c_uint16 * (len(data) // 2)).from_buffer_copy(data)
                self._cg.CGEventKeyboardSetUnicodeString(event, len(units), units)
            self._cg.CGEventPost(self._HID_EVENT_TAP, event)
            self._cf.CFRelease(event)

    def type_text(self, text: str) -> None:
        # Quartz takes at most 20 UTF-16 units per event.
        chunk = ""
        for char in text:
            if len((chunk + char).encode("utf-16-le")) // 2 > 20:
                self._post(0, chunk)
                chunk = ""
            chunk += char
        if chunk:
            self._post(0, chunk)

    def press_return(self, count: int = 1) -> None:
        for _ in range(count):
            self._post(_KEYS["enter"])

    def press_key(self, name: str) -> None:
        self._post(key_for(name, _KEYS, self.name))

    def backspace(self, count: int) -> None:
        for _ in range(count):
            self._post(self._DELETE)

    def focused_window(self) -> str | None:
        return None
