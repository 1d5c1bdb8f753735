"""Typing dictated text into whichever application has the keyboard focus.

One interface (:class:`Backend`) with a backend per platform, chosen by :func:`choose_backend`
(or by the user in Settings):

========== ============================================================ ====================
backend    how                                                          tested here
========== ============================================================ ====================
xtest      X11: XTEST key events from this process (python-xlib); a     yes, under Xvfb
           character the map lacks gets a spare keycode of its own that
           stays mapped while a busy receiver may still read it
           (:mod:`dictate.output.xtest`)
xdotool    X11: XTest key events through ``xdotool`` (Unicode through   yes, under Xvfb
           a spare keycode it remaps each time: a busy receiver can
           miss those characters)
wtype      Wayland (wlroots, KDE): the virtual-keyboard protocol         no
dotool     Wayland or X11: uinput, reads commands on stdin              no
ydotool    Wayland or X11: uinput through ``ydotoold`` (ASCII only)      no
sendinput  Windows: ``SendInput`` with ``KEYEVENTF_UNICODE`` events     no
quartz     macOS: Quartz keyboard events (needs the accessibility       no
           permission: System Settings > Privacy & Security)
clipboard  anywhere: each sentence is put on the clipboard to paste      yes (X11 clipboard)
========== ============================================================ ====================

The XDG desktop portal's RemoteDesktop keyboard (GNOME on Wayland) is not implemented: it needs
an interactive session grant; on GNOME Wayland use ``dotool`` or ``ydotool``, or the clipboard.

:class:`Typist` keeps what it typed where, so each sentence continues the spacing and capitals
of the one before it in the same window, "scratch that" can press BackSpace over exactly what it
typed, and nothing is deleted once the focus has moved to another window.
"""

from __future__ import annotations

import ctypes
import logging
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from dictate.editing.text import CLOSING_MARKS, fit_to_context, joins_previous, takes_mark
from dictate.errors import DictateError

BACKENDS = ("xtest", "xdotool", "wtype", "dotool", "ydotool", "sendinput", "quartz", "clipboard")
log = logging.getLogger("dictate.typing")
_TIMEOUT = 60.0  # seconds for one typing command (a long sentence at 8 ms a key is ~2 s)


class TypingError(DictateError):
    """Text cannot be typed into other applications (no backend, or the backend failed)."""


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


def _run(command: list[str], name: str, stdin: str | None = None) -> str:
    try:
        result = subprocess.run(
            command, input=stdin, capture_output=True, text=True, timeout=_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise TypingError(f"{name} failed: {exc}") from None
    if result.returncode != 0:
        detail = (result.stderr or result.stdout).strip().splitlines()
        reason = detail[-1] if detail else f"exit status {result.returncode}"
        raise TypingError(f"{name} could not type: {reason}")
    return result.stdout


class XdotoolBackend:
    """X11 through ``xdotool`` (XTest)."""

    name = "xdotool"
    takes_back = True

    def __init__(self, delay_ms: int = 8, remapped_delay_ms: int = 60) -> None:
        self.delay_ms = delay_ms
        self.remapped_delay_ms = remapped_delay_ms

    def type_text(self, text: str) -> None:
        # A character the keyboard map lacks (é, —, emoji) is typed by remapping a spare
        # keycode to it; a busy receiver can read the key after the map has already changed for
        # the next such character and drop it (seen under load: "שלום" arrived as "לום"). So
        # those characters go slowly, in runs of their own; plain ASCII goes fast.
        for run, remapped in _runs(text):
            if not remapped:
                self._type(run, self.delay_ms)
                continue
            for piece, capital in _group(run, lambda char: char.lower() != char):
                if capital:
                    # `xdotool type` remaps a keycode to the keysym alone, and X reads a lone
                    # Latin-1 letter keysym as a lower/upper pair: "É" came out as "é". With
                    # Shift held, the same key gives the capital.
                    keys = [f"shift+U{ord(char):04X}" for char in piece]
                    command = ["xdotool", "key", "--clearmodifiers"]
                    _run([*command, "--delay", str(self.remapped_delay_ms), *keys], self.name)
                else:
                    self._type(piece, self.remapped_delay_ms)

    def _type(self, text: str, delay: int) -> None:
        args = ["xdotool", "type", "--clearmodifiers", "--delay", str(delay)]
        _run([*args, "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        self._key("Return", count)

    def backspace(self, count: int) -> None:
        self._key("BackSpace", count)

    def _key(self, key: str, count: int) -> None:
        if count > 0:
            command = ["xdotool", "key", "--clearmodifiers", "--delay", str(self.delay_ms)]
            _run([*command, "--repeat", str(count), key], self.name)

    def focused_window(self) -> str | None:
        try:
            return _run(["xdotool", "getwindowfocus"], self.name).strip() or None
        except TypingError:
            return None


def _runs(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into runs of printable ASCII and of other characters (True)."""
    return _group(text, lambda char: not (" " <= char <= "~"))


def _group(text: str, kind: Callable[[str], bool]) -> list[tuple[str, bool]]:
    """``text`` cut into runs of characters of one ``kind``."""
    runs: list[tuple[str, bool]] = []
    for char in text:
        this = kind(char)
        if runs and runs[-1][1] == this:
            runs[-1] = (runs[-1][0] + char, this)
        else:
            runs.append((char, this))
    return runs


class WtypeBackend:
    """Wayland compositors with the virtual-keyboard protocol (sway, Hyprland, KDE)."""

    name = "wtype"
    takes_back = True
    SETTLE = ("-s", "50")
    """wtype waits 50 ms before its first key: the compositor has not applied the virtual
    keyboard's keymap before that, and the first key of every call was lost (tried on a
    headless sway: "abc" arrived as "bc" each time; with 10 or 50 ms, 20 of 20 arrived under
    load). Each piece commit on pause types lost its joining space or its mark."""

    def type_text(self, text: str) -> None:
        if text:
            _run(["wtype", *self.SETTLE, "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        if count > 0:
            _run(["wtype", *self.SETTLE, *(["-k", "Return"] * count)], self.name)

    def backspace(self, count: int) -> None:
        if count > 0:
            _run(["wtype", *self.SETTLE, *(["-k", "BackSpace"] * count)], self.name)

    def focused_window(self) -> str | None:
        return None  # Wayland does not tell other clients which window has the focus


class DotoolBackend:
    """``dotool`` (uinput; Wayland and X11): commands on its standard input."""

    name = "dotool"
    takes_back = True

    def type_text(self, text: str) -> None:
        if text:
            _run(["dotool"], self.name, stdin=f"type {text}\n")

    def press_return(self, count: int = 1) -> None:
        if count > 0:
            _run(["dotool"], self.name, stdin="key enter\n" * count)

    def backspace(self, count: int) -> None:
        if count > 0:
            _run(["dotool"], self.name, stdin="key backspace\n" * count)

    def focused_window(self) -> str | None:
        return None


class YdotoolBackend:
    """``ydotool`` (uinput through the ``ydotoold`` daemon). It types by key codes of a US
    layout, so text outside ASCII does not arrive: prefer wtype or dotool."""

    name = "ydotool"
    takes_back = True
    _ENTER, _BACKSPACE = 28, 14  # Linux input event codes

    def type_text(self, text: str) -> None:
        if text:
            _run(["ydotool", "type", "--", text], self.name)

    def press_return(self, count: int = 1) -> None:
        self._key(self._ENTER, count)

    def backspace(self, count: int) -> None:
        self._key(self._BACKSPACE, count)

    def _key(self, code: int, count: int) -> None:
        if count > 0:
            _run(["ydotool", "key", *([f"{code}:1", f"{code}:0"] * count)], self.name)

    def focused_window(self) -> str | None:
        return None


class SendInputBackend:  # pragma: no cover - Windows only, not tested here
    """Windows: ``SendInput`` with one ``KEYEVENTF_UNICODE`` event pair per UTF-16 unit."""

    name = "sendinput"
    takes_back = True
    _KEYUP, _UNICODE = 0x0002, 0x0004
    _VK_RETURN, _VK_BACK = 0x0D, 0x08

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
        self._send([(self._VK_RETURN, 0, 0), (self._VK_RETURN, 0, self._KEYUP)] * count)

    def backspace(self, count: int) -> None:
        if count > 0:
            self._send([(self._VK_BACK, 0, 0), (self._VK_BACK, 0, self._KEYUP)] * count)

    def focused_window(self) -> str | None:
        return str(self._user32.GetForegroundWindow() or "") or None


class QuartzBackend:  # pragma: no cover - macOS only, not tested here
    """macOS: Quartz keyboard events carrying Unicode strings (``CGEventKeyboardSetUnicodeString``).
    The app needs the accessibility permission (System Settings > Privacy & Security >
    Accessibility) or the events are silently dropped."""

    name = "quartz"
    takes_back = True
    _RETURN, _DELETE = 36, 51  # virtual key codes
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
            self._post(self._RETURN)

    def backspace(self, count: int) -> None:
        for _ in range(count):
            self._post(self._DELETE)

    def focused_window(self) -> str | None:
        return None


class ClipboardBackend:
    """The fallback: each sentence goes on the clipboard for the user to paste (Ctrl+V).

    Nothing is typed, so line breaks become part of the next text put on the clipboard and
    nothing can be taken back.

    Args:
        set_text: Puts text on the clipboard (the window passes Qt's clipboard); by default
            ``wl-copy`` on Wayland, ``xclip`` or ``xsel`` on X11.
    """

    name = "clipboard"
    takes_back = False

    def __init__(self, set_text: Callable[[str], None] | None = None) -> None:
        self._set_text = set_text or _command_clipboard()
        self._queued_breaks = ""

    def type_text(self, text: str) -> None:
        self._set_text(self._queued_breaks + text)
        self._queued_breaks = ""

    def press_return(self, count: int = 1) -> None:
        self._queued_breaks += "\n" * count

    def backspace(self, count: int) -> None:
        raise TypingError(
            "text put on the clipboard cannot be taken back; undo it where you pasted"
        )

    def focused_window(self) -> str | None:
        return None


def _command_clipboard() -> Callable[[str], None]:
    env = os.environ
    if env.get("WAYLAND_DISPLAY") and shutil.which("wl-copy"):
        command = ["wl-copy"]
    elif env.get("DISPLAY") and shutil.which("xclip"):
        command = ["xclip", "-selection", "clipboard"]
    elif env.get("DISPLAY") and shutil.which("xsel"):
        command = ["xsel", "--clipboard", "--input"]
    else:
        raise TypingError(
            "no clipboard tool: install wl-clipboard (Wayland) or xclip (X11), or use the window"
        )

    def set_text(text: str) -> None:
        # xclip and wl-copy stay in the background to serve the selection: do not wait for them.
        try:
            process = subprocess.Popen(
                command,
                stdin=subprocess.PIPE,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            assert process.stdin is not None
            process.stdin.write(text.encode("utf-8"))
            process.stdin.close()
        except OSError as exc:
            raise TypingError(f"{command[0]} failed: {exc}") from None

    return set_text


def _session(env: Mapping[str, str]) -> str:
    """ "wayland", "x11" or "" (no graphical session)."""
    kind = env.get("XDG_SESSION_TYPE", "").lower()
    if kind in ("wayland", "x11"):
        return kind
    if env.get("WAYLAND_DISPLAY"):
        return "wayland"
    return "x11" if env.get("DISPLAY") else ""


def _make(
    name: str, clipboard: Callable[[str], None] | None, env: Mapping[str, str] | None = None
) -> Backend:
    if name == "clipboard":
        return ClipboardBackend(clipboard)
    if name == "sendinput":
        if sys.platform != "win32":
            raise TypingError("the sendinput backend works on Windows only")
        return SendInputBackend()
    if name == "quartz":
        if sys.platform != "darwin":
            raise TypingError("the quartz backend works on macOS only")
        return QuartzBackend()
    if name == "xtest":
        if sys.platform != "linux":
            raise TypingError("the xtest backend works on Linux (X11) only")
        from dictate.output.xtest import XTestBackend

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
            Windows SendInput, macOS Quartz, X11 xtest (or xdotool, dotool), Wayland wtype,
            dotool or ydotool.
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
    candidates = {"wayland": ("wtype", "dotool", "ydotool"), "x11": ("xdotool", "dotool")}.get(
        session, ()
    )
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
    need = (
        "install wtype (sway, Hyprland, KDE), dotool or ydotool (GNOME)"
        if session == "wayland"
        else "install xdotool (e.g. sudo apt install xdotool)"
    )
    raise TypingError(
        f"cannot type into other applications on this {session} session: {need}, or turn on "
        "the clipboard fallback in Settings"
    )


def close_backend(backend: Backend) -> None:
    """Let ``backend`` put back what it changed (xtest's spare keycodes), where it has any."""
    close = getattr(backend, "close", None)
    if close is not None:
        close()


def type_into(backend: Backend, text: str) -> None:
    """Type ``text``, pressing Return for each line break."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if i:
            backend.press_return()
        backend.type_text(line)


@dataclass
class TypingContext:
    """The window typed into last and the end of what was typed there. It outlives a Typist,
    so that the next dictation run continues the text with the right space and capital."""

    window: str | None = None
    tail: str = ""


class Typist:
    """Types finalized sentences into the focused window, continuing what it typed there.

    Args:
        backend: How keys are sent.
        context: What was typed before (by an earlier run's Typist); a fresh one by default.
    """

    def __init__(self, backend: Backend, context: TypingContext | None = None) -> None:
        self.backend = backend
        self.context = context if context is not None else TypingContext()
        self._last = ""  # what the last call typed, for "scratch that"

    def sentences(self, sentences: list[str], continues: bool = False) -> str:
        """Type finalized sentences; returns exactly what was typed (with a joining space and
        the first letter's case fitted to what this Typist typed before in the same window;
        ``continues``: they go on with a sentence committed open, whose case is kept)."""
        text = " ".join(s for s in sentences if s)
        if not text:
            return ""
        window = self.backend.focused_window()
        # Where a backend that types cannot tell the window (Wayland), the user is taken to
        # stay where they were: each piece used to start afresh there, with no joining space
        # ("We left.Then it rained."), and commit on pause types in more pieces. Clipboard
        # pieces are pasted one by one, each as a whole.
        unknown = window is None and not self.backend.takes_back
        if unknown or (window is not None and window != self.context.window):
            self.context.tail = ""  # another window: what is before its cursor is unknown
            if continues and text[0] in CLOSING_MARKS:
                return ""  # the mark belongs after words typed into the other window
        if continues and text[0] in CLOSING_MARKS and not takes_mark(self.context.tail):
            return ""  # nothing typed here to attach it to, or a mark there already
        adjusted = fit_to_context(text, self.context.tail, "", keep_case=continues)
        type_into(self.backend, adjusted)
        self.context.window = window
        self.context.tail = (self.context.tail + adjusted)[-200:]
        self._last = adjusted
        return adjusted

    def new_line(self, paragraph: bool = False) -> None:
        """Press Return (twice for a paragraph)."""
        count = 2 if paragraph else 1
        self.backend.press_return(count)
        self.context.window = self.backend.focused_window()
        self.context.tail = (self.context.tail + "\n" * count)[-200:]
        self._last = "\n" * count

    def scratch(self) -> str:
        """Take back what was typed last: "typed" if it was, "" if there is nothing, "moved" if
        the focus is now in another window (then nothing is deleted), "clipboard" if it was
        only put on the clipboard (nothing can be taken back; typing goes on)."""
        if not self._last:
            return ""
        if not self.backend.takes_back:
            self._last = ""
            return "clipboard"
        window = self.backend.focused_window()
        if window != self.context.window:
            return "moved"
        self.backend.backspace(keystrokes(self._last))
        self.context.tail = self.context.tail[: len(self.context.tail) - len(self._last)]
        self._last = ""
        return "typed"


class TypingQueue:
    """Runs a :class:`Typist`'s calls in order on a thread of its own: typing takes 8-60 ms a
    character, which must never stall the window's GUI thread.

    After the first failure nothing more is typed: :meth:`drain` (called by the owner when it
    learns of the failure) stops the thread and returns the failed call and every call not yet
    made, in order, so their text can go somewhere else and nothing is lost.

    Args:
        typist: Does the typing.
        on_failed: Called (on the typing thread) with the first :class:`TypingError`.
        on_scratched: Called (on the typing thread) with :meth:`Typist.scratch`'s result.
        on_typed: Called (on the typing thread) with the text once it has been typed (the
            overlay and the feedback sound say that words went out).
    """

    def __init__(
        self,
        typist: Typist,
        on_failed: Callable[[TypingError], None],
        on_scratched: Callable[[str], None],
        after: TypingQueue | None = None,
        on_typed: Callable[[str], None] | None = None,
    ) -> None:
        import queue
        import threading

        self._after = after  # a closed queue of an earlier run: it finishes typing first
        self.typist = typist
        self._on_failed = on_failed
        self._on_scratched = on_scratched
        self._on_typed = on_typed
        self._queue: queue.Queue[tuple[str, Any] | None] = queue.Queue()
        self._undone: list[tuple[str, Any]] = []  # the failed call and those after it
        self._thread = threading.Thread(target=self._loop, name="dictate-typing", daemon=True)
        self._thread.start()

    def submit(self, kind: str, arg: Any = None) -> None:
        """Queue ``("sentences", [...])``, ``("continued", [...])`` (sentences that go on with
        one a pause committed open), ``("new_line", paragraph)`` or ``("scratch", None)``."""
        self._queue.put((kind, arg))

    def _loop(self) -> None:
        if self._after is not None:  # never two threads typing at once (keys would mix)
            self._after._thread.join()
            self._after = None
        while True:
            item = self._queue.get()
            if item is None:
                try:
                    close_backend(self.typist.backend)
                except Exception:  # what was typed has arrived; only the clean-up failed
                    log.exception("closing the typing backend failed")
                return
            if self._undone:  # failed before: keep the rest for drain()
                self._undone.append(item)
                continue
            kind, arg = item
            try:
                if kind in ("sentences", "continued"):
                    typed = self.typist.sentences(arg, continues=kind == "continued")
                    if typed and self._on_typed is not None:
                        self._on_typed(typed)
                elif kind == "new_line":
                    self.typist.new_line(paragraph=bool(arg))
                else:
                    self._on_scratched(self.typist.scratch())
            except TypingError as exc:
                self._undone.append(item)
                self._on_failed(exc)

    def drain(self) -> list[tuple[str, Any]]:
        """Stop the thread; the calls that failed or were never made, in order."""
        import queue

        self._queue.put(None)
        self._thread.join(_TIMEOUT)
        undone = list(self._undone)
        if self._thread.is_alive():  # stuck in one call: what is still queued was never made
            while True:
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
                if item is not None:
                    undone.append(item)
        return undone

    def typing(self) -> bool:
        """Whether its thread is still typing (or waiting to)."""
        return self._thread.is_alive()

    def close(self, wait: bool = False) -> None:
        """Stop after the calls already queued (and wait for them with ``wait``)."""
        self._queue.put(None)
        if wait:
            self._thread.join(_TIMEOUT)
