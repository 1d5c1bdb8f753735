"""A second local user for the tests of who owns the instance socket, and a socket listener of
theirs: a real process of another uid that binds a Unix socket first and records every
connection and line it gets (what a hostile local user would do to take the user's commands).

Creating a user needs root (``useradd``); the tests that need one are skipped otherwise, as a
socket of another user cannot be made without one.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

import pytest

NAME = "dictate-other"

LISTENER = r"""
import os, socket, sys
path, log = sys.argv[1], sys.argv[2]
server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
server.bind(path)
os.chmod(path, 0o777)  # anyone may connect: the trap is set for the user
server.listen(16)
print("ready", flush=True)
while True:
    conn, _ = server.accept()
    with open(log, "a") as out:
        out.write("connected\n")
    conn.settimeout(2)
    try:
        data = conn.recv(200)
        with open(log, "a") as out:
            out.write("line " + data.decode("ascii", "replace").strip() + "\n")
        conn.sendall(b"ok\n")
    except OSError:
        pass
    conn.close()
"""


@dataclass(frozen=True)
class OtherUser:
    """Another local user, and an interpreter that user can run."""

    uid: int
    gid: int
    name: str
    python: str

    def run(self, *args: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
        """Run Python code (``-c`` and its arguments) as this user."""
        return subprocess.run(
            [self.python, "-I", *args],
            user=self.uid,
            group=self.gid,
            extra_groups=[],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
            cwd="/",
        )

    def make_folder(self, path: Path, mode: int = 0o755) -> Path:
        """A folder made by this user (so theirs)."""
        self.run("-c", f"import os; os.mkdir({str(path)!r}, {mode:#o})")
        return path

    def listen(self, path: Path) -> Listener:
        """A process of this user listening on ``path`` (a socket it binds itself)."""
        return Listener(self, path)


class Listener:
    """The other user's process on a socket; :meth:`seen` is what it got."""

    def __init__(self, user: OtherUser, path: Path) -> None:
        self.path = path
        self.log = Path(tempfile.mkdtemp(prefix="dco")) / "log"
        self.log.parent.chmod(0o777)
        self.process = subprocess.Popen(
            [user.python, "-I", "-c", LISTENER, str(path), str(self.log)],
            user=user.uid,
            group=user.gid,
            extra_groups=[],
            stdout=subprocess.PIPE,
            text=True,
            cwd="/",
        )
        assert self.process.stdout is not None
        assert self.process.stdout.readline() == "ready\n"
        assert os.lstat(path).st_uid == user.uid

    def seen(self, settle: float = 0.3) -> list[str]:
        """The connections and lines it got, after ``settle`` seconds for late ones."""
        time.sleep(settle)
        return self.log.read_text().splitlines() if self.log.exists() else []

    def __enter__(self) -> Listener:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.process.kill()
        self.process.wait()
        shutil.rmtree(self.log.parent, ignore_errors=True)


def shared_folder() -> Path:
    """A folder like /tmp: root's, everyone may write to it, sticky (short, for AF_UNIX)."""
    folder = Path(tempfile.mkdtemp(prefix="dcs", dir="/tmp"))
    folder.chmod(0o1777)
    return folder


def _python_for(uid: int, gid: int) -> str | None:
    """An interpreter the user can run (this one may lie in root's home)."""
    for candidate in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if not candidate:
            continue
        try:
            subprocess.run(
                [candidate, "-I", "-c", "pass"],
                user=uid,
                group=gid,
                extra_groups=[],
                capture_output=True,
                timeout=30,
                check=True,
                cwd="/",
            )
        except (OSError, subprocess.SubprocessError):
            continue
        return candidate
    return None


def second_user() -> Iterator[OtherUser]:
    """Another local user, for a fixture to yield from: made with ``useradd`` when missing (and
    removed again after), which needs root; the test is skipped otherwise."""
    if sys.platform == "win32" or os.geteuid() != 0:
        pytest.skip("a second local user can be made only as root (useradd)")
    made = False
    try:
        entry = pwd.getpwnam(NAME)
    except KeyError:
        if shutil.which("useradd") is None:
            pytest.skip("useradd is not installed: no second local user can be made")
        done = subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", NAME],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            pytest.skip(f"useradd could not make a second user: {done.stderr.strip()}")
        made = True
        entry = pwd.getpwnam(NAME)
    python = _python_for(entry.pw_uid, entry.pw_gid)
    try:
        if python is None:
            pytest.skip(f"no Python interpreter that {NAME} may run")
        yield OtherUser(entry.pw_uid, entry.pw_gid, NAME, python)
    finally:
        if made:
            subprocess.run(["userdel", NAME], capture_output=True)
