"""Announcements for screen readers (dictate/ui/announcer.py): what the window announces, the
rate limit that merges a burst into one announcement, the setting; and, on a real AT-SPI bus
under Xvfb, what a screen reader hears while the real window dictates the bundled recording."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pulse import need
from PySide6.QtGui import QAccessible
from xserver import XServer, end_process

from dictate.config import Settings
from dictate.errors import AudioDeviceError
from dictate.events import Error, Finalized, Finished
from dictate.ui.announcer import Announcer
from dictate.ui.run_states import State


@pytest.fixture
def heard(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any, Any]]:
    """A capture, not a screen reader: every announcement event handed to
    ``QAccessible.updateAccessibility`` (what Qt's accessibility bridge would send on), as
    (message, politeness, the object it comes from). Offscreen no bridge is active, so this is
    where the events are seen; the AT-SPI test below hears the real ones."""
    events: list[tuple[str, Any, Any]] = []

    def capture(event: Any) -> None:
        events.append((event.message(), event.politeness(), event.object()))

    monkeypatch.setattr(QAccessible, "updateAccessibility", capture)
    return events


def messages(heard: list[tuple[str, Any, Any]]) -> list[str]:
    return [message for message, _, _ in heard]


def test_a_burst_is_merged_into_one_polite_announcement(qtbot: Any, heard: list[Any]) -> None:
    from PySide6.QtWidgets import QLabel

    source = QLabel("dictate")
    qtbot.addWidget(source)
    # A rate limit longer than any test, its end played by flush(): a loaded machine may stall
    # longer than a short one between two lines of a test (it did, for 0.3 s).
    announcer = Announcer(source, interval_s=3600)
    announcer.say("Listening.")  # nothing said for a while: at once
    assert messages(heard) == ["Listening."]
    announcer.say("Hello there.")
    announcer.say("  How are\nyou?  ")
    announcer.say("")  # nothing to say
    assert messages(heard) == ["Listening."]  # within the interval: held back, merged
    announcer.flush()  # the interval is up
    assert messages(heard) == ["Listening.", "Hello there. How are you?"]
    _, politeness, sender = heard[-1]
    assert politeness == QAccessible.AnnouncementPoliteness.Polite and sender is source
    # The same state twice in a row is said once.
    announcer.say("Stopped.")
    announcer.say("Stopped.")
    announcer.flush()
    assert messages(heard)[-1] == "Stopped." and len(heard) == 3


def test_what_is_held_back_is_said_when_the_interval_is_up(qtbot: Any, heard: list[Any]) -> None:
    from PySide6.QtWidgets import QLabel

    source = QLabel("dictate")
    qtbot.addWidget(source)
    announcer = Announcer(source, interval_s=0.3)
    began = time.monotonic()
    announcer.say("Listening.")
    announcer.say("Hello there.")
    qtbot.waitUntil(lambda: len(heard) == 2, timeout=60_000)  # a hang guard
    assert time.monotonic() - began >= 0.28  # never sooner than the interval
    assert messages(heard) == ["Listening.", "Hello there."]
    qtbot.wait(400)
    announcer.say("Stopped.")
    assert messages(heard)[-1] == "Stopped."  # the interval is over: at once again


def test_an_announcement_that_fails_costs_nothing(
    qtbot: Any, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from PySide6.QtWidgets import QLabel

    def broken(event: Any) -> None:
        raise RuntimeError("no bridge")

    monkeypatch.setattr(QAccessible, "updateAccessibility", broken)
    source = QLabel("dictate")
    qtbot.addWidget(source)
    Announcer(source).say("Hello.")
    assert "screen reader announcement failed" in caplog.text


def test_the_window_announces_sentences_and_states(
    window: Any, qtbot: Any, heard: list[Any]
) -> None:
    """Listening, the finalized sentences (merged when they come together), asleep, awake,
    stopped; a start that fails says why, and no "Stopped." follows it."""
    assert window.settings.announce is True  # the default
    window.announcements.announcer = Announcer(window, interval_s=0.2)  # a shorter limit
    state, event = window.controller.stateChanged.emit, window.controller.pipelineEvent.emit
    state(State.STARTING)
    state(State.LISTENING)
    event(Finalized(0.3, 1, ["Hello there."], pending=""))
    event(Finalized(0.4, 2, ["How are you?"], pending=""))
    qtbot.waitUntil(lambda: len(heard) == 2, timeout=2000)
    window.event_view.set_asleep(True)
    qtbot.waitUntil(lambda: len(heard) == 3, timeout=2000)
    window.event_view.set_asleep(False)
    qtbot.waitUntil(lambda: len(heard) == 4, timeout=2000)
    event(Finished(0.5, "stopped", 1.0, 0))
    state(State.STOPPING)
    state(State.IDLE)
    qtbot.waitUntil(lambda: len(heard) == 5, timeout=2000)
    assert messages(heard) == [
        "Listening.",
        "Hello there. How are you?",
        "Asleep; say wake up to dictate again.",
        "Listening.",
        "Stopped.",
    ]
    assert all(sender is window for _, _, sender in heard)
    heard.clear()
    qtbot.wait(250)
    state(State.STARTING)
    window.controller.failed.emit(AudioDeviceError("no microphone found"))
    state(State.IDLE)
    qtbot.waitUntil(lambda: len(heard) == 1, timeout=2000)
    qtbot.wait(250)
    assert messages(heard) == ["Dictation did not start: no microphone found."]


def test_a_lost_microphone_and_failed_typing_are_announced(
    window: Any, qtbot: Any, heard: list[Any]
) -> None:
    from recorder import Recorder

    from dictate.output.typist import Typist

    # A rate limit longer than any test: what comes after the first announcement waits for it
    # (on a loaded machine, a limit of 50 ms had passed before the next text came).
    announcer = Announcer(window, interval_s=3600)
    window.announcements.announcer = announcer
    window.controller.pipelineEvent.emit(Error(0.1, "the microphone was unplugged", fatal=True))
    qtbot.waitUntil(lambda: len(heard) == 1, timeout=60_000)  # a hang guard
    backend = Recorder(fail=True)
    window.typing.start_run(Typist(backend))
    window.controller.pipelineEvent.emit(Finalized(0.3, 1, ["Hello there."], pending=""))
    qtbot.waitUntil(lambda: window.typing.typist is None, timeout=60_000)  # the typing failed
    assert len(heard) == 1  # both wait for the rate limit
    announcer.flush()  # as its timer does when the limit is up
    assert messages(heard) == [
        "The microphone was unplugged",
        # within the rate limit of each other: one announcement
        "Hello there. Typing failed; the dictated text comes into this window.",
    ]


def test_nothing_is_announced_when_the_setting_is_off(
    window: Any, qtbot: Any, heard: list[Any]
) -> None:
    from dictate.ui.dialogs.settings import SettingsDialog

    dialog = SettingsDialog(window.settings)
    qtbot.addWidget(dialog)
    assert dialog.announce.isChecked()
    dialog.announce.setChecked(False)
    dialog.apply_to(window.settings)
    assert window.settings.announce is False
    assert Settings.from_dict(window.settings.to_dict()).announce is False
    window.controller.stateChanged.emit(State.LISTENING)
    window.controller.pipelineEvent.emit(Finalized(0.3, 1, ["Hello there."], pending=""))
    qtbot.wait(50)
    window.announcements.typing_failed()
    qtbot.wait(50)
    assert heard == []


# -- a screen reader's view: AT-SPI on a private D-Bus, the real window on Xvfb ---------------

# Registers for announcements with the AT-SPI registry, as a screen reader does (Orca asks for
# object:announcement), and prints each one it hears as a JSON line.
LISTENER = r"""
import json
import sys
import time

from PySide6.QtCore import SLOT, QCoreApplication, QObject, Slot
from PySide6.QtDBus import QDBusConnection, QDBusInterface, QDBusMessage

app = QCoreApplication(sys.argv[:1])
session = QDBusConnection.sessionBus()
deadline = time.monotonic() + 20
while not session.interface().isServiceRegistered("org.a11y.Bus").value():
    if time.monotonic() > deadline:
        sys.exit("no org.a11y.Bus on the session bus")
    time.sleep(0.05)
bus_reply = QDBusInterface("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", session).call(
    "GetAddress"
)
bus = QDBusConnection.connectToBus(bus_reply.arguments()[0], "a11y")


class Listener(QObject):
    @Slot(QDBusMessage)
    def announcement(self, message):
        kind, politeness, _, text = message.arguments()[:4]
        print(json.dumps({"text": text.variant(), "politeness": politeness}), flush=True)


listener = Listener()
bus.connect("", "", "org.a11y.atspi.Event.Object", "Announcement", listener,
            SLOT("announcement(QDBusMessage)"))
registry = QDBusInterface(
    "org.a11y.atspi.Registry", "/org/a11y/atspi/registry", "org.a11y.atspi.Registry", bus
)
reply = registry.call("RegisterEvent", "object:announcement")
if reply.errorMessage():
    sys.exit(f"RegisterEvent failed: {reply.errorMessage()}")
print(json.dumps({"ready": True}), flush=True)
app.exec()
"""

# The real window dictating the bundled recording through the real pipeline (the bundled
# engine, the shipped punctuation model), as dictate --self-test does, but on the X server with
# Qt's AT-SPI bridge on. It first sends probes until the listener has heard one (the bridge
# learns of the listener asynchronously), then dictates, then waits out the rate limit.
APP = r"""
import sys
import time
from pathlib import Path

from PySide6.QtCore import QCoreApplication
from PySide6.QtGui import QAccessible, QAccessibleAnnouncementEvent
from PySide6.QtWidgets import QApplication

from dictate.audio.capture import FileSource
from dictate.config import Settings
from dictate.editing.journal import Journal
from dictate.events import Finished
from dictate.paths import asset_path
from dictate.ui.main_window import MainWindow
from dictate.ui.run_states import State

folder = Path(sys.argv[1])
app = QApplication(sys.argv[:1])
window = MainWindow(Settings(engine="sphinx", first_run_done=True), Journal(folder / "j.jsonl"),
                    save_settings_on_change=False)
window.document.load_text("", None)
window.show()
window.controller.preload_now()
deadline = time.monotonic() + 20
while not (folder / "go").exists() and time.monotonic() < deadline:
    QAccessible.updateAccessibility(QAccessibleAnnouncementEvent(window, "probe"))
    for _ in range(10):
        QCoreApplication.processEvents()
        time.sleep(0.01)
events = []
window.events.subscribe("observer", events.append)
window.dictation.start(lambda: FileSource(asset_path("sample_en.wav")))
deadline = time.monotonic() + 60
while window.controller.state != State.IDLE or not any(isinstance(e, Finished) for e in events):
    if time.monotonic() > deadline:
        sys.exit("dictation did not finish")
    QCoreApplication.processEvents()
    time.sleep(0.01)
end = time.monotonic() + 1.5  # the last announcement waits out the rate limit
while time.monotonic() < end:
    QCoreApplication.processEvents()
    time.sleep(0.01)
print(window.editor.text, flush=True)
window.document.modified = False
window.close()
"""


class A11yBus:
    """A private D-Bus session bus with the AT-SPI bus launcher on it (its bus socket in a
    private runtime folder): what a desktop session starts for screen readers."""

    def __init__(self, folder: Path) -> None:
        daemon, launcher = shutil.which("dbus-daemon"), "/usr/libexec/at-spi-bus-launcher"
        need(daemon is not None, "dbus-daemon is not installed (Debian: dbus-daemon)")
        need(
            os.access(launcher, os.X_OK),
            "the AT-SPI bus launcher is not installed (Debian: at-spi2-core)",
        )
        self.folder = folder
        self.runtime = folder / "runtime"
        self.runtime.mkdir(mode=0o700)
        self.session = subprocess.Popen(
            [str(daemon), "--session", "--nofork", "--print-address=1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert self.session.stdout is not None
        self.address = self.session.stdout.readline().strip()
        self.launcher: subprocess.Popen[bytes] | None = None
        if not self.address:
            self.stop()
            pytest.skip("the private D-Bus session bus did not start")
        self.launcher = subprocess.Popen(
            [launcher, "--launch-immediately"],
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("AT_SPI_BUS_ADDRESS", "DISPLAY")}
        env.update(DBUS_SESSION_BUS_ADDRESS=self.address, XDG_RUNTIME_DIR=str(self.runtime))
        env.update(extra)
        return env

    def stop(self) -> None:
        end_process(self.launcher)
        end_process(self.session)


@pytest.fixture
def a11y_bus(tmp_path: Path) -> Iterator[A11yBus]:
    bus = A11yBus(tmp_path)
    try:
        yield bus
    finally:
        bus.stop()


class Lines:
    """The JSON lines ``process`` prints, read on a thread of their own as they come."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue()
        assert process.stdout is not None
        stdout = process.stdout

        def read() -> None:
            for line in stdout:
                if line.strip():
                    self.queue.put(json.loads(line))
            self.queue.put(None)  # it ended

        threading.Thread(target=read, daemon=True).start()

    def next(self, timeout: float) -> dict[str, Any] | None:
        """The next line, or None when the process ended or ``timeout`` passed."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


@pytest.mark.slow
@pytest.mark.gui
def test_a_screen_reader_hears_the_finalized_sentences(a11y_bus: A11yBus, tmp_path: Path) -> None:
    """A real AT-SPI registry and bus, a listener registered for object:announcement (as Orca
    is), and the real window dictating the bundled recording on Xvfb with Qt's AT-SPI bridge
    on: the listener hears "Listening.", the finalized sentences, "Stopped.", all polite."""
    listener_errors, app_errors = tmp_path / "listener.err", tmp_path / "app.err"
    with listener_errors.open("w") as errors:
        listener = subprocess.Popen(
            [sys.executable, "-c", LISTENER],
            env=a11y_bus.env(QT_QPA_PLATFORM="offscreen"),
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
        )
    app: subprocess.Popen[str] | None = None
    lines = Lines(listener)
    try:
        ready = lines.next(20)
        if ready != {"ready": True}:
            end_process(listener)
            pytest.fail(f"the listener did not start: {listener_errors.read_text()}")
        with XServer() as server:
            env = a11y_bus.env(
                DISPLAY=server.display,
                QT_QPA_PLATFORM="xcb",
                QT_LINUX_ACCESSIBILITY_ALWAYS_ON="1",
                QT_ACCESSIBILITY="1",
            )
            with app_errors.open("w") as errors:
                app = subprocess.Popen(
                    [sys.executable, "-c", APP, str(tmp_path)],
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    text=True,
                )
            heard: list[dict[str, Any]] = []
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                line = lines.next(0.5)
                if line is None:
                    if app.poll() is not None:
                        break
                    continue
                if line["text"] == "probe":
                    (tmp_path / "go").touch()
                else:
                    heard.append(line)
                if heard and heard[-1]["text"].endswith("Stopped."):
                    break
            app.wait(30)
            assert app.stdout is not None
            typed = app.stdout.read()
    finally:
        end_process(listener)
        if app is not None:
            end_process(app)
    assert app.returncode == 0, app_errors.read_text()
    said = [h["text"] for h in heard]
    print("heard:", said)  # shown with pytest -s
    assert said[0] == "Listening." and said[-1].endswith("Stopped."), said
    assert all(h["politeness"] == 1 for h in heard)  # ATSPI_LIVE_POLITE
    spoken = " ".join(said)
    assert "Please call me tomorrow morning." in spoken, said
    # What was heard is what the window finalized: its text, between the two states.
    text = typed.strip()
    assert text.startswith("Please call me tomorrow morning.")
    assert spoken.removeprefix("Listening. ").removesuffix("Stopped.").strip() == text
