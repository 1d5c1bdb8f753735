"""The clipboard at exit: text this app copied stays on it, and the process ends cleanly."""

from __future__ import annotations

from PySide6.QtGui import QClipboard, QGuiApplication


def release_clipboard() -> None:
    """Give Qt's clipboard a copy it made itself of text this app copied (call before Python
    exits; :func:`dictate.ui.app.application` connects it to ``aboutToQuit``).

    :meth:`DictationEditor.createMimeDataFromSelection` makes its QMimeData in Python. Where
    Qt's clipboard outlives the interpreter (the offscreen platform keeps it in a global that
    is destroyed at process exit), deleting that object then calls into a finalized Python
    and the process ends in SIGSEGV. Only data made by this app (in Python) is replaced, so
    what another application owns is left alone; the text stays the same.
    """
    from shiboken6 import Shiboken

    clipboard = QGuiApplication.clipboard()
    modes = [QClipboard.Mode.Clipboard]
    if clipboard.supportsSelection():
        modes.append(QClipboard.Mode.Selection)
    for mode in modes:
        data = clipboard.mimeData(mode)
        if data is not None and Shiboken.createdByPython(data):
            clipboard.setText(data.text(), mode)
