"""The first-start model dialog with sizes over 2 GiB, downloading from a real HTTP server on
127.0.0.1 on its real download thread.

A model over 2 GiB overflowed the dialog's ``Signal(int, int)`` (a Qt ``int`` has 32 bits) on
every progress update: the dialog got garbage, and PySide reported each overflow to
``sys.excepthook`` on the download thread, where the app's hook built its error dialog, off
the GUI thread, which crashed the app.
"""

from __future__ import annotations

import contextlib
import http.server
import shutil
import sys
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from dictate.store.catalog import BASE_URL_ENV, RECOMMENDED
from dictate.store.store import ModelStore

GIB = 1024**3


class _Announcer(http.server.BaseHTTPRequestHandler):
    """Announces ``server.announce`` bytes, sends a few, then holds the connection open until
    ``server.release`` is set (the dialog's Cancel ends it)."""

    protocol_version = "HTTP/1.0"
    server: _AnnouncingServer

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(self.server.announce))
        self.end_headers()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(b"PK\x03\x04" * 256)
            self.wfile.flush()
            self.server.release.wait(20)

    def log_message(self, format: str, *args: object) -> None:
        pass


class _AnnouncingServer(http.server.ThreadingHTTPServer):
    daemon_threads = True
    announce = 0
    release: threading.Event


@pytest.fixture
def announcing(monkeypatch: pytest.MonkeyPatch) -> Iterator[_AnnouncingServer]:
    """A server for the catalogue's recommended model (set its ``announce``)."""
    httpd = _AnnouncingServer(("127.0.0.1", 0), _Announcer)
    httpd.release = threading.Event()
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    monkeypatch.setenv(BASE_URL_ENV, f"http://127.0.0.1:{httpd.server_address[1]}")
    try:
        yield httpd
    finally:
        httpd.release.set()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


@pytest.fixture
def excepthook_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """(exception type, thread name) of every call of ``sys.excepthook``: the app's hook shows
    a dialog, which must never happen on the download thread."""
    calls: list[tuple[str, str]] = []

    def hook(kind: type[BaseException], exc: BaseException, tb: object) -> None:
        calls.append((kind.__name__, threading.current_thread().name))

    monkeypatch.setattr(sys, "excepthook", hook)
    return calls


def _spy(monkeypatch: pytest.MonkeyPatch, slot: str) -> list[tuple[Any, ...]]:
    """The arguments of every call of the dialog's ``slot``, each with whether it ran on the
    GUI thread; the slot still runs."""
    from dictate.ui.dialogs import ModelDialog

    calls: list[tuple[Any, ...]] = []
    real = getattr(ModelDialog, slot)

    def spy(self: ModelDialog, *args: Any) -> None:
        calls.append((*args, threading.current_thread() is threading.main_thread()))
        real(self, *args)

    monkeypatch.setattr(ModelDialog, slot, spy)
    return calls


def _finish(dialog: Any, server: _AnnouncingServer) -> None:
    """Cancel the download, if any, and wait for its thread, so none outlives the test."""
    dialog.reject()
    server.release.set()
    if dialog._worker is not None:
        dialog._worker.join(20)
        assert not dialog._worker.is_alive()


def test_progress_over_2_gib_reaches_the_dialog_intact(
    qtbot: Any,
    announcing: _AnnouncingServer,
    excepthook_calls: list[tuple[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The server announces 3 GiB and sends 1 KB: the dialog's slot gets both numbers as they
    are, on the GUI thread, and the bar shows a fraction of 3 GiB. The free space is faked
    (1 PB): the store asks for room for 6 GiB, which a test machine may not have, and only
    the 1 KB is ever written."""
    from dictate.ui.dialogs import ModelDialog

    real = shutil.disk_usage(".")
    monkeypatch.setattr(
        "dictate.store.store.shutil.disk_usage",
        lambda path: type(real)(10**15, 0, 10**15),
    )
    announcing.announce = 3 * GIB
    progress = _spy(monkeypatch, "_on_progress")
    dialog = ModelDialog()
    qtbot.addWidget(dialog)
    try:
        dialog.start_download()
        qtbot.waitUntil(
            lambda: any(done == 1024 for done, _total, _gui in progress), timeout=20_000
        )
    finally:
        _finish(dialog, announcing)
    assert progress[:2] == [(0, 3 * GIB, True), (1024, 3 * GIB, True)]
    assert dialog.progress.maximum() == 1000  # a total above 0 was seen: no longer "busy"
    assert excepthook_calls == []


def test_a_64_bit_progress_from_another_thread_is_received(
    qtbot: Any, excepthook_calls: list[tuple[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The signal itself, emitted as the download thread does, with values a 32-bit int
    cannot hold (5 GiB of 10**15 bytes)."""
    from dictate.ui.dialogs import ModelDialog

    progress = _spy(monkeypatch, "_on_progress")
    dialog = ModelDialog()
    qtbot.addWidget(dialog)
    emitter = threading.Thread(
        target=dialog._signals.progress.emit, args=(5 * GIB, 10**15), name="dictate-download"
    )
    emitter.start()
    emitter.join()
    qtbot.waitUntil(lambda: bool(progress), timeout=5_000)
    assert progress == [(5 * GIB, 10**15, True)]
    assert excepthook_calls == []


def test_a_refused_download_is_said_by_the_dialog_on_the_gui_thread(
    qtbot: Any,
    announcing: _AnnouncingServer,
    excepthook_calls: list[tuple[str, str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A server announcing a petabyte: the store refuses before writing a byte, and the
    refusal is shown by the dialog's slot on the GUI thread, not by anything on the download
    thread; the dialog offers to retry and nothing is left in the store."""
    from dictate.ui.dialogs import ModelDialog

    announcing.announce = 10**15
    failed = _spy(monkeypatch, "_on_failed")
    dialog = ModelDialog()
    qtbot.addWidget(dialog)
    try:
        dialog.start_download()
        qtbot.waitUntil(lambda: dialog.download_button.isEnabled(), timeout=20_000)
    finally:
        _finish(dialog, announcing)
    [(message, on_gui_thread)] = failed
    assert on_gui_thread
    assert message.startswith("refusing to download http://127.0.0.1:") and RECOMMENDED in message
    assert "the server announces 1.0 PB" in message
    assert dialog.message.text().startswith("Refusing to download ")
    assert "Retry" in dialog.download_button.text()
    assert excepthook_calls == []
    store = ModelStore()
    assert store.installed() == []
    assert not store.root.exists() or list(store.root.iterdir()) == []
