"""``dictate toggle``, ``start``, ``stop``, ``show``: control the running app from a shell or a
desktop keyboard shortcut, starting the app first where it is not running (``stop`` does not).

Qt is not imported here: the command connects to the app's socket (:mod:`dictate.instance_client`).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any, TextIO

from dictate.cli.common import bounded
from dictate.errors import DictateError
from dictate.instance_client import InstanceNotResponding, send_command
from dictate.paths import APP_NAME

__all__ = ["APP_COMMANDS", "AppNotStarted", "cmd_control", "register", "start_detached"]

APP_COMMANDS = ("toggle", "start", "stop", "show")
"""The commands of the command line (and of ``dictate --command``)."""
START_WAIT_S = 20.0
"""How long a started app has to answer."""

_HELP = {
    "toggle": "start or stop dictation in the app (starting the app if need be)",
    "start": "start dictation in the app (starting the app if need be)",
    "stop": "stop dictation in the app, if it runs",
    "show": "bring the app's window up (starting the app if need be)",
}
_DONE = {
    "toggle": "start or stop dictation",
    "start": "start dictation",
    "stop": "stop dictation",
    "show": "show its window",
}


class AppNotStarted(DictateError):
    """The app was started to carry out a command but did not come up."""


def cmd_control(command: str, stdout: TextIO, wait: float = START_WAIT_S) -> int:
    """Send ``command`` to the running app, or start the app to carry it out.

    Raises:
        DictateError: The running app did not answer or refused the command, the app that was
            started did not answer within ``wait`` seconds, or the instance address is another
            user's socket or folder (:class:`dictate.instance_client.UnsafeInstanceAddress`:
            nothing is sent there, nor is an app started that could not listen there either).
    """
    reply = send_command(command)
    if reply is not None:
        _check(reply, command)
        stdout.write(f"dictate: asked the running app to {_DONE[command]}\n")
        return 0
    if command == "stop":
        stdout.write("dictate is not running\n")
        return 0
    child = start_detached(command)
    _wait_until_answering(child, wait)
    then = "" if command == "show" else f"; it will {_DONE[command]} once its window is up"
    stdout.write(f"dictate was not running: started it (process {child.pid}){then}\n")
    return 0


def start_detached(command: str) -> subprocess.Popen[bytes]:
    """Start the app in a new session, with no terminal (as ``installer/setup.sh`` does), told to
    carry out ``command`` once its window is up."""
    if getattr(sys, "frozen", False):  # a bundled executable is the app itself
        argv = [sys.executable, "--command", command]
    else:
        argv = [sys.executable, "-m", "dictate", "--command", command]
    options: dict[str, Any] = {}
    if sys.platform == "win32":
        options["creationflags"] = (
            subprocess.DETACHED_PROCESS | subprocess.CREATE_NEW_PROCESS_GROUP  # type: ignore[attr-defined]
        )
    else:
        options["start_new_session"] = True
    try:
        return subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            close_fds=True,
            **options,
        )
    except OSError as exc:
        raise AppNotStarted(f"cannot start dictate ({' '.join(argv)}): {exc}") from exc


def _wait_until_answering(child: subprocess.Popen[bytes], wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        exited = child.poll()
        left = deadline - time.monotonic()
        try:
            # Once it listens, one ping waits for its event loop (the window is being built).
            reply = send_command("ping", timeout=max(0.1, min(left, 5.0)))
        except InstanceNotResponding:
            reply = None
        if reply is not None:
            _check(reply, "ping")
            return
        if exited is not None:  # it exited without ever answering (nor handing over)
            raise AppNotStarted(
                f"dictate exited with status {exited} before its window was up; see "
                f"{_log_file()} for why"
            )
        if time.monotonic() >= deadline:
            raise AppNotStarted(
                f"dictate (process {child.pid}) did not answer within {wait:g} s; see "
                f"{_log_file()} for why"
            )
        time.sleep(0.1)


def _check(reply: str, command: str) -> None:
    if reply != "ok":
        why = reply.removeprefix("error ")
        raise DictateError(f"the running dictate refused {command}: {why}")


def _log_file() -> Path:
    from platformdirs import user_log_path

    return Path(user_log_path(APP_NAME, appauthor=False)) / "dictate.log"


def register(commands: Any) -> None:
    for name in APP_COMMANDS:
        parser = commands.add_parser(
            name,
            help=_HELP[name],
            description=f"{_HELP[name][0].upper()}{_HELP[name][1:]}. Meant for a desktop "
            "keyboard shortcut; prints one line saying what happened.",
        )
        parser.add_argument(
            "--wait",
            type=bounded(float, 0.0, 3600.0),
            default=START_WAIT_S,
            metavar="SECONDS",
            help=(
                f"how long a started app has to come up (default {START_WAIT_S:g})"
                if name != "stop"
                else "not used by stop, which never starts the app"
            ),
        )
        parser.set_defaults(
            func=lambda args, io, name=name: cmd_control(name, io.stdout, args.wait)
        )
