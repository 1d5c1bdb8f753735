"""``dictate toggle/start/stop/show`` end to end: the real entry point in subprocesses against
the real app, offscreen, with the user's folders and the instance socket in temporary places."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from other_user import OtherUser, second_user, shared_folder

from dictate.cli import build_parser
from dictate.instance_client import ADDRESS_ENV, send_command

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="Unix sockets, os.getsid")

START_TIMEOUT_S = 60.0


@pytest.fixture
def address(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This test's own instance address (short: AF_UNIX paths hold about 100 bytes); the user
    folders are the test's already (tests/conftest.py), and the app dictates with PocketSphinx."""
    from dictate.config import settings_path

    folder = tempfile.mkdtemp(prefix="dcc")
    path = os.path.join(folder, "instance.sock")
    monkeypatch.setenv(ADDRESS_ENV, path)
    monkeypatch.setenv("QT_QPA_PLATFORM", "offscreen")
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text(json.dumps({"first_run_done": True, "engine": "sphinx"}))
    yield path
    shutil.rmtree(folder, ignore_errors=True)


def dictate(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The real entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "dictate", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def log_text() -> str:
    from platformdirs import user_log_path

    path = Path(user_log_path("dictate", appauthor=False)) / "dictate.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def wait_for(condition: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}; log:\n{log_text()}")
        time.sleep(0.05)


def answers() -> bool:
    try:
        return send_command("ping", timeout=2) == "ok"
    except OSError:
        return False


def gone(pid: int) -> bool:
    """Whether a process (not our child) has ended: no such process, or a zombie."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state == "Z"


@pytest.fixture(scope="module")
def other_user() -> Iterator[OtherUser]:
    yield from second_user()


@pytest.mark.slow
def test_a_socket_of_another_user_gets_no_command_and_says_why(
    address: str, other_user: OtherUser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another local user bound the address first (a shared folder, like the temp folder where
    the address used to fall back to) and listens: `dictate toggle` and a second launch send it
    nothing, start nothing, and say whose socket it is, in one line with exit status 2."""
    shared = shared_folder()
    try:
        path = shared / "dictate.sock"
        monkeypatch.setenv(ADDRESS_ENV, str(path))
        with other_user.listen(path) as theirs:
            for args in (["toggle"], []):
                result = dictate(*args)
                assert result.returncode == 2, (args, result.stdout, result.stderr)
                assert result.stdout == ""
                lines = result.stderr.splitlines()
                assert len(lines) == 1, result.stderr
                assert lines[0].startswith(
                    f"dictate: error: not sending the command to dictate at {path}: that socket "
                    f"belongs to user {other_user.name} (uid {other_user.uid}), not to you"
                )
                assert "set XDG_RUNTIME_DIR to a private folder of yours" in lines[0]
            assert theirs.seen() == []
        assert "Traceback" not in log_text()
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@pytest.fixture
def running_app(address: str) -> Iterator[subprocess.Popen[str]]:
    """The app, started as a desktop launch would, answering on the test's address."""
    app = subprocess.Popen(
        [sys.executable, "-m", "dictate"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for(lambda: answers() or app.poll() is not None, START_TIMEOUT_S, "the app")
        assert app.poll() is None, app.communicate()[0]
        yield app
    finally:
        if app.poll() is None:
            try:
                send_command("quit")
                app.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                app.kill()
        output = app.communicate()[0]
        print(output)


@pytest.mark.slow
def test_commands_reach_the_running_app(running_app: subprocess.Popen[str], address: str) -> None:
    shown = dictate("show")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout == "dictate: asked the running app to show its window\n"
    wait_for(lambda: "remote command: show" in log_text(), 10, "show in the log")

    toggled = dictate("toggle")
    assert toggled.returncode == 0, toggled.stderr
    assert toggled.stdout == "dictate: asked the running app to start or stop dictation\n"
    wait_for(lambda: "remote command: toggle" in log_text(), 10, "toggle in the log")
    # No microphone here: starting fails with a message in the window, and the app goes on.
    stopped = dictate("stop")
    assert stopped.returncode == 0, stopped.stderr
    wait_for(lambda: "remote command: stop" in log_text(), 10, "stop in the log")
    assert answers()

    # A second launch hands the first one "show" and is gone at once.
    shows = log_text().count("remote command: show")
    second = dictate()  # it returns (a second app would run until quit) and says why
    assert second.returncode == 0, second.stderr
    assert second.stdout == "dictate is already running; its window was brought to the front.\n"
    wait_for(lambda: log_text().count("remote command: show") == shows + 1, 10, "a second show")
    assert running_app.poll() is None

    assert send_command("quit") == "ok"
    assert running_app.wait(30) == 0
    assert not os.path.exists(address)  # the socket goes with the app
    assert "Traceback" not in log_text()


@pytest.mark.slow
def test_a_shell_with_another_runtime_dir_reaches_the_running_app(
    running_app: subprocess.Popen[str], address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two shells that disagree on $XDG_RUNTIME_DIR name two addresses; the second one still
    reaches the app (through the address it wrote into the data folder) instead of starting a
    second app on the same journal."""
    other = os.path.join(os.path.dirname(address), "other.sock")
    monkeypatch.setenv(ADDRESS_ENV, other)
    shows = log_text().count("remote command: show")
    second = dictate()
    assert second.returncode == 0, second.stderr
    wait_for(lambda: log_text().count("remote command: show") == shows + 1, 10, "a second show")
    toggled = dictate("toggle")
    assert toggled.returncode == 0, toggled.stderr
    assert toggled.stdout == "dictate: asked the running app to start or stop dictation\n"
    assert not os.path.exists(other)  # nothing else ever listened
    assert running_app.poll() is None


@pytest.mark.slow
def test_a_second_app_on_a_held_data_folder_says_why_and_exits_1(address: str) -> None:
    """An app holds the data folder but answers nowhere this launch can find (hung, or its
    address file lost): the launch refuses to open a second window on the same journal."""
    hold = (
        "from dictate.ui.data_folder_claim import DataFolderClaim; import time\n"
        "claim = DataFolderClaim()\n"
        "print(claim.claim('/nowhere/dictate.sock'), flush=True); time.sleep(120)"
    )
    holder = subprocess.Popen([sys.executable, "-c", hold], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "True\n"
        second = dictate()
        assert second.returncode == 1
        assert f"Another dictate (process {holder.pid}) is running with the same data folder" in (
            second.stderr
        )
        assert "it does not answer" in second.stderr
        assert "If no dictate is running at all, delete " in second.stderr  # a reused pid
        assert not answers()  # it did not stay
    finally:
        holder.kill()
        holder.wait()
    # The holder is gone: the next launch starts normally.
    with_app = subprocess.Popen([sys.executable, "-m", "dictate"], stdin=subprocess.DEVNULL)
    try:
        wait_for(lambda: answers() or with_app.poll() is not None, START_TIMEOUT_S, "the app")
        assert with_app.poll() is None
        assert send_command("quit") == "ok"
        assert with_app.wait(30) == 0
    finally:
        if with_app.poll() is None:
            with_app.kill()


@pytest.mark.slow
def test_stop_with_nothing_running_starts_nothing(address: str) -> None:
    stopped = dictate("stop")
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout == "dictate is not running\n"
    time.sleep(1)
    assert not os.path.exists(address)
    assert send_command("ping") is None


@pytest.mark.slow
def test_show_with_nothing_running_starts_the_app_detached(address: str) -> None:
    shown = dictate("show")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.startswith("dictate was not running: started it (process ")
    pid = int(shown.stdout.split("(process ")[1].split(")")[0])
    try:
        assert os.getsid(pid) == pid  # a session of its own: closing the terminal leaves it
        assert send_command("ping") == "ok"  # answering once `dictate show` returned
        wait_for(lambda: "remote command: show" in log_text(), 30, "show in the log")
        # Now it runs, toggle goes to it and starts nothing more.
        toggled = dictate("toggle")
        assert toggled.returncode == 0, toggled.stderr
        assert toggled.stdout.startswith("dictate: asked the running app")
        wait_for(lambda: "remote command: toggle" in log_text(), 10, "toggle in the log")
        assert send_command("quit") == "ok"
        wait_for(lambda: gone(pid), 30, "the app to quit")
        assert not os.path.exists(address)
    finally:
        if not gone(pid):
            os.kill(pid, 9)


@pytest.mark.slow
def test_toggle_with_nothing_running_starts_the_app_which_toggles(address: str) -> None:
    toggled = dictate("toggle")
    assert toggled.returncode == 0, toggled.stderr
    assert toggled.stdout.startswith("dictate was not running: started it (process ")
    assert toggled.stdout.endswith("it will start or stop dictation once its window is up\n")
    pid = int(toggled.stdout.split("(process ")[1].split(")")[0])
    try:
        wait_for(lambda: "remote command: toggle" in log_text(), 30, "toggle in the log")
        assert send_command("quit") == "ok"
        wait_for(lambda: gone(pid), 30, "the app to quit")
    finally:
        if not gone(pid):
            os.kill(pid, 9)


@pytest.mark.slow
def test_an_app_that_cannot_start_is_one_line_and_status_2(
    address: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("QT_QPA_PLATFORM", "no-such-platform")  # Qt aborts at once
    started = dictate("start", "--wait", "30")
    assert started.returncode == 2
    assert started.stdout == ""
    lines = started.stderr.splitlines()
    assert len(lines) == 1, started.stderr
    assert lines[0].startswith("dictate: error: dictate exited with status ")
    assert "before its window was up; see " in lines[0] and "dictate.log" in lines[0]


def test_the_command_line_knows_the_commands() -> None:
    parser = build_parser()
    for command in ("toggle", "start", "stop", "show"):
        args = parser.parse_args([command])
        assert args.wait == 20.0 and callable(args.func)
        assert parser.parse_args(["--command", command]).app_command == command
    assert parser.parse_args([]).app_command is None
    with pytest.raises(SystemExit):
        parser.parse_args(["--command", "quit"])
