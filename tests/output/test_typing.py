"""The typing logic: backend choice, keystroke counting, and the Typist's continuity, scratch and
focus rules, with a backend that records what it is asked to press (the real X11 backend is
tested under a real X server in tests/output/test_typing_x11.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from dictate.editing.apply import apply_event
from dictate.errors import TypingError
from dictate.events import Command
from dictate.output.backends import keystrokes, press_key, type_into
from dictate.output.backends.clipboard import ClipboardBackend
from dictate.output.backends.dotool import DotoolBackend
from dictate.output.backends.keys import KEYS
from dictate.output.backends.wtype import WtypeBackend
from dictate.output.backends.xdotool import XdotoolBackend
from dictate.output.backends.ydotool import YdotoolBackend
from dictate.output.chooser import choose_backend
from dictate.output.typist import Call, TypingQueue, TypingTarget, Typist


class Recorder:
    """A backend that applies key presses to a string, like a text field would."""

    name = "recorder"
    takes_back = True

    def __init__(self) -> None:
        self.text = ""
        self.window: str | None = "w1"
        self.keys: list[str] = []  # the keys pressed with press_key

    def type_text(self, text: str) -> None:
        self.text += text

    def press_return(self, count: int = 1) -> None:
        self.text += "\n" * count

    def press_key(self, name: str) -> None:
        self.keys.append(name)
        self.text += {"enter": "\n", "tab": "\t", "escape": ""}[name]

    def backspace(self, count: int) -> None:
        for _ in range(count):  # one user-perceived character per press
            cut = len(self.text) - 1
            while cut > 0 and keystrokes(self.text[cut:]) == keystrokes(self.text[cut - 1 :]):
                cut -= 1
            self.text = self.text[:cut]

    def focused_window(self) -> str | None:
        return self.window


@pytest.mark.parametrize(
    ("text", "presses"),
    [("abc", 3), ("café", 4), ("cafe\u0301", 4), ("👍🏽", 1), ("👩\u200d💻 ok", 4), ("❤\ufe0f", 1),
     ("中文", 2), ("", 0)],
)  # fmt: skip
def test_keystrokes_count_user_perceived_characters(text: str, presses: int) -> None:
    assert keystrokes(text) == presses


def test_sentences_continue_spacing_and_capitals_in_the_same_window() -> None:
    backend = Recorder()
    typist = Typist(backend)
    assert typist.sentences(["We left."]) == "We left."
    assert typist.sentences(["Then it rained.", "Badly."]) == " Then it rained. Badly."
    typist.new_line()
    assert typist.sentences(["Next line."]) == "Next line."
    assert backend.text == "We left. Then it rained. Badly.\nNext line."


def test_a_new_window_starts_afresh() -> None:
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["One."])
    backend.window = "w2"
    assert typist.sentences(["Two."]) == "Two."  # no joining space: its text is unknown


def test_scratch_removes_exactly_what_was_typed_last_emoji_included() -> None:
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["Keep this."])
    typist.sentences(["Drop 👍🏽 café\u0301 this."])
    assert typist.scratch() == "typed"
    assert backend.text == "Keep this."
    assert typist.scratch() == ""  # only the last one
    assert typist.sentences(["Again."]) == " Again."


def test_scratch_deletes_nothing_once_the_focus_moved() -> None:
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["Typed here."])
    backend.window = "elsewhere"
    assert typist.scratch() == "moved"
    assert backend.text == "Typed here."


def test_line_breaks_are_return_presses() -> None:
    backend = Recorder()
    type_into(backend, "a\nb\n\nc")
    assert backend.text == "a\nb\n\nc"


def test_clipboard_backend_puts_breaks_with_the_next_text_and_cannot_take_back() -> None:
    got: list[str] = []
    backend = ClipboardBackend(got.append)
    backend.type_text("One.")
    backend.press_return(2)
    backend.type_text("Two.")
    assert got == ["One.", "\n\nTwo."]
    with pytest.raises(TypingError, match="cannot be taken back"):
        backend.backspace(3)


def test_scratch_that_with_the_clipboard_fallback_goes_on_typing() -> None:
    """Found in review: "scratch that" with the clipboard fallback was a typing failure, so
    every later sentence went to the dictate window instead of the clipboard."""
    got: list[str] = []
    failed: list[Exception] = []
    scratched: list[str] = []
    queue = TypingQueue(Typist(ClipboardBackend(got.append)), failed.append, scratched.append)
    queue.submit("sentences", ["First one."])
    queue.submit("scratch")
    queue.submit("sentences", ["Second one."])
    assert queue.drain() == []
    assert failed == [] and scratched == ["clipboard"]
    assert got == ["First one.", "Second one."]


def test_backend_choice_by_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for tool in ("xdotool", "wtype"):
        exe = tmp_path / tool
        exe.write_text("#!/bin/sh\nexit 0\n")
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    # No X server answers on :4242, so xtest cannot type there and xdotool is next.
    assert choose_backend(env={"DISPLAY": ":4242"}).name == "xdotool"
    assert choose_backend(env={"WAYLAND_DISPLAY": "wayland-0"}).name == "wtype"
    assert choose_backend("xdotool").name == "xdotool"
    with pytest.raises(TypingError, match="dotool typing backend needs the dotool program"):
        choose_backend("dotool")
    monkeypatch.setenv("PATH", str(tmp_path / "nothing"))
    with pytest.raises(TypingError, match="install xdotool") as info:
        choose_backend(env={"DISPLAY": ":4242"})
    assert "clipboard fallback" in str(info.value)
    with pytest.raises(TypingError, match="install wtype"):
        choose_backend(env={"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland"})
    with pytest.raises(TypingError, match="no graphical session"):
        choose_backend(env={})
    assert choose_backend(
        env={"DISPLAY": ":4242"}, clipboard_fallback=True, clipboard=print
    ).name == ("clipboard")
    with pytest.raises(TypingError, match="unknown typing backend"):
        choose_backend("telepathy")


def test_a_failing_tool_is_one_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    exe = tmp_path / "xdotool"
    exe.write_text('#!/bin/sh\necho "Error: Can not open display: :99" >&2\nexit 1\n')
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    with pytest.raises(TypingError, match="xdotool could not type: Error: Can not open display"):
        XdotoolBackend().type_text("x")


def test_xdotool_types_remapped_characters_slowly_in_runs_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Characters the keyboard map lacks are typed through a remapped keycode; a busy receiver
    dropped one when they came at 8 ms ("שלום" arrived as "לום"), so they go at 60 ms."""
    log = tmp_path / "calls"
    exe = tmp_path / "xdotool"
    exe.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    XdotoolBackend().type_text("Café — ok 😀!")
    calls = log.read_text(encoding="utf-8").splitlines()
    assert calls == [
        "type --clearmodifiers --delay 8 -- Caf",
        "type --clearmodifiers --delay 60 -- é",
        "type --clearmodifiers --delay 8 --  ",
        "type --clearmodifiers --delay 60 -- —",
        "type --clearmodifiers --delay 8 --  ok ",
        "type --clearmodifiers --delay 60 -- 😀",
        "type --clearmodifiers --delay 8 -- !",
    ]


def test_a_new_typist_with_the_same_context_continues_the_text() -> None:
    from dictate.output.typist import TypingContext

    backend = Recorder()
    context = TypingContext()
    Typist(backend, context).sentences(["It is."])
    assert Typist(backend, context).sentences(["what now?"]) == " What now?"
    assert backend.text == "It is. What now?"
    backend.window = "w2"
    assert Typist(backend, context).sentences(["Elsewhere."]) == "Elsewhere."


def test_the_settings_accept_every_typing_backend() -> None:
    from dictate.config import _TYPING_BACKENDS
    from dictate.output.chooser import BACKENDS

    assert BACKENDS == _TYPING_BACKENDS


def fake_xdotool(folder: Path) -> Path:
    """An ``xdotool`` that only records each call (its arguments joined by ``|``), first on the
    PATH of the subprocesses: what ``dictate type`` would press, with no X server."""
    return fake_program(folder, "xdotool")


def fake_program(folder: Path, name: str) -> Path:
    """A program ``name`` that only records each call in ``folder/calls``: its arguments joined
    by ``|``, and for dotool (which reads its commands there) what came on stdin."""
    log = folder / "calls"
    exe = folder / name
    stdin = f"cat >> {log}\n" if name == "dotool" else ""
    exe.write_text(f"#!/bin/sh\nIFS='|'; printf '%s\\n' \"$*\" >> {log}\n{stdin}")
    exe.chmod(0o755)
    return log


def dictate_type(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real ``dictate type`` in a subprocess, with no graphical session, and the fake
    xdotool of :func:`fake_xdotool` in ``folder`` first on its PATH."""
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    env["XDG_SESSION_TYPE"] = "tty"
    env["PATH"] = str(folder) + os.pathsep + env.get("PATH", "")
    return subprocess.run(
        [sys.executable, "-m", "dictate", "type", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.slow
@pytest.mark.parametrize(
    ("char", "shown"),
    [("\x1b", "U+001B (Escape)"), ("\x03", "U+0003 (Ctrl+C)"), ("\x7f", "U+007F (Delete)"),
     ("\x08", "U+0008 (BackSpace)"), ("\r", "U+000D (carriage return)"), ("\x85", "U+0085"),
     ("\x9b", "U+009B")],
)  # fmt: skip
def test_dictate_type_refuses_control_characters_and_types_nothing(
    tmp_path: Path, char: str, shown: str
) -> None:
    """ESC, Ctrl+C, DEL and the other C0 and C1 controls would be pressed as keys in whatever
    window has the focus: refused, in one line naming the character and where it is, with exit
    status 2, before a backend is chosen (nothing typed, no display needed)."""
    log = fake_xdotool(tmp_path)
    for choice in (["--backend", "xdotool"], []):
        result = dictate_type(tmp_path, *choice, "ab", f"c{char}d")
        assert result.returncode == 2, (choice, result.stderr)
        assert result.stdout == ""
        assert result.stderr == (
            f"dictate: error: TEXT has the control character {shown} at position 5; dictate "
            "type does not press control keys in other applications: remove it (only a line "
            "break, typed as Return, and a tab are typed)\n"
        )
    assert not log.exists()  # xdotool never ran


@pytest.mark.slow
def test_dictate_type_types_tab_and_line_breaks(tmp_path: Path) -> None:
    """A tab goes to the backend as text (xdotool, xtest, wtype type it as the Tab key), a line
    break (``\\n`` or ``\\r\\n``) is a press of Return: as before, not refused."""
    log = fake_xdotool(tmp_path)
    result = dictate_type(tmp_path, "--backend", "xdotool", "a\tb\r\nc\nd")
    assert result.returncode == 0, result.stderr
    assert log.read_text(encoding="utf-8").splitlines() == [
        "type|--clearmodifiers|--delay|8|--|a",
        "type|--clearmodifiers|--delay|60|--|\t",
        "type|--clearmodifiers|--delay|8|--|b",
        "key|--clearmodifiers|--delay|8|--repeat|1|Return",
        "type|--clearmodifiers|--delay|8|--|c",
        "key|--clearmodifiers|--delay|8|--repeat|1|Return",
        "type|--clearmodifiers|--delay|8|--|d",
    ]


def test_dictate_type_help_says_which_control_characters_are_typed() -> None:
    from dictate.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command")
    text = " ".join(commands.choices["type"].format_help().split())  # type: ignore[index]
    assert "A line break in TEXT is typed as Return, a tab as Tab; any other control" in text
    assert "is refused before anything is typed, with exit status 2" in text


# -- the keys said ("press enter", "press tab", "press escape") ----------------------------------


def test_the_typist_presses_the_keys_said_and_keeps_its_context() -> None:
    """A tab is typed text (no joining space after it, "scratch that" takes it back); Escape
    types nothing, so the sentence before it is still the last typed; Enter is new_line's."""
    backend = Recorder()
    typist = Typist(backend)
    typist.sentences(["We left."])
    typist.press_key("tab")
    assert typist.context.tail == "We left.\t"
    assert typist.sentences(["Then it rained."]) == "Then it rained."
    typist.press_key("escape")
    assert typist.context.tail == "We left.\tThen it rained."
    assert typist.scratch() == "typed"  # the sentence: Escape typed nothing to take back
    assert backend.text == "We left.\t"
    typist.press_key("tab")
    assert typist.scratch() == "typed"
    assert backend.text == "We left.\t"
    typist.press_key("enter")  # new_line's Return, not press_key
    assert typist.sentences(["Next."]) == "Next."
    assert backend.text == "We left.\t\nNext."
    assert backend.keys == ["tab", "escape", "tab"]


def test_a_key_is_a_queued_call_that_types_no_words() -> None:
    backend = Recorder()
    typed: list[str] = []
    failed: list[Exception] = []
    queue = TypingQueue(
        Typist(backend), failed.append, print, on_typed=lambda text, _: typed.append(text)
    )
    for call in [
        (Call.SENTENCES, ["Name:"]),
        (Call.KEY, "tab"),
        (Call.SENTENCES, ["Ada."]),
        (Call.KEY, "escape"),
        (Call.KEY, "enter"),
    ]:
        queue.submit(*call)
    assert queue.drain() == [] and failed == []
    assert backend.text == "Name:\tAda.\n" and backend.keys == ["tab", "escape"]
    assert typed == ["Name:", "Ada."]  # "✓ Committed" is for words, not keys
    assert Typist(Recorder()).run("key", "tab") == ""


def test_a_backend_without_press_key_presses_return_for_enter_and_refuses_the_rest() -> None:
    class Older(Recorder):
        press_key = None  # type: ignore[assignment]

    backend = Older()
    press_key(backend, "enter")
    assert backend.text == "\n"
    with pytest.raises(TypingError, match="recorder typing backend cannot press tab"):
        Typist(backend).press_key("tab")


def test_the_clipboard_puts_enter_and_tab_with_the_next_text_and_leaves_escape_out() -> None:
    """Escape is no text; refusing it would be a typing failure, which sends everything said
    after it to the window instead of the clipboard."""
    got: list[str] = []
    failed: list[Exception] = []
    queue = TypingQueue(Typist(ClipboardBackend(got.append)), failed.append, print)
    queue.submit(Call.SENTENCES, ["Name:"])
    for key in ("tab", "escape", "enter", "tab"):
        queue.submit(Call.KEY, key)
    queue.submit(Call.SENTENCES, ["Ada."])
    assert queue.drain() == [] and failed == []
    assert got == ["Name:", "\t\n\tAda."]
    with pytest.raises(TypingError, match="clipboard cannot press the key 'f1'"):
        ClipboardBackend(got.append).press_key("f1")


@pytest.mark.parametrize(
    ("backend", "calls"),
    [
        (XdotoolBackend, [f"key|--clearmodifiers|--delay|8|--repeat|1|{key}" for key in
                          ("Return", "Tab", "Escape")]),
        (WtypeBackend, [f"-s|100|-k|{key}" for key in ("Return", "Tab", "Escape")]),
        (DotoolBackend, ["", "key enter", "", "key tab", "", "key esc"]),
        (YdotoolBackend, [f"key|{code}:1|{code}:0" for code in (28, 15, 1)]),
    ],
)  # fmt: skip
def test_each_typing_program_presses_the_keys_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: Any, calls: list[str]
) -> None:
    """The command lines (nothing runs them here: wtype, dotool and ydotool need Wayland or
    uinput; xdotool's keys are pressed under Xvfb in test_typing_x11.py)."""
    log = fake_program(tmp_path, backend.name)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    typing = backend()
    for key in KEYS:
        typing.press_key(key)
    assert log.read_text(encoding="utf-8").splitlines() == calls
    with pytest.raises(TypingError, match=f"{backend.name} cannot press the key 'home'"):
        typing.press_key("home")


def test_return_presses_are_as_they_were(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """press_return now goes through the same key tables: the same command lines as before."""
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    expected: dict[Any, list[str]] = {
        XdotoolBackend: ["key|--clearmodifiers|--delay|8|--repeat|2|Return"],
        WtypeBackend: ["-s|100|-k|Return|-k|Return"],
        DotoolBackend: ["", "key enter", "key enter"],
        YdotoolBackend: ["key|28:1|28:0|28:1|28:0"],
    }
    for backend, calls in expected.items():
        log = fake_program(tmp_path, backend.name)
        log.unlink(missing_ok=True)
        backend().press_return(2)
        backend().press_return(0)  # nothing to press: nothing runs
        assert log.read_text(encoding="utf-8").splitlines() == calls, backend.name


# (the command's kind, its argument): how TypingTarget.window_only names it.
WINDOW_ONLY = {
    ("select", "the cat"): "select", ("select", ""): "select that", ("recase", "cap"): "cap that",
    ("recase", "upper"): "all caps that", ("recase", "lower"): "no caps that",
    ("insert_before", "the cat"): "insert before", ("insert_after", "the cat"): "insert after",
    ("go", "end"): "go to end", ("go", "start"): "go to start", ("go", "back"): "go back",
    ("delete_last", "word"): "delete last word", ("help", ""): "what can I say",
    ("delete_last", "sentence"): "delete last sentence", ("correct", "the cat"): "correct",
    ("correct", ""): "correct", ("choose", "2"): "choose",
}  # fmt: skip


def test_typing_target_submits_the_keys_and_says_which_commands_are_the_windows_only() -> None:
    submitted: list[tuple[str, Any]] = []
    said: list[str] = []

    class Target(TypingTarget):
        def window_only(self, what: str) -> None:
            said.append(what)

    target = Target(lambda kind, arg: submitted.append((kind, arg)))
    for key in KEYS:
        assert apply_event(target, Command(0.1, 1, "key", f"press {key}", key))
    assert submitted == [("key", "enter"), ("key", "tab"), ("key", "escape")]
    submitted.clear()
    for (kind, arg), what in WINDOW_ONLY.items():
        assert apply_event(target, Command(0.1, 1, kind, what, arg))
        assert said.pop() == what, (kind, arg)
    assert submitted == [] and said == []
    # The base class does nothing with them (no window to say it in: dictate transcribe).
    plain = TypingTarget(lambda kind, arg: submitted.append((kind, arg)))
    for kind, arg in WINDOW_ONLY:
        apply_event(plain, Command(0.1, 1, kind, kind, arg))
    assert submitted == []
