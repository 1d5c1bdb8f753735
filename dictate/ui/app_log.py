"""The desktop app's log file and its handling of unexpected errors: a desktop launch leaves
a trace (``dictate.log``, ``crash.log``), and an unexpected exception is logged (never the
user's words) and shown once, while the window goes on."""

from __future__ import annotations

import faulthandler
import logging
import os
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import Any, cast

log = logging.getLogger("dictate.ui")

WORDS_ENV = "DICTATE_LOG_WORDS"
"""Set to 1, the log also keeps the words the window shows live (``live N: ...``, as the
editor holds them, masked words masked) and, per segment, the words it settled on beside its
last live words (``settled N: ... | live: ...``, ``segment N: whisper '...'; greyed: '...'``),
the vocabulary's rewrites and the words learned from corrections: a debug switch, off by
default, for finding what a person saw while speaking (and for tests/test_live_words_x11.py).
The log is private to the user, but it then holds what they said. Without it the log keeps
counts, times, states and errors only (docs/window.md, "Privacy")."""

words_log = logging.getLogger("dictate.words")
"""Where dictated words may be logged: silent unless :data:`WORDS_ENV` is 1."""
words_log.setLevel(logging.INFO if os.environ.get(WORDS_ENV) == "1" else logging.CRITICAL + 1)


def log_to_file() -> Path | None:
    """Log to ``dictate.log`` in the user log directory (kept small by rotation), and let
    :mod:`faulthandler` write a crash in native code to ``crash.log`` beside it; a desktop launch
    then leaves a trace. None if the directory cannot be written (logging stays on stderr)."""
    from logging.handlers import RotatingFileHandler

    from platformdirs import user_log_path

    from dictate.fileio import make_private, open_private, private_dir
    from dictate.paths import APP_NAME

    class PrivateRotatingFileHandler(RotatingFileHandler):
        """Log files readable by this user only (a new one after each rotation too)."""

        def _open(self) -> Any:
            return open_private(Path(self.baseFilename), "a")

        def doRollover(self) -> None:
            super().doRollover()
            for n in range(1, self.backupCount + 1):
                make_private(Path(f"{self.baseFilename}.{n}"))

    folder = Path(user_log_path(APP_NAME, appauthor=False))
    logfile = folder / "dictate.log"
    try:
        if folder.parent.name == APP_NAME:  # ~/.local/state/dictate/log: the app's folder too
            private_dir(folder.parent)
        private_dir(folder)
        handler = PrivateRotatingFileHandler(
            logfile, maxBytes=1_000_000, backupCount=2, encoding="utf-8"
        )
        crash = open_private(folder / "crash.log", "a")
    except OSError as exc:
        log.warning("cannot write the log file %s: %s", logfile, exc)
        return None
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        for existing in root.handlers:
            if existing is not handler and existing.level == logging.NOTSET:
                existing.setLevel(root.level or logging.WARNING)
        root.setLevel(logging.INFO)
    faulthandler.enable(file=crash)
    _open_files.append(crash)
    return logfile


_open_files: list[object] = []


def _log_unexpected(what: str, kind: type[BaseException], exc: object, tb: object) -> None:
    """An unexpected exception, logged without its message (it may quote the user's words: the
    log holds nothing they said); the window's dialog shows the message to the user."""
    from dictate.errors import log_failure

    if isinstance(exc, BaseException):
        log_failure(log, what, exc=exc.with_traceback(cast(TracebackType | None, tb)))
    else:
        log.error("%s: %s", what, kind.__name__)


def install_excepthook(logfile: Path | None) -> None:
    """An unexpected exception is logged with its traceback and shown once in a dialog; the
    window goes on (the text is in the editor and the journal)."""
    shown: list[bool] = []

    def hook(kind: type[BaseException], exc: BaseException, tb: object) -> None:
        _log_unexpected("unexpected error", kind, exc, tb)
        if shown or issubclass(kind, KeyboardInterrupt):
            return
        from PySide6.QtWidgets import QApplication, QMessageBox

        if (
            QApplication.instance() is None
            or threading.current_thread() is not threading.main_thread()
        ):
            return  # a dialog is built on the GUI thread only (PySide calls this on any thread)
        shown.append(True)
        where = f" Details are in {logfile}." if logfile else ""
        QMessageBox.critical(
            None,
            "dictate: internal error",
            f"dictate hit an internal error ({kind.__name__}: {exc}). Your text is still in "
            f"the window and in the autosave journal; save it to be safe.{where}",
        )

    def thread_hook(args: threading.ExceptHookArgs) -> None:
        where = f"unexpected error in thread {args.thread.name if args.thread else '?'}"
        _log_unexpected(where, args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = hook
    threading.excepthook = thread_hook
