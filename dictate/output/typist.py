"""Typing finalized sentences into the focused window, continuing what was typed there
(:class:`Typist`), on a thread of its own (:class:`TypingQueue`).

:class:`Typist` keeps what it typed where, so each sentence continues the spacing and capitals
of the one before it in the same window, "scratch that" can press BackSpace over exactly what it
typed, and nothing is deleted once the focus has moved to another window.

:class:`TypingTarget` maps the pipeline's events to its calls. The voice commands that need a
view of the text (select, "cap that", "insert before", "go to end", "delete last word") cannot
work in another application: they go to :meth:`TypingTarget.window_only`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dictate.editing.apply import EditTarget
from dictate.editing.text import CLOSING_MARKS, fit_to_context, takes_mark
from dictate.enums import TextEnum
from dictate.errors import TypingError
from dictate.output.backends import Backend, close_backend, keystrokes, press_key, type_into
from dictate.output.backends.process import TIMEOUT
from dictate.output.window_title import X11_BACKENDS
from dictate.text_safety import without_controls

log = logging.getLogger("dictate.typing")


NO_FOCUS = "no window has the keyboard focus, nothing was typed"


class Call(TextEnum):
    """A call to a :class:`Typist`, as :class:`TypingQueue` queues it with its argument."""

    SENTENCES = "sentences"
    """Finalized sentences (a list)."""
    CONTINUED = "continued"
    """Finalized sentences that go on with one a pause committed open."""
    NEW_LINE = "new_line"
    """Return; the argument says whether twice (a paragraph)."""
    SCRATCH = "scratch"
    """BackSpace over what was typed last."""
    KEY = "key"
    """A key said ("press tab"): the argument is its name, "enter", "tab" or "escape"."""


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
        # No control character is sent as keys (an escape sequence from an entry or a
        # replacement would be keys pressed in the other application).
        text = without_controls(" ".join(s for s in sentences if s), keep="")
        if not text:
            return ""
        window = self.backend.focused_window()
        if self.backend.name in X11_BACKENDS and window in (None, "0", "1"):
            # X11 always knows the focus: none (or the root's PointerRoot) means the keys would
            # be lost, and xdotool still exits 0.
            raise TypingError(NO_FOCUS)
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
        self._pressed("\n" * count)

    def press_key(self, name: str) -> None:
        """Press a key said ("press enter", "press tab", "press escape"): Enter is
        :meth:`new_line`'s Return; a tab is typed like text ("scratch that" takes it back);
        Escape types nothing, so the text typed before it is still what goes on."""
        if name == "enter":
            self.new_line()
            return
        press_key(self.backend, name)
        if name == "tab":
            self._pressed("\t")

    def _pressed(self, text: str) -> None:
        """Keys that type ``text`` (Return, Tab) were pressed in the focused window."""
        self.context.window = self.backend.focused_window()
        self.context.tail = (self.context.tail + text)[-200:]
        self._last = text

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

    def run(self, kind: str, arg: Any = None) -> str:
        """Make one queued call (see :meth:`TypingQueue.submit`); what :meth:`sentences` typed
        or :meth:`scratch` says, "" for a line break or a key."""
        if kind in (Call.SENTENCES, Call.CONTINUED):
            return self.sentences(arg, continues=kind == Call.CONTINUED)
        if kind == Call.NEW_LINE:
            self.new_line(paragraph=bool(arg))
            return ""
        if kind == Call.KEY:
            self.press_key(str(arg))
            return ""
        if kind == Call.SCRATCH:
            return self.scratch()
        raise ValueError(f"no typing call {kind!r}")


# How the commands that need a view of the text are said, by their argument.
_RECASE_SAID = {"cap": "cap that", "upper": "all caps that", "lower": "no caps that"}
_GO_SAID = {"end": "go to end", "start": "go to start", "back": "go back"}


class TypingTarget(EditTarget):
    """Pipeline events as calls to a :class:`Typist`: finalized sentences, line breaks, the keys
    said and "scratch that" (of what was typed). Pending words are never typed (they may
    change), and there is no undo in another application; the commands that need a view of the
    text go to :meth:`window_only`.

    Args:
        submit: Makes or queues a call, ``submit(kind, arg)``: :meth:`TypingQueue.submit`, or
            :meth:`Typist.run` wrapped to report its errors.
    """

    def __init__(self, submit: Callable[[str, Any], object]) -> None:
        self._submit = submit

    def finalize(self, sentences: list[str], pending: str | None, continues: bool) -> None:
        if sentences:
            self._submit(Call.CONTINUED if continues else Call.SENTENCES, sentences)

    def line_break(self, paragraph: bool) -> None:
        self._submit(Call.NEW_LINE, paragraph)

    def scratch(self, target: str) -> None:
        if target != "pending":  # the pending words were never typed
            self._submit(Call.SCRATCH, None)

    def press_key(self, key: str) -> None:
        self._submit(Call.KEY, key)

    def window_only(self, what: str) -> None:
        """A command that needs a view of the text was said: ``what`` names it as said ("select",
        "cap that", "go to end"...). It cannot work in another application; nothing is done
        here (the window's target says so)."""

    def select(self, words: str) -> bool | None:
        self.window_only("select" if words else "select that")
        return None

    def recase(self, style: str) -> None:
        self.window_only(_RECASE_SAID.get(style, "cap that"))

    def insert_at(self, words: str, after: bool) -> bool | None:
        self.window_only("insert after" if after else "insert before")
        return None

    def go(self, where: str) -> None:
        self.window_only(_GO_SAID.get(where, f"go to {where}"))

    def delete_last(self, unit: str) -> None:
        self.window_only(f"delete last {unit}")

    def show_help(self) -> None:
        self.window_only("what can I say")

    def correct(self, words: str) -> bool | None:
        self.window_only("correct")
        return None

    def choose(self, number: int) -> None:
        self.window_only("choose")

    def play_back(self) -> None:
        self.window_only("play that back")

    def learn(self) -> None:
        self.window_only("add that to my words")


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
            overlay and the feedback sound say that words went out), and whether it went on
            with a sentence committed open.
    """

    def __init__(
        self,
        typist: Typist,
        on_failed: Callable[[TypingError], None],
        on_scratched: Callable[[str], None],
        after: TypingQueue | None = None,
        on_typed: Callable[[str, bool], None] | None = None,
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
        """Queue a call: a :class:`Call` (or its string) and its argument."""
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
                result = self.typist.run(kind, arg)
                if kind == Call.SCRATCH:
                    self._on_scratched(result)
                elif result and self._on_typed is not None:
                    self._on_typed(result, kind == Call.CONTINUED)
            except TypingError as exc:
                self._undone.append(item)
                self._on_failed(exc)

    def drain(self) -> list[tuple[str, Any]]:
        """Stop the thread; the calls that failed or were never made, in order."""
        import queue

        self._queue.put(None)
        self._thread.join(TIMEOUT)
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
            self._thread.join(TIMEOUT)
