"""Typing on X11 through the XTEST extension, with python-xlib (no external program).

A character the keyboard map has is typed with its own key (and Shift where it is the key's
second level). Any other character (é on a US map, —, emoji, Hebrew) needs a key mapped to it
first. ``xdotool`` maps one spare keycode to each such character in turn and puts it back
straight after the key press; a receiver that is busy reads its keyboard map only when it gets
round to the change, by which time the keycode means the next character or nothing, so the
character is lost (measured under Xvfb: with a receiver that took 150 ms over each change,
``xdotool type "Café — 😀 中文 שלום"`` delivered "Caf  ", every non-ASCII character dropped).

Here every spare keycode of the map is a slot, and a slot is changed only once the receiver has
read every key sent before. The receiver says so by answering a ``_NET_WM_PING`` (the window
manager's "are you alive" message, which Qt, GTK, Chromium and Firefox windows answer as they
reach it in their queue of events, after the keys before it). So a character keeps its slot
while it is in use; a slot is given to a new character (least recently used first) after the
receiver has answered a ping sent after that slot's last press; and :meth:`XTestBackend.close`
pings once more before it puts the slots back to no symbol. A window that does not answer
within :attr:`XTestBackend.answer_within_s` gets the time rules instead: a slot rests
:attr:`XTestBackend.reuse_after_s` before reuse, and the slots go back
:attr:`XTestBackend.settle_s` after the last press (measured: with only those rules, a receiver
taking 150 ms over each change on a machine whose two cores were both busy lost every
character after the first five slots when the slots went back 3 s after typing).

The map is read again before each piece of text, in the layout (XKB group) active then: with a
second layout where the "a" key types "b", the first version typed "bb" for "ab" (tested).
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["XTestBackend", "keysym_of"]

log = logging.getLogger("dictate.typing")

_LOCK_MASK = 1 << 1
# The modifiers a held key would add to what is typed: Shift, Control, Mod1 (Alt), Mod4 (Super),
# Mod5 (AltGr on most maps). Mod2 is Num Lock, a lock that changes only the keypad.
_HELD = (0, 2, 3, 6, 7)
_NAMED = {"\n": 0xFF0D, "\t": 0xFF09, "\b": 0xFF08}
_KEYS = {"enter": 0xFF0D, "tab": 0xFF09, "escape": 0xFF1B}  # Return, Tab, Escape
_SHIFT_L, _CAPS_LOCK = 0xFFE1, 0xFFE5


def keysym_of(char: str) -> int:
    """The X keysym that types ``char``: Latin-1 characters are their own keysyms, anything
    else is ``0x01000000`` plus its code point (X's Unicode keysyms)."""
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 | code


class XTestBackend:
    """X11 through XTEST, from this process (see the module's notes on spare keycodes).

    Args:
        delay_ms: Pause after each key (press and release), as ``xdotool``'s default.
        reuse_after_s: Without an answer to a ping, a slot holds its character at least this
            long after its last press.
        settle_s: Without an answer to a ping, :meth:`close` waits this long after the last
            slot press before it puts the slots back.
        answer_within_s: How long to wait for the focused window to answer a ping.
        slots: Use at most this many spare keycodes (default: all of them).
        display: The X display name (default: ``$DISPLAY``).
        sleep, clock: For tests of the timing rules.

    Raises:
        TypingError: The display cannot be opened, lacks XTEST, or its map has no spare
            keycode.
    """

    name = "xtest"
    takes_back = True

    def __init__(
        self,
        delay_ms: int = 8,
        reuse_after_s: float = 2.0,
        settle_s: float = 3.0,
        answer_within_s: float = 10.0,
        slots: int | None = None,
        display: str | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        from Xlib.display import Display

        from dictate.errors import TypingError

        try:
            self._display = Display(display)
        except Exception as exc:  # python-xlib raises its own families and OSError
            raise TypingError(f"the X display cannot be opened for typing: {exc}") from None
        if not self._display.has_extension("XTEST"):
            self._display.close()
            raise TypingError("the X server lacks the XTEST extension that typing needs")
        self._name = display
        self.delay_ms = delay_ms
        self.reuse_after_s = reuse_after_s
        self.settle_s = settle_s
        self.answer_within_s = answer_within_s
        self._watch: Any = None  # a second connection that hears the answers to pings
        self._read_up_to = float("-inf")  # slot presses before this the receiver has read
        self.pings: list[bool] = []  # whether each ping was answered (tests, the log)
        self._sleep, self._clock = sleep, clock
        info = self._display.display.info
        self._first, self._count = info.min_keycode, info.max_keycode - info.min_keycode + 1
        self._keys: dict[int, tuple[int, int]] = {}  # keysym -> (keycode, level 0 or 1)
        self._slots: OrderedDict[int, int | None] = OrderedDict()
        self._read_map(group=0)
        # Keycode 8 is skipped: some clients ignore the lowest keycode.
        spare = [code for code, syms in self._map.items() if not any(syms) and code > 8]
        if not spare:
            self._display.close()
            raise TypingError(
                "the keyboard map has no spare keycode to type characters it lacks; use the "
                "xdotool backend"
            )
        spare = spare[:slots] if slots else spare
        self._slots.update((code, None) for code in spare)
        self._used: dict[int, float] = {}  # slot -> when it was last pressed
        self._last_slot_press: float | None = None

    # -- the Backend interface -----------------------------------------------------------------

    def type_text(self, text: str) -> None:
        self._keys_for([keysym_of(char) for char in text])

    def press_return(self, count: int = 1) -> None:
        self._keys_for([_KEYS["enter"]] * count)

    def press_key(self, name: str) -> None:
        from dictate.output.backends.keys import key_for

        self._keys_for([key_for(name, _KEYS, self.name)])

    def backspace(self, count: int) -> None:
        self._keys_for([_NAMED["\b"]] * count)

    def focused_window(self) -> str | None:
        try:
            focus = self._display.get_input_focus().focus
        except Exception:  # a closed connection; python-xlib raises its own family
            return None
        return str(focus) if isinstance(focus, int) else str(focus.id)

    def close(self) -> None:
        """Put the slots back to no symbol once the receiver has read every key (or
        ``settle_s`` after the last slot press, if it does not answer); then close the
        connections."""
        used = [code for code, sym in self._slots.items() if sym is not None]
        try:
            last = self._last_slot_press
            if used and last is not None and last >= self._read_up_to and not self._receiver_read():
                wait = last + self.settle_s - self._clock()
                if wait > 0:
                    self._sleep(wait)
            for code in used:
                self._display.change_keyboard_mapping(code, [(0, 0)])
            self._display.sync()
        except Exception as exc:  # the X connection broke: what was typed has been sent
            log.warning("xtest could not put its spare keycodes back: %s", exc)
        finally:
            for display in (self._display, self._watch):
                if display is not None:
                    with contextlib.suppress(Exception):
                        display.close()

    # -- knowing that the receiver has read the keys ----------------------------------------------

    def _receiver_read(self) -> bool:
        """Ping the client of the focused window; True once it answers (then it has read every
        key sent before), False if it cannot be pinged or does not answer in time."""
        if self.pings and not self.pings[-1]:
            return False  # it did not answer before: the time rules, without waiting again
        try:
            answered = self._ping()
        except Exception:  # the window went away meanwhile (BadWindow), or the connection did
            answered = False
        self.pings.append(answered)
        return answered

    def _ping(self) -> bool:
        from Xlib import X
        from Xlib.protocol import event

        asked = self._clock()
        target = self._pingable_focus()
        if target is None:
            return False
        if self._watch is None:
            from Xlib.display import Display

            self._watch = Display(self._name)
            # Answers go to the root window: to those who listen to its children's changes
            # (the EWMH rule, GTK) or to its own (what Qt sends).
            mask = X.SubstructureNotifyMask | X.StructureNotifyMask
            self._watch.screen().root.change_attributes(event_mask=mask)
            self._watch.sync()
        watch = self._watch
        ping, protocols = watch.intern_atom("_NET_WM_PING"), watch.intern_atom("WM_PROTOCOLS")
        stamp = (int(asked * 1000) & 0x7FFFFFFF) or 1  # tells this ping's answer from others
        message = event.ClientMessage(
            window=target, client_type=protocols, data=(32, [ping, stamp, target, 0, 0])
        )
        watch.create_resource_object("window", target).send_event(message, event_mask=0)
        watch.flush()
        deadline = asked + self.answer_within_s
        while True:
            while watch.pending_events():
                got = watch.next_event()
                if got.type == X.ClientMessage and got.client_type == protocols:
                    data = list(got.data[1])
                    if data[:3] == [ping, stamp, target]:
                        self._read_up_to = asked
                        return True
            left = deadline - self._clock()
            if left <= 0:
                return False
            select.select([watch.fileno()], [], [], min(left, 0.5))

    def _pingable_focus(self) -> int | None:
        """The focused window, or the nearest window above it that takes ``_NET_WM_PING``;
        None for a window of this process: its GUI thread may be the one waiting here (the
        window closing waits for typing to end), and could not answer."""
        from Xlib import Xatom

        display: Any = self._display
        ping = display.intern_atom("_NET_WM_PING")
        pid = display.intern_atom("_NET_WM_PID")
        window = display.get_input_focus().focus
        root = display.screen().root.id
        while not isinstance(window, int) and window.id != root:
            if ping in (window.get_wm_protocols() or []):
                owner = window.get_full_property(pid, Xatom.CARDINAL)
                if owner is not None and list(owner.value)[:1] == [os.getpid()]:
                    return None
                return int(window.id)
            window = window.query_tree().parent
        return None

    # -- keys ------------------------------------------------------------------------------------

    def _keys_for(self, keysyms: list[int]) -> None:
        if not keysyms:
            return
        from dictate.errors import TypingError

        try:
            mask = self._display.screen().root.query_pointer().mask
            # Read afresh each time: the user may have switched layouts since. With XKB the
            # active group (layout) is in bits 13-14 of the state.
            self._read_map(group=(mask >> 13) & 3)
            with self._modifiers_cleared(mask):
                for keysym in keysyms:
                    self._press(keysym)
        except TypingError:
            raise
        except Exception as exc:  # the X connection broke: python-xlib's own families, OSError
            raise TypingError(f"xtest could not type: {exc or type(exc).__name__}") from None

    def _read_map(self, group: int) -> None:
        """Which key types what in layout ``group`` (0-3); the slots keep their characters.

        A key's row in the core map holds the first group's two levels, then the second's; a
        key with one group (a slot, Shift) types the same in every group. For a third or
        fourth group only the slots are used.
        """
        rows = self._display.get_keyboard_mapping(self._first, self._count)
        self._map = {self._first + i: tuple(row) for i, row in enumerate(rows)}
        self._keys.clear()
        columns = (2 * group, 2 * group + 1) if group < 2 else None
        modifiers: dict[int, int] = {}
        for code, syms in sorted(self._map.items(), reverse=True):  # the lowest keycode wins
            if syms and syms[0] in (_SHIFT_L, _CAPS_LOCK):
                modifiers[syms[0]] = code
            if code in self._slots or columns is None:
                continue
            for level in (1, 0):  # the first level wins over Shift
                column = columns[level]
                if column < len(syms) and syms[column]:
                    self._keys[syms[column]] = (code, level)
        for code, keysym in self._slots.items():
            if keysym is not None:
                self._keys[keysym] = (code, 0)
        self._shift = modifiers.get(_SHIFT_L)
        self._caps_lock = modifiers.get(_CAPS_LOCK)

    def _press(self, keysym: int) -> None:
        from Xlib import X
        from Xlib.ext import xtest

        found = self._keys.get(keysym)
        slot = None
        if found is None or (found[1] == 1 and self._shift is None):
            slot = self._slot_for(keysym)
            code, level = slot, 0
        else:
            code, level = found
            if code in self._slots:
                slot = code
        shift = self._shift if level == 1 else None
        if shift is not None:
            xtest.fake_input(self._display, X.KeyPress, shift)
        xtest.fake_input(self._display, X.KeyPress, code)
        xtest.fake_input(self._display, X.KeyRelease, code)
        if shift is not None:
            xtest.fake_input(self._display, X.KeyRelease, shift)
        self._display.sync()
        if slot is not None:
            now = self._clock()
            self._used[slot] = self._last_slot_press = now
            self._slots.move_to_end(slot)
        self._sleep(self.delay_ms / 1000)

    def _slot_for(self, keysym: int) -> int:
        """A spare keycode mapped to ``keysym``: the least recently used one, once it has not
        been pressed for ``reuse_after_s``."""
        code = next(iter(self._slots))
        last = self._used.get(code)
        if last is not None and last >= self._read_up_to and not self._receiver_read():
            wait = last + self.reuse_after_s - self._clock()
            if wait > 0:
                self._sleep(wait)
        old = self._slots[code]
        if old is not None:
            self._keys.pop(old, None)
        # The symbol on both levels: X reads a lone Latin-1 letter as a lower and upper pair,
        # so "É" alone on a key would type "é".
        self._display.change_keyboard_mapping(code, [(keysym, keysym)])
        self._display.sync()
        self._slots[code] = keysym
        self._keys[keysym] = (code, 0)
        return code

    @contextmanager
    def _modifiers_cleared(self, mask: int) -> Iterator[None]:
        """Release the modifier keys the user holds and turn Caps Lock off while typing (as
        ``xdotool --clearmodifiers`` does), and put them back after; ``mask`` is the state."""
        from Xlib import X
        from Xlib.ext import xtest

        display: Any = self._display
        pressed = display.query_keymap()
        held: list[int] = []
        for index, codes in enumerate(display.get_modifier_mapping()):
            if index in _HELD:
                held += [c for c in codes if c and pressed[c // 8] & (1 << (c % 8))]
        caps = self._caps_lock if mask & _LOCK_MASK else None
        for code in held:
            xtest.fake_input(display, X.KeyRelease, code)
        if caps is not None:
            xtest.fake_input(display, X.KeyPress, caps)
            xtest.fake_input(display, X.KeyRelease, caps)
        display.sync()
        try:
            yield
        finally:
            if caps is not None:
                xtest.fake_input(display, X.KeyPress, caps)
                xtest.fake_input(display, X.KeyRelease, caps)
            for code in held:
                xtest.fake_input(display, X.KeyPress, code)
            display.sync()
