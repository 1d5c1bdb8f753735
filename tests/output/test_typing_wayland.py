"""Typing into another application under a real Wayland compositor (a headless sway): the wtype
backend through the app's own typing path (the backend object, the Typist, ``dictate type``)
into a Qt text window (tests/wayland.py) that reports exactly what arrived; and wtype's
failures, which must be a TypingError that says what to do, never a silent success.

dotool and ydotool type through /dev/uinput, which a container or CI runner does not have:
they are not tested here (ydotool's refusal of text it cannot type is, in test_typing.py).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pulse import need
from wayland import FakeCompositor, Receiver, Sway

from dictate.errors import TypingError
from dictate.output.backends import type_into
from dictate.output.backends.wtype import WtypeBackend
from dictate.output.chooser import choose_backend
from dictate.output.typist import Typist

ROOT = Path(__file__).resolve().parents[2]
UNICODE = "é ñ ü É Ø Σ 😀 👍🏽 漢字 ひらがな שלום مرحبا “quoted” — ǅ"

pytestmark = [pytest.mark.slow, pytest.mark.gui]


@pytest.fixture(scope="module")
def sway() -> Iterator[Sway]:
    need(shutil.which("wtype") is not None, "wtype is not installed")
    with Sway() as compositor:
        yield compositor


@pytest.fixture
def receiver(sway: Sway, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    """The focused window, with this process's typing programs pointed at the compositor."""
    for name, value in sway.env().items():
        if name in ("WAYLAND_DISPLAY", "XDG_RUNTIME_DIR", "XDG_SESSION_TYPE"):
            monkeypatch.setenv(name, value)
    monkeypatch.delenv("DISPLAY", raising=False)
    window = Receiver(sway, tmp_path)
    yield window
    window.close()


@pytest.fixture
def load() -> Iterator[None]:
    """Every core busy (twice over) while the test types, as on a loaded machine."""
    spinners = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(2 * (os.cpu_count() or 1))
    ]
    yield
    for spinner in spinners:
        spinner.kill()
        spinner.wait()


def test_the_automatic_choice_on_sway_is_wtype(sway: Sway) -> None:
    """sway offers the virtual-keyboard protocol; the compositor is asked, so a desktop name
    that lacks it (a session started oddly) does not override what it offers."""
    assert choose_backend(env=sway.env()).name == "wtype"
    assert choose_backend(env=sway.env(XDG_CURRENT_DESKTOP="GNOME")).name == "wtype"


def test_wtype_delivers_exact_unicode_a_line_break_and_a_tab(receiver: Receiver) -> None:
    text = f"{UNICODE}\n\tend"
    type_into(WtypeBackend(), text)
    assert receiver.wait_for(text) == text


def test_the_keys_said_and_scratch_that_through_the_typist(receiver: Receiver) -> None:
    typist = Typist(WtypeBackend())
    typist.sentences(["Name:"])
    typist.press_key("tab")
    typist.sentences(["Øresund."])
    typist.press_key("escape")  # nothing arrives in a text field
    typist.sentences(["Dropped."])
    assert typist.scratch() == "typed"
    typist.new_line()
    typist.sentences(["Σ next."])
    expected = "Name:\tØresund.\nΣ next."
    assert receiver.wait_for(expected) == expected


def test_the_first_key_of_every_short_call_arrives(receiver: Receiver) -> None:
    """Commit on pause types in short pieces, each one wtype call: a lost first key lost the
    joining space (without wtype's wait, "abc" then " def" arrived as "abcdef", then "bcdef")."""
    backend = WtypeBackend()
    for _ in range(5):
        backend.type_text("abc")
        backend.type_text(" def")
    expected = "abc def" * 5
    assert receiver.wait_for(expected) == expected


def test_commit_on_pause_pieces_arrive_whole_under_load(receiver: Receiver, load: None) -> None:
    typist = Typist(WtypeBackend())
    typed = [
        typist.sentences(["We left."]),
        typist.sentences(["Then it"]),
        typist.sentences(["rained"], continues=True),
        typist.sentences(["."], continues=True),
        typist.sentences(["Él dijo 😀"]),
        typist.sentences(["漢字"], continues=True),
    ]
    expected = "We left. Then it rained. Él dijo 😀 漢字"
    assert "".join(typed) == expected
    assert receiver.wait_for(expected, timeout=20) == expected


def test_dictate_type_chooses_and_delivers(sway: Sway, receiver: Receiver, tmp_path: Path) -> None:
    """The real entry point with its own (empty) settings: the automatic choice on sway."""
    env = sway.env(
        HOME=str(tmp_path / "home"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        XDG_DATA_HOME=str(tmp_path / "data"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        QT_QPA_PLATFORM="offscreen",
    )
    text = f"{UNICODE}\nsecond line"
    result = subprocess.run(
        [sys.executable, "-m", "dictate", "type", text],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert receiver.wait_for(text) == text


def test_wtype_without_a_wayland_connection_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(shutil.which("wtype") is not None, "wtype is not installed")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-gone")
    with pytest.raises(TypingError) as info:
        WtypeBackend().type_text("abc")
    message = str(info.value)
    assert message.startswith("wtype could not type: Wayland connection failed"), message
    assert "(wayland-gone)" in message and "start dictate inside the Wayland session" in message


def test_wtype_on_a_compositor_without_the_virtual_keyboard_is_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on GNOME or KDE: wtype exits non-zero, and the error says what to choose instead;
    the automatic choice does not pick wtype there."""
    need(shutil.which("wtype") is not None, "wtype is not installed")
    fake = FakeCompositor(tmp_path, ("wl_compositor", "wl_seat", "xdg_wm_base"))
    try:
        monkeypatch.setenv("WAYLAND_DISPLAY", str(fake.path))
        with pytest.raises(TypingError) as info:
            WtypeBackend().press_key("tab")
        message = str(info.value)
        assert "does not support the virtual keyboard protocol" in message
        assert "choose dotool or ydotool, or the clipboard fallback" in message
        env = {"WAYLAND_DISPLAY": str(fake.path), "XDG_SESSION_TYPE": "wayland"}
        monkeypatch.setenv("PATH", str(Path(shutil.which("wtype") or "").parent))
        chosen = choose_backend(env=env, clipboard_fallback=True, clipboard=print)
        assert chosen.name == "clipboard"
    finally:
        fake.close()
