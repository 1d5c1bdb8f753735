"""One app per data folder: :class:`DataFolderClaim` holds a lock file in the folder while
the app runs (with the address another launch hands its command to), and tells a stale lock
(its holder died) from a live one."""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

from PySide6.QtCore import QLockFile, QSysInfo

from dictate.fileio import atomic_write_text, make_private, private_dir
from dictate.instance_client import (
    address_file,
)

log = logging.getLogger("dictate.ui")


class DataFolderClaim:
    """One app per data folder (the journal, the models), whatever address it listens on.

    The instance address depends on the environment (``$XDG_RUNTIME_DIR``): two shells that
    disagree on it would start two apps, and both would write the one journal, each replacing
    the other's unsaved text. The claim is a lock file in the data folder (a crashed holder's
    lock is stale and taken over), with the holder's address written beside it, so a second
    launch can hand its command to the first one wherever that one listens.

    Only a live holder keeps an app out. Where the folder cannot be locked for any other reason
    (a stale lock that cannot be replaced because the disk is full, an unwritable folder), the
    app goes on, as the recovery of the user's text must run, and :attr:`problem` says what
    went wrong for the window to show.

    Args:
        folder: The data folder (default :func:`dictate.paths.user_data_dir`).
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.address_file = address_file() if folder is None else folder / address_file().name
        self.folder = self.address_file.parent
        self.lock_file = self.folder / "instance.lock"
        self._lock = QLockFile(str(self.lock_file))
        self._lock.setStaleLockTime(0)  # stale only when its process is gone, never by age
        self._address: str | None = None
        self.problem: str | None = None
        """Set by :meth:`claim` when it lets the app go on without holding the folder: one
        sentence for the window (what went wrong, which folder, what to do); None otherwise."""

    def claim(self, address: str, timeout_ms: int = 1000) -> bool:
        """Take the folder for this instance, which listens on ``address``.

        Returns:
            False if another running app holds the folder (it wrote its address for
            :func:`dictate.instance_client.send_command` to find). True when this instance holds it
            now, or when it could not be locked for another reason than a live holder (a lock
            left by an app that crashed that cannot be replaced, on a full disk; an unwritable
            folder): logged, :attr:`problem` set, and the app goes on, as it must still offer
            the recovery of the user's text.
        """
        self.problem = None
        self._address = address
        try:
            private_dir(self.folder)  # this user's only: also when it vanished and is made again
        except OSError as exc:
            log.warning("cannot make the data folder %s: %s", self.folder, exc)
            self.problem = (
                f"dictate cannot make its data folder {self.folder} ({exc.strerror or exc}); it "
                "runs anyway, but save your text with Save As, as it cannot keep it there."
            )
            return True
        if self._lock.tryLock(timeout_ms):
            make_private(self.lock_file)  # Qt makes it 0644
            self._write_address(address)
            return True
        error = self._lock.error()
        if error == QLockFile.LockError.LockFailedError:
            pid, host, app = self._lock.getLockInfo()
            if not _holder_gone(pid, host, app):
                return False
            self.problem = self._stale_problem(pid)
        else:
            self.problem = self._lock_problem(error)
        log.warning("cannot lock %s (%s); going on: %s", self.lock_file, error, self.problem)
        self._write_address(address)  # it is the app that runs here now; where the disk has room
        return True

    def renew(self) -> None:
        """Make the lock and the address again where they vanished (the data folder was removed
        while the app ran): until a restart, a second launch would have found no holder and
        started a second app on the same journal. Cheap (two stats): called every few
        seconds."""
        if self.lock_file.exists() and self.address_file.exists():
            return
        address = self._address
        if address is None:
            return
        log.warning("the data folder's lock or address vanished (%s): made again", self.folder)
        self._lock.unlock()
        self._lock = QLockFile(str(self.lock_file))
        self._lock.setStaleLockTime(0)
        self.claim(address, timeout_ms=0)

    def _write_address(self, address: str) -> None:
        try:
            atomic_write_text(self.address_file, address + "\n", private=True)
        except OSError as exc:
            log.warning("cannot write %s: %s", self.address_file, exc)

    def _stale_problem(self, pid: int) -> str:
        """The lock's process is gone, yet its lock could not be replaced."""
        who = "a dictate that crashed" + (f" (process {pid})" if pid > 0 else "")
        if _is_full(self.folder):
            return (
                f"The data folder {self.folder} is full, so dictate could not take over the lock "
                f"left by {who}; it runs anyway, but save your text with Save As to another "
                "disk, and free some space."
            )
        return (
            f"dictate could not take over the lock {self.lock_file} left by {who}; it runs "
            "anyway, but do not start a second dictate meanwhile (each would overwrite the "
            "other's unsaved text), and delete that file once this one is closed."
        )

    def _lock_problem(self, error: QLockFile.LockError) -> str:
        """The lock could not be written at all (no holder in the way)."""
        if _is_full(self.folder):
            return (
                f"The data folder {self.folder} is full, so dictate could not lock it; it runs "
                "anyway, but save your text with Save As to another disk, and free some space."
            )
        why = (
            "it cannot be written to"
            if error == QLockFile.LockError.PermissionError
            else "an unknown error"
        )
        return (
            f"dictate could not lock its data folder {self.folder} ({why}); it runs anyway, but "
            "do not start a second dictate meanwhile, as each would overwrite the other's unsaved "
            "text."
        )

    def holder(self) -> int | None:
        """The process id holding the folder (None if unknown)."""
        pid = self._lock.getLockInfo()[0]  # PySide6: (pid, host, app), pid 0 if unknown
        return int(pid) if pid > 0 else None

    def release(self) -> None:
        """Let the folder go (the lock file is removed, if this instance holds it)."""
        self._lock.unlock()


def _holder_gone(pid: int, host: str, app: str) -> bool:
    """Whether the process that wrote a lock is certainly not running any more, as Qt would judge
    it stale: on this machine, and no such process, a zombie, or the pid now another program's.

    Unreadable lock information (pid 0) counts as gone too: a live holder writes it at once, and
    the caller has waited. A lock from another machine (a data folder shared over the network)
    never does: its holder may well be running there.
    """
    if pid <= 0:
        return True
    if host and host != QSysInfo.machineHostName():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass  # another user's process: running
    return _zombie_or_other_program(pid, app)


def _zombie_or_other_program(pid: int, app: str) -> bool:
    """On Linux (``/proc``): whether ``pid`` has exited but not been reaped yet, or is now
    another program than ``app`` (pids are reused). Elsewhere False: it counts as running."""
    proc = Path("/proc") / str(pid)
    try:
        state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    if state == "Z":
        return True
    try:
        program = os.path.basename(os.readlink(proc / "exe")).removesuffix(" (deleted)")
    except OSError:
        return False  # not ours to read: assume it is the holder
    return bool(app) and program != app


def _is_full(folder: Path) -> bool:
    """Whether the file system of ``folder`` has (next to) no space left for a lock file."""
    try:
        return shutil.disk_usage(folder).free < 64 * 1024
    except OSError:
        return False
