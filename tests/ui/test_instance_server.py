"""One running instance: the server (QLocalServer) against the Qt-free client (AF_UNIX socket),
stale sockets, a second server, clients that misbehave, sockets and folders of another user,
the data folder's lock (on a full disk too), and how the app applies commands."""

from __future__ import annotations

import errno
import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any, cast

import pytest
from other_user import OtherUser, second_user, shared_folder
from pytestqt.qtbot import QtBot

from dictate.cli.remote_control import cmd_control
from dictate.errors import DictateError
from dictate.instance_client import (
    ADDRESS_ENV,
    InstanceNotResponding,
    UnsafeInstanceAddress,
    _send_qt,
    instance_address,
    send_command,
)
from dictate.ui.app import RemoteCommands, apply_command, run_app
from dictate.ui.data_folder_claim import DataFolderClaim
from dictate.ui.instance_server import MAX_CLIENTS, InstanceServer

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets")


@pytest.fixture(scope="module")
def other_user() -> Iterator[OtherUser]:
    yield from second_user()


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder like /tmp (root's, sticky, everyone writes) that the other user can reach."""
    folder = shared_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def own_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The temporary directory of the fallback address, a /tmp-like folder of this test's own,
    so that no test touches the real /tmp/dictate-<uid> of the machine's user."""
    folder = shared_folder()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.delenv(ADDRESS_ENV, raising=False)
    monkeypatch.delenv("XDG_RUNTIME_DIR", raising=False)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


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
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, own_tmp: Path
) -> None:
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert instance_address() == str(runtime / "dictate.sock")
    # Without a private runtime folder, a folder of this user's own in the temp folder.
    fallback = str(own_tmp / f"dictate-{os.geteuid()}" / "dictate.sock")
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path / "missing"))
    assert instance_address() == fallback
    runtime.chmod(0o755)  # not private: others could read what is in it
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    assert instance_address() == fallback
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    assert instance_address() == fallback


def test_the_fallback_folder_is_made_private_by_the_app(qtbot: QtBot, own_tmp: Path) -> None:
    """No runtime folder: the socket no longer lies in the shared temp folder itself, where
    anyone may bind its name first, but in a folder of this user's that only they may enter."""
    address = instance_address()
    folder = own_tmp / f"dictate-{os.geteuid()}"
    assert address == str(folder / "dictate.sock")
    assert not folder.exists()
    server = InstanceServer()
    try:
        assert server.listen() and server.listening
        info = os.lstat(folder)
        assert info.st_uid == os.geteuid() and info.st_mode & 0o777 == 0o700
        assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    finally:
        server.close()


def test_a_fallback_folder_taken_by_another_user_is_passed_over(
    own_tmp: Path, other_user: OtherUser
) -> None:
    """Another user made dictate-<uid> in the temp folder first (they may: it is shared): the
    address goes to a private folder in this user's cache folder instead, never into theirs."""
    from platformdirs import user_cache_path

    theirs = other_user.make_folder(own_tmp / f"dictate-{os.geteuid()}", 0o777)
    cache_run = user_cache_path("dictate", appauthor=False) / "run"
    assert instance_address() == str(cache_run / "dictate.sock")
    # A folder of this user's that others may enter is passed over too.
    shutil.rmtree(theirs)
    theirs.mkdir(mode=0o700)
    theirs.chmod(0o755)
    assert instance_address() == str(cache_run / "dictate.sock")
    theirs.chmod(0o700)
    assert instance_address() == str(theirs / "dictate.sock")


def test_a_socket_of_another_user_gets_no_command(
    shared: Path, other_user: OtherUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another user bound the address first (in a shared folder) and listens: the client sends
    nothing there, and says whose socket it is and what to do."""
    path = shared / "dictate.sock"
    monkeypatch.setenv(ADDRESS_ENV, str(path))
    with other_user.listen(path) as theirs:
        with pytest.raises(UnsafeInstanceAddress) as refused:
            send_command("toggle")
        message = str(refused.value)
        assert str(path) in message
        assert f"belongs to user {other_user.name} (uid {other_user.uid})" in message
        assert "XDG_RUNTIME_DIR" in message
        with pytest.raises(UnsafeInstanceAddress):
            send_command("ping", address=str(path))
        assert theirs.seen() == []  # not even a connection


def test_a_folder_of_another_user_gets_no_command_and_no_server(
    qtbot: QtBot,
    shared: Path,
    other_user: OtherUser,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A socket of this user's in a folder another user owns: they could swap it for theirs at
    any moment, so the client does not connect, and the app does not listen there."""
    folder = other_user.make_folder(shared / "theirs", 0o755)
    path = folder / "dictate.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as ours:
        ours.bind(str(path))  # root may write into their folder; the socket is ours
        ours.listen(1)
        with pytest.raises(UnsafeInstanceAddress, match=f"its folder {folder} belongs to user"):
            send_command("toggle", address=str(path))
    path.unlink()
    server = InstanceServer(str(folder / "i.sock"))
    assert server.listen() is True  # the window opens, without remote control
    assert not server.listening
    assert not (folder / "i.sock").exists()
    assert f"belongs to user {other_user.name}" in caplog.text
    assert "cannot listen for commands" in caplog.text


def test_a_shared_sticky_folder_serves_and_a_link_to_the_socket_is_refused(
    qtbot: QtBot, shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a folder like /tmp (root's, sticky: no one may remove or rename another's file) this
    user's socket is safe to use; a symbolic link in its place could lead anywhere."""
    path = shared / "dictate.sock"
    monkeypatch.setenv(ADDRESS_ENV, str(path))
    server = InstanceServer()
    try:
        assert server.listen() and server.listening
        assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
        link = shared / "link.sock"
        link.symlink_to(path)
        with pytest.raises(UnsafeInstanceAddress, match="it is a symbolic link"):
            in_thread(qtbot, lambda: send_command("ping", address=str(link)))
    finally:
        server.close()


def test_the_app_does_not_take_over_a_socket_of_another_user(
    qtbot: QtBot, shared: Path, other_user: OtherUser, caplog: pytest.LogCaptureFixture
) -> None:
    """The address is taken by another user's socket: the app neither asks it (a connection
    there could be answered as if by dictate) nor listens instead of it."""
    path = shared / "dictate.sock"
    with other_user.listen(path) as theirs:
        server = InstanceServer(str(path))
        assert server.listen() is True
        assert not server.listening
        assert theirs.seen() == []
        assert os.lstat(path).st_uid == other_user.uid  # left alone
    assert f"{path} belongs to user {other_user.name}" in caplog.text


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


@pytest.mark.parametrize(
    ("command", "line"),
    [
        (None, "dictate is already running; its window was brought to the front.\n"),
        ("show", "dictate is already running; its window was brought to the front.\n"),
        ("toggle", "dictate is already running; the toggle command was handed to it.\n"),
    ],
)
def test_a_second_launch_says_it_handed_the_running_app_its_command(
    qtbot: QtBot,
    server: InstanceServer,
    capsys: pytest.CaptureFixture[str],
    command: str | None,
    line: str,
) -> None:
    """A second `dictate` launch used to exit 0 in silence: the user could not tell it from a
    start that failed. It says in one line on stdout what the running app was asked to do."""
    with qtbot.waitSignal(server.commandReceived) as signal:
        assert in_thread(qtbot, lambda: run_app(command)) == 0
    assert signal.args == [command or "show"]
    captured = capsys.readouterr()
    assert captured.out == line and captured.err == ""


def test_ping_is_answered_and_not_emitted(qtbot: QtBot, server: InstanceServer) -> None:
    got: list[str] = []
    server.commandReceived.connect(got.append)
    assert in_thread(qtbot, lambda: send_command("ping")) == "ok"
    qtbot.wait(50)
    assert got == []


def test_the_qt_client_of_windows_works_here_too(qtbot: QtBot, server: InstanceServer) -> None:
    """The client Windows uses (QLocalSocket), in a process of its own as it runs there."""
    code = (
        "import sys; from dictate.instance_client import _send_qt; "
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


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
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
    qtbot.waitUntil(lambda: not server.clients, timeout=5_000)


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


def test_a_newcomer_beyond_the_limit_pushes_out_the_oldest_idle_connection(
    qtbot: QtBot, address: str
) -> None:
    server = InstanceServer(client_timeout_ms=30_000, first_byte_timeout_ms=30_000)
    assert server.listen()
    held = []
    try:
        for _ in range(MAX_CLIENTS):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(address)
            held.append(sock)
            qtbot.waitUntil(lambda: server.clients == len(held), timeout=5_000)
        # One more is served; the oldest that sent nothing makes room, and is told why.
        assert in_thread(qtbot, lambda: raw_exchange(address, b"show\n")) == b"ok\n"
        held[0].settimeout(10)
        assert in_thread(qtbot, partial(held[0].recv, 100)) == b"error too many connections\n"
        assert server.clients == MAX_CLIENTS - 1
    finally:
        for sock in held:
            sock.close()
        server.close()


def test_a_server_closed_with_connections_open_is_freed_at_once(qtbot: QtBot, address: str) -> None:
    """Not left to the garbage collector, which may run in any thread: a server deleted there
    while the GUI thread deletes its connections crashed the next test (QObject::~QObject)."""
    held = [socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) for _ in range(3)]

    def serve_and_close() -> weakref.ref[InstanceServer]:
        server = InstanceServer(client_timeout_ms=30_000, first_byte_timeout_ms=30_000)
        assert server.listen()
        for sock in held:
            sock.connect(address)
        qtbot.waitUntil(lambda: server.clients == len(held), timeout=5_000)
        server.close()
        return weakref.ref(server)

    assert serve_and_close()() is None  # its last reference went with the function
    for sock in held:
        sock.close()


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_a_silent_client_goes_at_the_first_byte_deadline_a_dribbling_one_at_the_last(
    qtbot: QtBot, address: str
) -> None:
    """A connection that sends nothing holds its slot for less than a second; one that sends a
    byte now and then is gone at the deadline counted from its connection, however it dribbles."""
    server = InstanceServer(client_timeout_ms=1500, first_byte_timeout_ms=300)
    assert server.listen()
    try:
        for dribble in (False, True):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                sock.connect(address)
                started = time.monotonic()

                def wait_for_the_end(
                    sock: socket.socket = sock, dribble: bool = dribble, started: float = started
                ) -> bytes:
                    sock.settimeout(0.1)
                    answer = b""
                    while time.monotonic() - started < 10:
                        try:
                            if dribble and not answer:
                                sock.sendall(b"s")
                            chunk = sock.recv(100)
                        except TimeoutError:
                            continue
                        except (BrokenPipeError, ConnectionResetError):
                            break
                        if not chunk:
                            break
                        answer += chunk
                    return answer

                assert in_thread(qtbot, wait_for_the_end) == b"error no command in time\n"
                took = time.monotonic() - started
                assert (1.4 < took < 3.0) if dribble else (took < 1.2), (dribble, took)
    finally:
        server.close()


class SlowClients:
    """Threads that hold command connections and give none: some connect and send nothing, some
    dribble a byte at a time without ever ending the line; each connects again at once when it
    is closed, so the slots of the server are always taken."""

    def __init__(self, address: str, silent: int, dribbling: int) -> None:
        self.address = address
        self.stop = threading.Event()
        self.connections = 0
        self.threads = [
            threading.Thread(target=self._hold, args=(dribble,), daemon=True)
            for dribble in [False] * silent + [True] * dribbling
        ]
        for thread in self.threads:
            thread.start()

    def _hold(self, dribble: bool) -> None:
        while not self.stop.is_set():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
                    sock.settimeout(0.05)
                    sock.connect(self.address)
                    self.connections += 1
                    while not self.stop.is_set():
                        if dribble:
                            sock.sendall(b"t")
                        try:
                            if not sock.recv(100):
                                break
                        except TimeoutError:
                            continue
            except OSError:
                time.sleep(0.01)

    def close(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(5)


@pytest.mark.slow  # over 2 s: the fast lane stays short
def test_slow_clients_on_every_slot_do_not_keep_a_command_out(qtbot: QtBot, address: str) -> None:
    """More slow connections than slots, taken again as soon as they are closed: a real command
    (and a ping) still gets its answer, every time."""
    server = InstanceServer()  # the app's own deadlines
    assert server.listen()
    slow = SlowClients(address, silent=MAX_CLIENTS // 2 + 2, dribbling=MAX_CLIENTS // 2 + 2)
    try:
        qtbot.waitUntil(lambda: server.clients == MAX_CLIENTS, timeout=10_000)
        # Past the deadlines of the first ones, which are then closed and come back.
        until = time.monotonic() + 2.5
        while time.monotonic() < until:
            # Answered at all: slow clients holding every slot for good would time it out.
            assert in_thread(qtbot, lambda: send_command("ping", timeout=15)) == "ok"
            qtbot.wait(200)
        with qtbot.waitSignal(server.commandReceived, timeout=10_000) as emitted:
            assert in_thread(qtbot, lambda: send_command("toggle", timeout=15)) == "ok"
        assert emitted.args == ["toggle"]
        assert server.clients >= MAX_CLIENTS - 1  # they were at it all along
        assert slow.connections > 2 * MAX_CLIENTS  # closed, and back at once
    finally:
        slow.close()
        server.close()


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


class Recorded:
    """Records the calls of its methods (any name) in ``calls``."""

    def __init__(self, calls: list[str], prefix: str = "") -> None:
        self.calls = calls
        self.prefix = prefix

    def __getattr__(self, name: str) -> Callable[[], None]:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda: self.calls.append(self.prefix + name)


class FakeWindow(Recorded):
    """What apply_command calls on the window (and its dictation part), recorded."""

    def __init__(self) -> None:
        super().__init__([])
        self.dictation = Recorded(self.calls, "dictation.")
        self.minimized = False

    def isMinimized(self) -> bool:
        return self.minimized


def test_apply_command_calls_the_window(qtbot: QtBot, caplog: pytest.LogCaptureFixture) -> None:
    fake = FakeWindow()
    window = cast(Any, fake)
    caplog.set_level("INFO", logger="dictate.ui")
    for command in ("toggle", "start", "stop", "show", "quit"):
        apply_command(window, command)
    assert fake.calls == [
        "dictation.toggle",
        "dictation.start",
        "dictation.stop",
        "show",
        "close",
    ]
    fake.minimized = True
    fake.calls.clear()
    apply_command(window, "show")
    assert fake.calls == ["showNormal"]
    assert "remote command: toggle" in caplog.text


def test_remote_commands_wait_for_the_window_then_go_in_order(qtbot: QtBot) -> None:
    from PySide6.QtWidgets import QWidget

    class Dictation:
        def __init__(self, calls: list[str]) -> None:
            self.calls = calls

        def toggle(self) -> None:
            self.calls.append("toggle")

        def stop(self) -> None:
            self.calls.append("stop")

    class Window(QWidget):
        def __init__(self) -> None:
            super().__init__()
            self.calls: list[str] = []
            self.dictation = Dictation(self.calls)

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
from dictate.ui.data_folder_claim import DataFolderClaim
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
    assert second.problem is None
    assert (tmp_path / "instance.address").read_text() == "/tmp/dictate-1.sock\n"
    second.release()
    assert not (tmp_path / "instance.lock").exists()


def test_a_folder_that_cannot_be_claimed_lets_the_app_go_on(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a folder")
    claim = DataFolderClaim(tmp_path / "file" / "data")
    assert claim.claim("/x.sock", timeout_ms=100) is True
    assert claim.problem is not None
    assert f"cannot make its data folder {tmp_path / 'file' / 'data'}" in claim.problem


def test_the_claimed_folder_its_lock_and_address_are_this_users_only(tmp_path: Path) -> None:
    import stat

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    folder = tmp_path / "data"
    old = os.umask(0o022)  # the usual umask: 0755 folders and 0644 files where not chosen
    try:
        for _ in range(2):  # made, then made again after it vanished
            claim = DataFolderClaim(folder)
            assert claim.claim("/run/user/1/dictate.sock", timeout_ms=100) is True
            assert claim.problem is None
            assert mode(folder) == 0o700
            assert mode(folder / "instance.lock") == 0o600
            assert mode(folder / "instance.address") == 0o600
            claim.release()
            shutil.rmtree(folder)
    finally:
        os.umask(old)


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Callable[[], None]]:
    """A small file system of its own (tmpfs of 64 KiB, mounted: needs root) at
    ``tmp_path/"fs"``, and a function that fills it up until it says ENOSPC."""
    mount = tmp_path / "fs"
    mount.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("mounting a small file system to fill needs root and mount(8)")
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")

    def fill() -> None:
        with open(mount / "filler", "ab", buffering=0) as filler:
            while True:
                try:
                    filler.write(b"x" * 1024)
                except OSError as exc:
                    assert exc.errno == errno.ENOSPC, exc
                    break
        assert shutil.disk_usage(mount).free < 4096

    try:
        yield fill
    finally:
        subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def stale_lock_of_a_killed_app(data: Path) -> int:
    """Claim ``data`` in a process of its own and kill it (``kill -9``): its lock stays."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLD_CLAIM, str(data)], stdout=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "True\n"
    child.send_signal(signal.SIGKILL)
    child.wait()
    child.stdout.close()
    return child.pid


def stale_lock_of_a_dead_pid(data: Path) -> int:
    """A lock file as QLockFile writes one (taken for real here), then its pid changed to the
    pid of a process that has exited (``true``, waited for)."""
    data.mkdir(parents=True, exist_ok=True)
    from PySide6.QtCore import QLockFile

    lock = QLockFile(str(data / "instance.lock"))
    assert lock.tryLock(0)
    content = (data / "instance.lock").read_text().split("\n")
    dead = subprocess.Popen(["true"])
    dead.wait()
    content[0] = str(dead.pid)
    lock.unlock()
    (data / "instance.lock").write_text("\n".join(content))
    return dead.pid


@pytest.mark.parametrize("left_by", [stale_lock_of_a_killed_app, stale_lock_of_a_dead_pid])
def test_a_stale_lock_on_a_full_disk_lets_the_app_go_on_and_says_why(
    tmp_path: Path, full_disk: Callable[[], None], left_by: Callable[[Path], int]
) -> None:
    """kill -9 of the app, then the disk fills up: the next app cannot write the lock file that
    takes the stale one over. It must start all the same (its recovery saves the user's text),
    and say why, not claim that another dictate runs."""
    data = tmp_path / "fs" / "data"
    pid = left_by(data)
    full_disk()
    claim = DataFolderClaim(data)
    assert claim.claim("/x.sock", timeout_ms=300) is True
    assert claim.problem is not None
    assert claim.problem.startswith(f"The data folder {data} is full, so dictate could not")
    assert f"left by a dictate that crashed (process {pid})" in claim.problem
    assert "Save As to another disk" in claim.problem
    claim.release()  # it holds nothing: the stale lock stays for a start with room to take over
    assert (data / "instance.lock").exists()


def test_a_live_holder_on_a_full_disk_still_keeps_the_app_out(
    tmp_path: Path,
    full_disk: Callable[[], None],
    holder: Callable[..., subprocess.Popen[str]],
) -> None:
    data = tmp_path / "fs" / "data"
    first = holder(str(data), "/run/user/1/dictate.sock")
    full_disk()
    claim = DataFolderClaim(data)
    assert claim.claim("/x.sock", timeout_ms=300) is False
    assert claim.problem is None
    assert claim.holder() == first.pid


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
