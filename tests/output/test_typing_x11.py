"""Typing into another application under a real X server (Xvfb): the xdotool backend, the
``dictate type`` and ``dictate transcribe --type`` commands, and the Typist's scratch rules.

The receiving application is a Qt text window in its own process (tests/xserver.py) that
reports its text; nothing here is faked.
"""

from __future__ import annotations

import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulse import need
from xserver import Receiver, XServer

from dictate.editing.apply import apply_event
from dictate.errors import TypingError
from dictate.events import Command, Finalized
from dictate.output.backends import close_backend, press_key, type_into
from dictate.output.backends.keys import KEYS
from dictate.output.backends.xtest import XTestBackend
from dictate.output.chooser import choose_backend
from dictate.output.typist import TypingTarget, Typist

ROOT = Path(__file__).resolve().parents[2]
UNICODE = "Café naïve — “quoted” \u2018single\u2019 😀 👍🏽 中文 שלום ü Ünïcödé ÉÀÑ Ωmega ǅ"

pytestmark = pytest.mark.slow


@pytest.fixture
def xserver() -> Iterator[XServer]:
    need(shutil.which("xdotool") is not None, "xdotool is not installed")
    with XServer() as server:
        yield server


@pytest.fixture
def receiver(xserver: XServer, tmp_path: Path) -> Iterator[Receiver]:
    window = Receiver(xserver, tmp_path)
    yield window
    window.close()


def dictate(server: XServer, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The real entry point on the X display, with its own (empty) settings."""
    env = server.env(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
    )
    return subprocess.run(
        [sys.executable, "-m", "dictate", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
    )


@pytest.mark.parametrize("backend", ["automatic", "xdotool"])
def test_dictate_type_delivers_exact_unicode_and_line_breaks(
    xserver: XServer, receiver: Receiver, tmp_path: Path, backend: str
) -> None:
    # xdotool remaps a keycode for each character the map lacks, and a loaded machine loses
    # some of them (measured and documented in docs/other-applications.md; CI lost the "é" of
    # "Café" with the suite on two workers): the fallback is held to what it can do, ASCII
    # and line breaks, exactly.
    text = f"{UNICODE}\nsecond line" if backend == "automatic" else "Cafe - ASCII\nsecond line"
    choice = [] if backend == "automatic" else ["--backend", backend]
    result = dictate(xserver, tmp_path, "type", *choice, text)
    assert result.returncode == 0, result.stderr
    assert receiver.wait_for(text) == text


def test_transcribe_type_delivers_exactly_what_it_prints(
    xserver: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    sample = str(ROOT / "assets" / "sample_en.wav")
    result = dictate(xserver, tmp_path, "transcribe", sample, "--engine", "sphinx", "--type")
    assert result.returncode == 0, result.stderr
    printed = result.stdout.strip("\n")
    assert printed.startswith("Please call me tomorrow morning.")
    assert receiver.wait_for(printed) == printed


def test_voice_commands_press_return_into_the_other_application(
    xserver: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    audio = str(ROOT / "tests" / "data" / "en_commands.wav")
    result = dictate(xserver, tmp_path, "transcribe", audio, "--engine", "sphinx", "--type")
    assert result.returncode == 0, result.stderr
    printed = result.stdout.strip("\n")
    assert "\n\n" in printed  # "next paragraph"
    assert receiver.wait_for(printed) == printed


@pytest.mark.parametrize("backend", ["xtest", "xdotool"])
def test_the_keys_said_arrive_tab_as_a_tab_and_escape_as_nothing(
    xserver: XServer, receiver: Receiver, monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    """ "press tab", "press escape" and "press enter" between sentences, from the events through
    apply_event and TypingTarget to the backend's keys: the receiver (a text field, where
    Escape does nothing) gets a tab, nothing, and a line break; "scratch that" after the
    Escape takes back the sentence before it."""
    monkeypatch.setenv("DISPLAY", xserver.display)
    typist = Typist(choose_backend(backend))
    target = TypingTarget(typist.run)
    events = [
        Finalized(0.1, 1, ["Name:"]),
        Command(0.2, 2, "key", "press tab", "tab"),
        Finalized(0.3, 3, ["Ada."]),
        Command(0.4, 4, "key", "press escape", "escape"),
        Finalized(0.5, 5, ["Dropped."]),
        Command(0.6, 6, "key", "press escape", "escape"),
        Command(0.7, 7, "scratch", "scratch that", "sentence"),
        Command(0.8, 8, "key", "press enter", "enter"),
        Finalized(0.9, 9, ["Next line."]),
    ]
    try:
        for event in events:
            apply_event(target, event)
    finally:
        close_backend(typist.backend)
    expected = "Name:\tAda.\nNext line."
    assert receiver.wait_for(expected) == expected


def test_the_keys_said_are_the_return_tab_and_escape_keys(
    xserver: XServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Escape arrives as a key, not as nothing: a bare X window with the focus hears the key
    presses themselves (xtest, then xdotool)."""
    from Xlib import XK, X
    from Xlib.display import Display

    monkeypatch.setenv("DISPLAY", xserver.display)
    names = {XK.XK_Return: "enter", XK.XK_Tab: "tab", XK.XK_Escape: "escape"}
    owner = Display(xserver.display)
    try:
        root = owner.screen().root
        window = root.create_window(0, 0, 50, 50, 0, X.CopyFromParent, event_mask=X.KeyPressMask)
        window.map()
        owner.set_input_focus(window, X.RevertToParent, X.CurrentTime)
        owner.sync()
        for name in ("xtest", "xdotool"):
            backend = choose_backend(name)
            for key in KEYS:
                press_key(backend, key)
            close_backend(backend)
        heard: list[str] = []
        deadline = time.monotonic() + 10
        while len(heard) < 2 * len(KEYS) and time.monotonic() < deadline:
            while owner.pending_events():
                event = owner.next_event()
                if event.type == X.KeyPress:
                    keysym = owner.keycode_to_keysym(event.detail, 0)
                    heard.append(names.get(keysym, hex(keysym)))
            select.select([owner.fileno()], [], [], 0.1)
        assert heard == [*KEYS, *KEYS]
    finally:
        owner.close()


def test_keys_said_apart_reach_the_other_application(
    xserver: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    """ "press tab" and "press escape", each said as a phrase of its own (flite's voice, which
    the bundled engine hears; it hears "press enter" as "press center"), from the audio to the
    receiver: a tab between the sentences, and nothing for Escape."""
    import importlib.util

    need(shutil.which("flite") is not None, "flite is not installed")
    spec = importlib.util.spec_from_file_location("fixtures", ROOT / "tests/data/make_fixtures.py")
    assert spec is not None and spec.loader is not None
    fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(fixtures)
    phrases = ["thank you very much", "press tab", "how are you", "press escape", "good night"]
    fixtures.build("keys", [(phrase, 1.0) for phrase in phrases], "flite:kal16", 1, tmp_path)
    audio = str(tmp_path / "keys.wav")
    result = dictate(xserver, tmp_path, "transcribe", audio, "--engine", "sphinx", "--type")
    assert result.returncode == 0, result.stderr
    expected = "Thank you very much.\tHow are you? Good night."
    assert receiver.wait_for(expected) == expected
    assert result.stdout.strip("\n") == expected  # the same as dictate transcribe prints


def test_scratch_takes_back_what_was_typed_and_nothing_after_the_focus_moved(
    xserver: XServer, receiver: Receiver, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", xserver.display)
    typist = Typist(XTestBackend(settle_s=0.1))
    typist.sentences(["Keep this."])
    typist.sentences(["Drop 😀 café this."])
    assert receiver.wait_for("Keep this. Drop 😀 café this.") == "Keep this. Drop 😀 café this."
    assert typist.scratch() == "typed"
    assert receiver.wait_for("Keep this.") == "Keep this."
    typist.sentences(["Typed again."])
    (tmp_path / "other").mkdir()
    other = Receiver(xserver, tmp_path / "other")
    try:
        assert typist.scratch() == "moved"  # the focus is in the other window now
        assert receiver.wait_for("Keep this. Typed again.", 3) == "Keep this. Typed again."
        assert other.text == ""
    finally:
        other.close()


def test_no_backend_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {"PATH": "/nonexistent", "HOME": str(tmp_path)}
    result = subprocess.run(
        [sys.executable, "-m", "dictate", "type", "hello"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no graphical session" in lines[0]


WINDOW = r"""
import sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
from dictate.config import Settings
from dictate.events import Command, Finalized
from dictate.editing.journal import Journal
from dictate.ui.main_window import MainWindow

app = QApplication(sys.argv[:1])
window = MainWindow(Settings(engine="sphinx", target="apps"), Journal(Path(sys.argv[1])), False)
window.typing.start_run()  # as the start of dictation does for the "apps" target
assert window.typing.typist is not None, window.messages.label.text()
window.events.dispatch(Finalized(0.1, 1, ["Café first."], pending=""))
window.events.dispatch(Command(0.2, 2, "new_line", "new line"))
window.events.dispatch(Finalized(0.3, 3, ["Second 😀 line.", "Same line."], pending="greyed"))
window.events.dispatch(Finalized(0.4, 4, ["Drop me."], pending=""))
window.events.dispatch(Command(0.5, 5, "scratch", "scratch that", "sentence"))
window.typing.typist.close(wait=True)  # typing runs on its own thread; let it finish
print(repr(window.editor.text), flush=True)
"""


def test_the_window_types_into_the_focused_application(
    xserver: XServer, receiver: Receiver, tmp_path: Path
) -> None:
    """The window's "Other applications" target with the automatically chosen backend (xtest
    on X11); the window is never shown, so the receiver keeps the focus, as when the user works
    in another application."""
    result = subprocess.run(
        [sys.executable, "-c", WINDOW, str(tmp_path / "journal.jsonl")],
        env=xserver.env(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "''"  # nothing went into the window's own editor
    expected = "Café first.\nSecond 😀 line. Same line."
    assert receiver.wait_for(expected) == expected


# -- the xtest backend (python-xlib, spare keycodes of its own) ----------------------------------


def spare_keycodes(server: XServer) -> list[int]:
    """The keycodes with no symbol in the server's map (another connection than the backend's)."""
    from Xlib.display import Display

    display = Display(server.display)
    try:
        info = display.display.info
        first, count = info.min_keycode, info.max_keycode - info.min_keycode + 1
        rows = display.get_keyboard_mapping(first, count)
        return [first + i for i, row in enumerate(rows) if not any(row)]
    finally:
        display.close()


def test_xtest_is_chosen_on_x11_and_types_exact_unicode(
    xserver: XServer, receiver: Receiver, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DISPLAY", xserver.display)
    env = xserver.env()
    backend = choose_backend(env=env)
    assert isinstance(backend, XTestBackend)
    before = spare_keycodes(xserver)
    backend.settle_s = 0.5
    type_into(backend, f"{UNICODE}\nsecond line")
    assert receiver.wait_for(f"{UNICODE}\nsecond line") == f"{UNICODE}\nsecond line"
    assert len(spare_keycodes(xserver)) < len(before)  # the slots hold their characters
    close_backend(backend)
    assert spare_keycodes(xserver) == before  # and are put back when it is done


def test_xtest_delivers_every_character_to_a_busy_receiver(
    xserver: XServer, tmp_path: Path
) -> None:
    """A receiver that takes 150 ms over each change (an application under load). xdotool
    remaps one keycode for each character and puts it back at once; to this receiver it
    delivered "Caf nave  quoted     mega" (measured while writing this test)."""
    busy = Receiver(xserver, tmp_path, busy_s=0.15)
    try:
        text = "Café naïve — “quoted” 😀 中文 שלום ÉÀÑ Ωmega"
        result = dictate(xserver, tmp_path, "type", "--backend", "xtest", text)
        assert result.returncode == 0, result.stderr
        assert busy.wait_for(text, timeout=60) == text
    finally:
        busy.close()


def test_xtest_reuses_a_slot_once_the_receiver_has_answered_a_ping(
    xserver: XServer, receiver: Receiver
) -> None:
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    backend = XTestBackend(reuse_after_s=5.0, settle_s=5.0, slots=3, display=xserver.display)
    backend._sleep = sleep
    text = "ÀÉÎÕÜ àéîõü"  # ten characters the map lacks, through three slots
    backend.type_text(text)
    assert receiver.wait_for(text) == text
    backend.close()
    # Seven reuses and the close: each waited for an answer, none for the time rules.
    assert backend.pings and all(backend.pings)
    assert [w for w in waits if w > backend.delay_ms / 1000] == []


def test_xtest_without_an_answer_to_its_pings_falls_back_to_the_time_rules(
    xserver: XServer,
) -> None:
    """A bare X window has the focus: it takes no _NET_WM_PING, so slots rest reuse_after_s
    before reuse and go back settle_s after the last press."""
    from Xlib import X
    from Xlib.display import Display

    owner = Display(xserver.display)
    window = owner.screen().root.create_window(0, 0, 50, 50, 0, X.CopyFromParent)
    window.map()
    owner.sync()
    owner.set_input_focus(window, X.RevertToParent, X.CurrentTime)
    owner.sync()
    waits: list[float] = []

    def sleep(seconds: float) -> None:
        waits.append(seconds)
        time.sleep(seconds)

    try:
        backend = XTestBackend(reuse_after_s=0.4, settle_s=0.3, slots=2, display=xserver.display)
        backend._sleep = sleep
        backend.type_text("ÀÉÎ")  # the third reuses the first slot
        backend.close()
        rests = [w for w in waits if w > backend.delay_ms / 1000]
        assert backend.pings == [False]  # not asked again
        assert len(rests) == 2 and 0.3 < rests[0] <= 0.4 and 0.2 < rests[1] <= 0.3
    finally:
        owner.close()


def test_xtest_types_past_a_held_shift_and_caps_lock_and_leaves_them_as_they_were(
    xserver: XServer, receiver: Receiver
) -> None:
    from Xlib import XK, X
    from Xlib.display import Display
    from Xlib.ext import xtest

    user = Display(xserver.display)  # the user's own keyboard
    shift = user.keysym_to_keycode(XK.string_to_keysym("Shift_L"))
    caps = user.keysym_to_keycode(XK.string_to_keysym("Caps_Lock"))
    try:
        for key, kind in ((caps, X.KeyPress), (caps, X.KeyRelease), (shift, X.KeyPress)):
            xtest.fake_input(user, kind, key)
        user.sync()
        backend = XTestBackend(settle_s=0.1, display=xserver.display)
        backend.type_text("abc Déjà vu, A.")
        assert receiver.wait_for("abc Déjà vu, A.") == "abc Déjà vu, A."
        backend.close()
        pressed = user.query_keymap()
        assert pressed[shift // 8] & (1 << (shift % 8))  # Shift is held again
        assert user.screen().root.query_pointer().mask & X.LockMask  # Caps Lock is on again
    finally:
        xtest.fake_input(user, X.KeyRelease, shift)
        xtest.fake_input(user, X.KeyPress, caps)
        xtest.fake_input(user, X.KeyRelease, caps)
        user.sync()
        user.close()


def test_xtest_on_a_display_that_cannot_be_opened_is_one_clear_error(tmp_path: Path) -> None:
    with pytest.raises(TypingError, match="X display cannot be opened"):
        XTestBackend(display=":4242")


def test_xtest_types_in_the_layout_the_user_has_switched_to(
    xserver: XServer, receiver: Receiver
) -> None:
    """A second layout (XKB group 2) where the "a" key types "b": typing "a" there must not
    press that key. The layout is made with the core protocol (Xvfb's setxkbmap did not load a
    second layout here): the "a" key gets a second group, a spare key switches groups."""
    from Xlib import XK, X
    from Xlib.display import Display
    from Xlib.ext import xtest

    user = Display(xserver.display)
    a_key = user.keysym_to_keycode(XK.string_to_keysym("a"))
    switch = spare_keycodes(xserver)[1]
    try:
        user.change_keyboard_mapping(a_key, [(ord("a"), ord("A"), ord("b"), ord("B"))])
        next_group = 0xFE08  # ISO_Next_Group
        user.change_keyboard_mapping(switch, [(next_group, next_group)])
        user.sync()
        backend = XTestBackend(settle_s=0.1, display=xserver.display)
        backend.type_text("ab ")  # the first layout
        assert receiver.wait_for("ab ") == "ab "
        xtest.fake_input(user, X.KeyPress, switch)
        xtest.fake_input(user, X.KeyRelease, switch)
        user.sync()
        assert (user.screen().root.query_pointer().mask >> 13) & 3 == 1  # the second layout
        backend.type_text("ab Ab")
        assert receiver.wait_for("ab ab Ab") == "ab ab Ab"
        backend.close()
    finally:
        user.close()


OWN_WINDOW = r"""
import sys, time
from PySide6.QtWidgets import QApplication, QPlainTextEdit
from Xlib import X
from Xlib.display import Display
from dictate.output.backends.xtest import XTestBackend

app = QApplication(sys.argv[:1])
editor = QPlainTextEdit()
editor.show()
for _ in range(20):
    app.processEvents()
    time.sleep(0.05)
user = Display()
user.set_input_focus(int(editor.winId()), X.RevertToParent, X.CurrentTime)
user.sync()
backend = XTestBackend(settle_s=0.5)
backend.type_text("é")
began = time.monotonic()
backend.close()  # on the GUI thread, as the window's closing does: it cannot answer a ping
print(backend.pings, round(time.monotonic() - began, 1))
"""


def test_xtest_does_not_wait_for_its_own_window_to_answer(xserver: XServer) -> None:
    """Closing the app waits on its GUI thread for typing to end; when the focus is in the
    app's own window, a ping could only be answered by that blocked thread (the window hung
    for answer_within_s). The own window is recognised by _NET_WM_PID and gets the time rule."""
    result = subprocess.run(
        [sys.executable, "-c", OWN_WINDOW],
        env=xserver.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    pings, seconds = result.stdout.split("]")
    # The 0.5 s settle, not the 10 s wait (the bound is that wait, so load cannot break it).
    assert pings == "[False" and float(seconds) < 10.0


def test_xtest_close_after_the_x_server_has_gone_does_not_raise(
    xserver: XServer, receiver: Receiver
) -> None:
    """What was typed has been sent; a failed clean-up must not hide the run's own outcome."""
    backend = XTestBackend(settle_s=0.1, answer_within_s=1.0, display=xserver.display)
    backend.type_text("é")
    assert receiver.wait_for("é") == "é"
    receiver.close()
    xserver.stop()
    backend.close()
