"""One running instance: the server (QLocalServer) against the Qt-free client (AF_UNIX socket),
stale sockets, a second server, clients that misbehave, and how the app applies commands."""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, cast

import pytest
from pytestqt.qtbot import QtBot

from dictate.cli.control import cmd_control
from dictate.control import (
    ADDRESS_ENV,
    InstanceNotResponding,
    _send_qt,
    instance_address,
    send_command,
)
from dictate.errors import DictateError
from dictate.ui.app import RemoteCommands, apply_command
from dictate.ui.instance import DataFolderClaim, InstanceServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")


@pytest.fixture
def address(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A socket path of this test's own (short: AF_UNIX paths hold about 100 bytes)."""
    folder = tempfile.mkdtemp(prefix="dci")
    path = os.path.join(folder, "instance.sock")
    monkeypatch.setenv(ADDRESS_ENV, path)
    yield path
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def server(qtbot: QtBot, address: str) -> Iterator[InstanceServer]:
    srv = InstanceServer(client_timeout_ms=500)
    assert srv.listen()
    assert srv.listening
    yield srv
    srv.close()


def in_thread(qtbot: QtBot, call: Callable[[], Any], timeout: int = 10_000) -> Any:
    """Run a blocking client call in a thread while the GUI thread's event loop serves it."""
    result: dict[str, Any] = {}

    def work() -> None:
        try:
            result["value"] = call()
        except BaseException as exc:
            result["error"] = exc

    thread = threading.Thread(target=work)
    thread.start()
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=timeout)
    if "error" in result:
        raise result["error"]
    return result["value"]


def raw_exchange(path: str, data: bytes, *, read: bool = True) -> bytes:
    """Send raw bytes on a plain socket and read what comes back until the server closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(path)
        if data:
            sock.sendall(data)
        answer = b""
        while read:
            chunk = sock.recv(1024)
            if not chunk:
                break
            answer += chunk
        return answer


def test_the_address_is_the_environment_override(address: str) -> None:
    assert instance_address() == address


def test_the_address_is_a_path_of_this_user(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(ADDRESS_ENV, raising=False)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert instance_address() == str(runtime / "dictate.sock")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "missing"))
    fallback = instance_address()
    assert fallback == os.path.join(tempfile.gettempdir(), f"dictate-{os.getuid()}.sock")
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert instance_address() == fallback


def test_a_command_is_answered_ok_and_emitted(qtbot: QtBot, server: InstanceServer) -> None:
    for command in ("toggle", "start", "stop", "show", "quit"):
        with qtbot.waitSignal(server.commandReceived, timeout=10_000) as emitted:
            assert in_thread(qtbot, partial(send_command, command)) == "ok"
        assert emitted.args == [command]


def test_a_refused_command_is_answered_with_why_and_still_emitted(
    qtbot: QtBot, server: InstanceServer
) -> None:
    """The window refuses to start behind an open dialog: the sender (a script, a shortcut's
    `dictate start`) is told why, and the window still gets the command to say so there too."""
    server.refusal = lambda command: "a dialog is open" if command == "start" else None
    with qtbot.waitSignal(server.commandReceived) as signal:
        assert in_thread(qtbot, lambda: send_command("start")) == "error a dialog is open"
    assert signal.args == ["start"]
    assert in_thread(qtbot, lambda: send_command("stop")) == "ok"
    with pytest.raises(
        DictateError, match=r"^the running dictate refused start: a dialog is open$"
    ):
        in_thread(qtbot, lambda: cmd_control("start", io.StringIO()))


def test_ping_is_answered_and_not_emitted(qtbot: QtBot, server: InstanceServer) -> None:
    got: list[str] = []
    server.commandReceived.connect(got.append)
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    qtbot.wait(50)
    assert got == []


def test_the_qt_client_of_windows_works_here_too(qtbot: QtBot, server: InstanceServer) -> None:
    """The client Windows uses (QLocalSocket), in a process of its own as it runs there."""
    code = (
        "import sys; from dictate.control import _send_qt; "
        "print(_send_qt(sys.argv[1], b'show\\n', 5))"
    )

    def client() -> str:
        done = subprocess.run(
            [sys.executable, "-c", code, server.address],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    with qtbot.waitSignal(server.commandReceived, timeout=60_000) as emitted:
        assert in_thread(qtbot, client, timeout=60_000) == "ok"
    assert emitted.args == ["show"]
    server.close()
    assert _send_qt(server.address, b"show\n", 1.0) is None


def test_a_second_server_on_the_address_steps_back(qtbot: QtBot, server: InstanceServer) -> None:
    second = InstanceServer()
    assert second.listen() is False
    assert not second.listening
    # The first one still serves (the second's check was a connection that said nothing).
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    server.close()
    assert not os.path.exists(server.address)  # closing removes the socket
    assert second.listen() is True
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    second.close()


def test_a_stale_socket_is_replaced(qtbot: QtBot, address: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as dead:
        dead.bind(address)  # the file stays, nothing listens: an instance that crashed
    assert Path(address).is_socket()
    assert send_command("toggle") is None
    server = InstanceServer()
    assert server.listen()
    with qtbot.waitSignal(server.commandReceived, timeout=10_000) as emitted:
        assert in_thread(qtbot, lambda: send_command("toggle")) == "ok"
    assert emitted.args == ["toggle"]
    server.close()


def test_a_missing_folder_is_made(
    qtbot: QtBot, address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    deeper = os.path.join(os.path.dirname(address), "run", "i.sock")
    monkeypatch.setenv(ADDRESS_ENV, deeper)
    server = InstanceServer()
    assert server.listen() and server.listening
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    assert os.stat(os.path.dirname(deeper)).st_mode & 0o777 == 0o700
    server.close()


def test_a_file_that_is_not_a_socket_is_left_alone(
    qtbot: QtBot, address: str, caplog: pytest.LogCaptureFixture
) -> None:
    Path(address).write_text("precious")
    server = InstanceServer()
    assert server.listen()  # the window opens all the same, without remote control
    assert not server.listening
    assert Path(address).read_text() == "precious"
    assert "cannot listen for commands" in caplog.text


def test_nothing_listening_gives_none(address: str) -> None:
    assert send_command("toggle") is None
    assert send_command("toggle", address=os.path.join(address, "not-a-folder")) is None


def test_not_a_command_word_is_refused_by_the_client(address: str) -> None:
    for bad in ("two words", "toggle\nquit", "", "x" * 101, "TOGGLE"):
        with pytest.raises(ValueError):
            send_command(bad)


def test_misbehaving_clients_get_an_error_and_the_server_goes_on(
    qtbot: QtBot, server: InstanceServer
) -> None:
    got: list[str] = []
    server.commandReceived.connect(got.append)
    path = server.address
    cases = {
        b"\xff\xfe\x00garbage\n": b"error unknown command\n",
        b"rm -rf /\n": b"error unknown command\n",
        b"x" * 101: b"error line too long\n",  # no line break needed to know
        b"t" * 5000 + b"\n": b"error line too long\n",
        b"": b"error no command in time\n",  # connects, never sends
        b"sho": b"error no command in time\n",  # never ends its line
        b"  Show \r\nquit\n": b"ok\n",  # one line per connection: the second is ignored
    }
    for data, expected in cases.items():
        assert in_thread(qtbot, partial(raw_exchange, path, data)) == expected, data
    # A client that goes away without a word, and one that goes before the answer.
    in_thread(qtbot, lambda: raw_exchange(path, b"", read=False))
    in_thread(qtbot, lambda: raw_exchange(path, b"toggle\n", read=False))
    qtbot.waitUntil(lambda: got == ["show", "toggle"], timeout=5_000)
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    qtbot.waitUntil(lambda: not server._clients, timeout=5_000)


def test_several_clients_at_once(qtbot: QtBot, server: InstanceServer) -> None:
    got: list[str] = []
    server.commandReceived.connect(got.append)
    answers: list[str | None] = []
    silent: list[socket.socket] = []
    for _ in range(3):  # clients that hold a connection open without a word meanwhile
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(server.address)
        silent.append(sock)
    threads = [
        threading.Thread(target=lambda: answers.append(send_command("show", timeout=10)))
        for _ in range(10)
    ]
    for thread in threads:
        thread.start()
    qtbot.waitUntil(lambda: not any(t.is_alive() for t in threads), timeout=20_000)
    assert answers == ["ok"] * 10
    qtbot.waitUntil(lambda: len(got) == 10, timeout=5_000)
    for sock in silent:
        sock.settimeout(10)
        assert in_thread(qtbot, partial(sock.recv, 100)) == b"error no command in time\n"
        sock.close()


def test_too_many_clients_at_once_are_closed(qtbot: QtBot, server: InstanceServer) -> None:
    from dictate.ui.instance import MAX_CLIENTS

    held = []
    for _ in range(MAX_CLIENTS):
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(server.address)
        held.append(sock)
    qtbot.waitUntil(lambda: len(server._clients) == MAX_CLIENTS, timeout=5_000)

    # One more is closed without an answer; once the others time out, commands work again.
    def one_more() -> bytes:
        try:
            return raw_exchange(server.address, b"show\n")
        except (ConnectionResetError, BrokenPipeError):  # closed with the line unread, or before
            return b""

    assert in_thread(qtbot, one_more) == b""
    qtbot.waitUntil(lambda: not server._clients, timeout=5_000)
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    for sock in held:
        sock.close()


def test_an_instance_that_does_not_answer(address: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as stuck:
        stuck.bind(address)
        stuck.listen(1)  # accepts into the backlog, never answers: a frozen event loop
        with pytest.raises(InstanceNotResponding, match="did not answer"):
            send_command("toggle", timeout=0.3)


def test_the_answer_is_out_before_the_command_is_carried_out(
    qtbot: QtBot, server: InstanceServer
) -> None:
    """A slot that holds the event loop (quit asks whether to save) must not hold the client's
    answer back."""
    answered = threading.Event()
    seen: list[bool] = []
    server.commandReceived.connect(lambda command: seen.append(answered.wait(5)))

    def client() -> None:
        assert send_command("quit") == "ok"
        answered.set()

    thread = threading.Thread(target=client)
    thread.start()
    qtbot.waitUntil(lambda: bool(seen), timeout=10_000)
    thread.join(10)
    assert seen == [True]


class FakeWindow:
    """What apply_command calls on the window, recorded."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.minimized = False

    def __getattr__(self, name: str) -> Callable[[], None]:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda: self.calls.append(name)

    def isMinimized(self) -> bool:
        return self.minimized


def test_apply_command_calls_the_window(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeWindow()
    window = cast(Any, fake)
    caplog.set_level("INFO", logger="dictate.ui")
    for command in ("toggle", "start", "stop", "show", "quit"):
        apply_command(window, command)
    assert fake.calls == ["toggle_dictation", "start_dictation", "stop_dictation", "show", "close"]
    fake.minimized = True
    fake.calls.clear()
    apply_command(window, "show")
    assert fake.calls == ["showNormal"]
    assert "remote command: toggle" in caplog.text


def test_remote_commands_wait_for_the_window_then_go_in_order(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QWidget

    class Window(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []

        def toggle_dictation(self) -> None:
            self.calls.append("toggle")

        def stop_dictation(self) -> None:
            self.calls.append("stop")

    window = Window()
    qtbot.addWidget(window)
    remote = RemoteCommands("toggle")
    remote.submit("stop")  # came in while the window was being built
    assert window.calls == []
    remote.window_ready(cast(Any, window))
    remote.submit("toggle")  # before the event loop ran: still queued behind the others
    assert window.calls == []
    qtbot.waitUntil(lambda: window.calls == ["toggle", "stop", "toggle"], timeout=5_000)
    remote.submit("stop")  # from then on at once
    assert window.calls == ["toggle", "stop", "toggle", "stop"]


HOLD_CLAIM = """
import sys, time
from pathlib import Path
from dictate.ui.instance import DataFolderClaim
claim = DataFolderClaim(Path(sys.argv[1]) if len(sys.argv) > 1 else None)
print(claim.claim(sys.argv[2] if len(sys.argv) > 2 else "/nowhere/else.sock"), flush=True)
time.sleep(120)
"""


@pytest.fixture
def holder(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Start another process that claims a data folder and holds it until killed."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        child = subprocess.Popen(
            [sys.executable, "-c", HOLD_CLAIM, *args], stdout=subprocess.PIPE, text=True
        )
        started.append(child)
        assert child.stdout is not None
        assert child.stdout.readline() == "True\n"  # it holds the folder now
        return child

    yield start
    for child in started:
        child.kill()
        child.wait()


def test_a_data_folder_is_claimed_by_one_process_at_a_time(
    tmp_path: Path, holder: Callable[..., subprocess.Popen[str]]
) -> None:
    first = holder(str(tmp_path), "/run/user/1/dictate.sock")
    assert (tmp_path / "instance.address").read_text() == "/run/user/1/dictate.sock\n"
    second = DataFolderClaim(tmp_path)
    assert second.claim("/tmp/dictate-1.sock", timeout_ms=100) is False
    assert (tmp_path / "instance.address").read_text() == "/run/user/1/dictate.sock\n"
    assert second.holder() == first.pid
    # The holder crashes: its lock is stale, and the next claim takes the folder over.
    first.kill()
    first.wait()
    assert second.claim("/tmp/dictate-1.sock", timeout_ms=100) is True
    assert (tmp_path / "instance.address").read_text() == "/tmp/dictate-1.sock\n"
    second.release()
    assert not (tmp_path / "instance.lock").exists()


def test_a_folder_that_cannot_be_claimed_lets_the_app_go_on(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    assert DataFolderClaim(tmp_path / "file" / "data").claim("/x.sock", timeout_ms=100) is True


def test_a_client_in_another_environment_reaches_the_app_through_the_data_folder(
    qtbot: QtBot, server: InstanceServer, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The app listens on one address; a shell whose environment names another one (another
    XDG_RUNTIME_DIR) finds it through the address the app wrote into the data folder."""
    claim = DataFolderClaim()
    assert claim.claim(server.address) is True
    try:
        monkeypatch.setenv(ADDRESS_ENV, str(tmp_path / "elsewhere.sock"))
        with qtbot.waitSignal(server.commandReceived) as signal:
            assert in_thread(qtbot, lambda: send_command("show", timeout=5)) == "ok"
        assert signal.args == ["show"]
    finally:
        claim.release()
    # The app is gone from the folder (its address file may stay): nothing answers.
    server.close()
    assert in_thread(qtbot, lambda: send_command("show", timeout=5)) is None


def test_devices_use_tells_the_running_app_to_reload(qtbot: QtBot, server: InstanceServer) -> None:
    from dictate.cli.devices import _tell_the_running_app

    out = io.StringIO()
    with qtbot.waitSignal(server.commandReceived) as signal:
        in_thread(qtbot, lambda: _tell_the_running_app(out))
    assert signal.args == ["reload"]
    assert out.getvalue() == "the running app uses it from its next dictation run\n"
    server.close()
    out = io.StringIO()
    in_thread(qtbot, lambda: _tell_the_running_app(out))  # no app: nothing to say
    assert out.getvalue() == ""
