"""Windows: ``SendInput`` with ``KEYEVENTF_UNICODE`` events (not tested here)."""

from __future__ import annotations

import ctypes

from dictate.errors import TypingError
from dictate.output.backends.keys import key_for

# Virtual-key codes of winuser.h: VK_RETURN, VK_TAB, VK_ESCAPE. Written from the Windows
# documentation and not run here (Windows only), like the rest of this backend.
_VKS = {"enter": 0x0D, "tab": 0x09, "escape": 0x1B}


class SendInputBackend:  # pragma: no cover - Windows only, not tested here
    """Windows: ``SendInput`` with one ``KEYEVENTF_UNICODE`` event pair per UTF-16 unit."""

    name = "sendinput"
    takes_back = True
    _KEYUP, _UNICODE = 0x0002, 0x0004
    _VK_BACK = 0x08

    def __init__(self) -> None:
        from ctypes import wintypes

        class KEYBDINPUT(ctypes.Structure):
            _fields_ = [
                ("wVk", wintypes.WORD),
                ("wScan", wintypes.WORD),
                ("dwFlags", wintypes.DWORD),
                ("time", wintypes.DWORD),
                ("dwExtraInfo", ctypes.c_size_t),
            ]

        class MOUSEINPUT(ctypes.Structure):  # the largest member of the union sets its size
            _fields_ = [
                ("dx", wintypes.LONG),
                ("dy", wintypes.LONG),
                ("mouseData", wintypes.DWORD),
                ("dwFlags", wintypes.DWORD),
                ("time", wintypes.DWORD),
                ("dwExtraInfo", ctypes.c_size_t),
            ]

        class _UNION(ctypes.Union):
            _fields_ = [("ki", KEYBDINPUT), ("mi", MOUSEINPUT)]

        class INPUT(ctypes.Structure):
            _fields_ = [("type", wintypes.DWORD), ("union", _UNION)]

        self._input, self._keybd = INPUT, KEYBDINPUT
        self._user32 = ctypes.WinDLL("user32", use_last_error=True)  # type: ignore[attr-defined]

    def _send(self, events: list[tuple[int, int, int]]) -> None:
        inputs = (self._input * len(events))()
        for i, (vk, scan, flags) in enumerate(events):
            inputs[i].type = 1  # INPUT_KEYBOARD
            inputs[i].union.ki = self._keybd(vk, scan, flags, 0, 0)
        sent = self._user32.SendInput(len(events), inputs, ctypes.sizeof(self._input))
        if sent != len(events):
            raise TypingError(
                f"SendInput typed {sent} of {len(events)} key events (error "
                f"{ctypes.get_last_error()}); the focused window may be an elevated one"  # type: ignore[attr-defined]
            )

    def type_text(self, text: str) -> None:
        data = text.encode("utf-16-le")
        units = [int.from_bytes(data[i : i + 2], "little") for i in range(0, len(data), 2)]
        events = []
        for unit in units:
            events += [(0, unit, self._UNICODE), (0, unit, self._UNICODE | self._KEYUP)]
        if events:
            self._send(events)

    def press_return(self, count: int = 1) -> None:
        self._tap(_VKS["enter"], count)

    def press_key(self, name: str) -> None:
        self._tap(key_for(name, _VKS, self.name), 1)

    def backspace(self, count: int) -> None:
        self._tap(self._VK_BACK, count)

    def _tap(self, vk: int, count: int) -> None:
        """Press and release the virtual key ``vk`` ``count`` times, in one SendInput call."""
        if count > 0:
            self._send([(vk, 0, 0), (vk, 0, self._KEYUP)] * count)

    def focused_window(self) -> str | None:
        return str(self._user32.GetForegroundWindow() or "") or None
