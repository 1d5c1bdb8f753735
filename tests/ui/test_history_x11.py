"""Typing into other applications under a real X server (Xvfb) from the window, with the history:
the sentence typed into the receiver is kept with its window's title; with no window focused,
xdotool would exit 0 and type into nothing, so the typing fails, says what to do, and the words
are kept in the window and in the history as failed. The window itself is offscreen Qt; the
typing (xdotool) and the receiver (tests/xserver.py) are real."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pulse import need
from xserver import Receiver, XServer

from dictate.editing.history import FAILED, OK, OTHER_APP
from dictate.events import Finalized
from dictate.output.backends.xdotool import XdotoolBackend
from dictate.output.typist import Typist

pytestmark = pytest.mark.slow


@pytest.fixture
def xserver(monkeypatch: pytest.MonkeyPatch) -> Iterator[XServer]:
    need(shutil.which("xdotool") is not None, "xdotool is not installed")
    with XServer() as server:
        monkeypatch.setenv("DISPLAY", server.display)  # for xdotool; Qt stays offscreen
        yield server


def entries(window: Any) -> list[tuple[str, str, str]]:
    return [(e.text, e.target, e.status) for e in window.history.store().entries()]


def test_typed_into_the_receiver_is_kept_with_its_title(
    xserver: XServer, tmp_path: Path, window: Any, qtbot: Any
) -> None:
    receiver = Receiver(xserver, tmp_path)
    try:
        window.typing.start_run(Typist(XdotoolBackend()))
        window.events.dispatch(Finalized(0.1, 1, ["Hello there."], pending=""))
        assert receiver.wait_for("Hello there.") == "Hello there."
        qtbot.waitUntil(lambda: len(entries(window)) == 1, timeout=10_000)
        assert entries(window) == [("Hello there.", "dictate-test-receiver", OK)]
    finally:
        receiver.close()


def test_with_no_window_focused_the_typing_fails_and_the_words_are_kept(
    xserver: XServer, window: Any, qtbot: Any
) -> None:
    window.typing.start_run(Typist(XdotoolBackend()))
    window.events.dispatch(Finalized(0.1, 1, ["Nobody listens."], pending=""))
    qtbot.waitUntil(lambda: window.typing.typist is None, timeout=10_000)
    message = window.messages.label.text()
    assert "no window has the keyboard focus" in message and "Click into the window" in message
    assert window.editor.text == "Nobody listens."
    assert entries(window) == [("Nobody listens.", OTHER_APP, FAILED)]
