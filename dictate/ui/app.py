"""Starting the desktop app and the first-start dialog (crash recovery: :mod:`.recovery`)."""

from __future__ import annotations

import contextlib
import logging
import sys
from functools import partial
from typing import TYPE_CHECKING, Any, cast

from dictate.ui.app_log import install_excepthook, log_to_file
from dictate.ui.recovery import (
    ask_to_recover,
    clean_up_copies,
    keep_damaged_journal,
    open_document_at_start,
)
from dictate.ui.run_states import State

if TYPE_CHECKING:
    from dictate.ui.data_folder_claim import DataFolderClaim
    from dictate.ui.main_window import MainWindow

log = logging.getLogger("dictate.ui")

RENEW_CLAIM_MS = 5000
"""How often the running app checks that its lock and address are still in the data folder."""


def preload_modules() -> None:
    """Import the heavy native modules now, on the GUI thread before the window is up.

    Imports hold Python's global lock; done later on a worker thread when dictation starts,
    they stall the window's event loop for a few hundred milliseconds.
    """
    import numpy  # noqa: F401
    import pocketsphinx  # noqa: F401
    import soxr  # noqa: F401
    import tokenizers  # noqa: F401
    import vosk  # noqa: F401

    import dictate.asr.segmenter
    import dictate.punctuation.model
    import dictate.run.pipeline
    from dictate.errors import ProviderError
    from dictate.punctuation.session import import_onnxruntime

    dictate.asr.segmenter.import_silero()  # its OpenMP limited to one thread (see there)

    try:
        import_onnxruntime()
    except ProviderError as exc:  # the window says so (start_window), and so does dictating
        log.error("%s", exc)


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
    from dictate.ui.clipboard import release_clipboard
    from dictate.ui.gui_gc import collect_in_gui_thread

    app.aboutToQuit.connect(release_clipboard)
    collect_in_gui_thread(app)  # a Qt object in a cycle must not be freed in a worker thread
    preload_modules()
    app.setApplicationName("dictate")
    app.setDesktopFileName("dictate")
    try:
        from dictate.paths import asset_path

        app.setWindowIcon(QIcon(str(asset_path("dictate.svg"))))
    except FileNotFoundError as exc:
        log.warning("%s", exc)
    return app


def start_window() -> MainWindow:
    """Everything the desktop app does before its event loop: settings (field by field), the
    journal and recovery, the window and its first messages. Nothing here may stop the window
    from opening: an unreadable journal or settings file, or an unusable data directory, is
    reported in the window."""
    from dictate.config import load_settings, settings_path
    from dictate.editing.journal import Journal, default_journal_path
    from dictate.editing.journal_replay import replay
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
    if settings.keep_audio:  # the words said in the last second before a crash, from the audio
        from dictate.ui.audio_recovery import recover_in_background

        recover_in_background(window)
    if unreadable is not None:
        window.messages.add_message(
            f"The autosave journal {path} could not be read ({unreadable.strerror or unreadable}),"
            " so no text could be recovered from it."
        )
    from dictate.errors import as_sentence
    from dictate.punctuation.session import runtime_missing

    missing = runtime_missing()
    if missing:
        window.messages.add_message(as_sentence(missing) + ".")
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
        window.dictation.toggle()
    elif command == "start":
        window.dictation.start()
    elif command == "stop":
        window.dictation.stop()
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
    starts = command == "start" or (command == "toggle" and window.controller.state == State.IDLE)
    return window.dictation.start_refused() if starts else None


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
    from dictate.errors import DictateError
    from dictate.instance_client import send_command

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
    from dictate.ui.data_folder_claim import DataFolderClaim
    from dictate.ui.instance_server import InstanceServer

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
        window.shortcut.start()
        if not window.settings.first_run_done and not _accurate_without_download(window.settings):
            window.offer_model()
        server.refusal = partial(refusal, window)
        from PySide6.QtCore import QTimer

        renew = QTimer(window)  # the lock and address again if the data folder was removed
        renew.timeout.connect(claim.renew)
        renew.start(RENEW_CLAIM_MS)
        remote.window_ready(window)
        window.controller.preload()
        window.tiers.later()  # the Whisper tiers measured once the window is idle, if needed
        _watch_vocabulary(window)
        _harvest_later(window.settings)
        return int(app.exec())  # type: ignore[attr-defined]
    finally:
        server.close()
        claim.release()


def _watch_vocabulary(window: Any) -> None:
    """The pipeline built again in the background when the vocabulary changes on disk
    (:mod:`dictate.ui.vocabulary_watch`)."""
    from dictate.ui.vocabulary_watch import VocabularyWatch
    from dictate.writing import vocabulary, vocabulary_harvest

    path = vocabulary.default_vocabulary_path()
    names = (path.name, vocabulary_harvest.FILE_NAME)
    window.vocabulary_watch = VocabularyWatch(window.controller, path.parent, names, window)


def _harvest_later(settings: Any) -> None:
    """Entries not heard yet (added while the app was closed, or a harvest cut short): heard
    in the background (:mod:`dictate.writing.vocabulary_harvest`)."""
    from dictate.writing.vocabulary_harvest import start_harvest

    try:
        start_harvest(settings.second_pass)
    except Exception:  # nothing the user waits for: the entries work without their forms
        log.warning("the vocabulary's harvest was not started", exc_info=True)


def _accurate_without_download(settings: Any) -> bool:
    """Whether dictation is accurate as installed: a Vosk model, or the second pass on with its
    model here (the bundled Whisper tiny.en). Else the first start offers a Vosk model."""
    from dictate.store.store import ModelStore

    if ModelStore().installed():
        return True
    if settings.second_pass == "off":
        return False
    from dictate.store.whisper_models import resolve_whisper_model

    try:
        model = None if settings.second_pass == "auto" else settings.second_pass
        resolve_whisper_model(model)
    except Exception:
        return False
    return True


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
