"""The automatic choice of the typing backend on Wayland, by what the compositor offers (asked
over its socket: a fake compositor here, a real sway in test_typing_wayland.py) and, where it
cannot be asked, by the desktop's name; and the Wayland backends' refusals (fake programs)."""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

import pytest
from wayland import FakeCompositor

from dictate.errors import TypingError
from dictate.output.backends.wayland import VIRTUAL_KEYBOARD, compositor_globals
from dictate.output.backends.wtype import WtypeBackend
from dictate.output.backends.ydotool import YdotoolBackend
from dictate.output.chooser import choose_backend

WLROOTS = ("wl_compositor", "wl_seat", "xdg_wm_base", VIRTUAL_KEYBOARD)
MUTTER = ("wl_compositor", "wl_seat", "xdg_wm_base", "zwp_text_input_manager_v3")


def programs(folder: Path, monkeypatch: pytest.MonkeyPatch, *names: str) -> Path:
    """Only ``names`` on PATH, each a program that records its arguments and succeeds."""
    folder.mkdir(exist_ok=True)
    log = folder / "calls.log"
    for name in names:
        exe = folder / name
        exe.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\nexit 0\n')
        exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(folder))
    return log


def wayland(desktop: str, **extra: str) -> dict[str, str]:
    """A Wayland session's environment whose compositor cannot be asked (no runtime folder)."""
    return {"WAYLAND_DISPLAY": "wayland-0", "XDG_SESSION_TYPE": "wayland",
            "XDG_CURRENT_DESKTOP": desktop, **extra}  # fmt: skip


@pytest.mark.parametrize(
    ("desktop", "installed", "chosen"),
    [
        ("sway", ("wtype", "dotool", "ydotool"), "wtype"),
        ("Hyprland", ("wtype", "ydotool"), "wtype"),
        ("river", ("wtype",), "wtype"),
        ("", ("wtype", "dotool"), "wtype"),  # unknown: try the virtual keyboard first
        ("sway", ("ydotool",), "ydotool"),
        ("GNOME", ("wtype", "dotool", "ydotool"), "dotool"),
        ("ubuntu:GNOME", ("wtype", "ydotool"), "ydotool"),
        ("KDE", ("wtype", "dotool"), "dotool"),
        ("KDE", ("wtype",), "clipboard"),  # with the fallback on
    ],
)
def test_the_choice_by_desktop_where_the_compositor_cannot_be_asked(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    desktop: str,
    installed: tuple[str, ...],
    chosen: str,
) -> None:
    programs(tmp_path / "bin", monkeypatch, *installed)
    backend = choose_backend(env=wayland(desktop), clipboard_fallback=True, clipboard=print)
    assert backend.name == chosen


def test_on_gnome_with_only_wtype_the_error_says_why_and_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    programs(tmp_path / "bin", monkeypatch, "wtype")
    with pytest.raises(TypingError) as info:
        choose_backend(env=wayland("GNOME"))
    message = str(info.value)
    assert "this desktop (GNOME) has no virtual-keyboard protocol" in message
    assert "install dotool or ydotool" in message and "clipboard fallback" in message


def test_what_the_compositor_offers_decides_over_the_desktop_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    programs(tmp_path / "bin", monkeypatch, "wtype", "dotool")
    mutter = FakeCompositor(tmp_path, MUTTER)
    wlroots = FakeCompositor(tmp_path / "bin", WLROOTS)
    try:
        env = wayland("sway", WAYLAND_DISPLAY=str(mutter.path))
        assert choose_backend(env=env).name == "dotool"
        env = wayland("KDE", WAYLAND_DISPLAY="wayland-fake", XDG_RUNTIME_DIR=str(tmp_path / "bin"))
        assert choose_backend(env=env).name == "wtype"
    finally:
        mutter.close()
        wlroots.close()


def test_the_compositor_is_asked_over_its_socket(tmp_path: Path) -> None:
    fake = FakeCompositor(tmp_path, WLROOTS)
    try:
        relative = {"WAYLAND_DISPLAY": "wayland-fake", "XDG_RUNTIME_DIR": str(tmp_path)}
        assert compositor_globals(relative) == set(WLROOTS)
        assert compositor_globals({"WAYLAND_DISPLAY": str(fake.path)}) == set(WLROOTS)
        default = {"XDG_RUNTIME_DIR": str(tmp_path)}  # wayland-0, which is not there
        assert compositor_globals(default) is None
        assert compositor_globals({"WAYLAND_DISPLAY": "wayland-fake"}) is None  # no runtime
    finally:
        fake.close()


@pytest.mark.parametrize("answer", [None, b"\x01\x00\x00\x00\x04\x00\x00\x00"])
def test_a_socket_that_does_not_answer_in_wayland_is_unknown(
    tmp_path: Path, answer: bytes | None
) -> None:
    """No answer (within the time allowed) or a malformed one: None, not a guess."""
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "mute"))
    server.listen(1)
    done = threading.Event()

    def serve() -> None:
        conn, _ = server.accept()
        if answer is not None:
            conn.sendall(answer)
        done.wait(5)
        conn.close()

    threading.Thread(target=serve, daemon=True).start()
    try:
        assert compositor_globals({"WAYLAND_DISPLAY": str(tmp_path / "mute")}, 0.3) is None
    finally:
        done.set()
        server.close()


def test_ydotool_refuses_text_it_would_drop_before_typing_any(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ydotool types by a US layout's key codes and leaves out (or mistypes) the rest while
    reporting success: such text is a TypingError, and nothing of it is typed."""
    log = programs(tmp_path, monkeypatch, "ydotool")
    with pytest.raises(TypingError, match="ydotool types ASCII only and cannot type 'é😀'"):
        YdotoolBackend().type_text("café 😀")
    assert not log.exists()
    YdotoolBackend().type_text("cafe\t~")
    assert log.read_text(encoding="utf-8") == "ydotool type -- cafe\t~\n"


@pytest.mark.parametrize(
    ("printed", "advice"),
    [
        ("Compositor does not support the virtual keyboard protocol", "choose dotool or ydotool"),
        ("Wayland connection failed", "could not connect to the Wayland display (wayland-9)"),
        ("something new", None),
    ],
)
def test_a_failing_wtype_is_a_typing_error_that_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, printed: str, advice: str | None
) -> None:
    exe = tmp_path / "wtype"
    exe.write_text(f'#!/bin/sh\necho "{printed}" >&2\nexit 1\n')
    exe.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path) + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-9")
    with pytest.raises(TypingError) as info:
        WtypeBackend().type_text("x")
    message = str(info.value)
    assert message.startswith(f"wtype could not type: {printed}")
    assert (advice in message) if advice else message == f"wtype could not type: {printed}"
