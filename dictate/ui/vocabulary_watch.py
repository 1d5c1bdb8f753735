"""The pipeline built again in the background when the vocabulary or its misheard forms change
on disk, so that the next press of the dictation key does not wait for it.

The pipeline is built for the vocabulary as it stands
(:meth:`~dictate.ui.pipeline_runner.DictationController._ready_pipeline`): with 500 entries
that is about 0.4 s (the matcher's index and PocketSphinx's dictionary, measured:
docs/vocabulary.md), which a start of dictation after any change (an entry added in the
dialog, ``dictate vocabulary add`` in a terminal, a form heard by the background harvest) paid
before "Listening". Here a change seen on disk, once the files have been quiet for
:data:`QUIET_MS` (or :data:`MOST_MS` into a harvest that keeps appending), preloads the
pipeline while the window is idle; a change during dictation waits for its end.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from dictate.ui.run_states import State

log = logging.getLogger("dictate.vocabulary")

QUIET_MS = 1500
"""How long the files must be unchanged before the pipeline is built again."""
MOST_MS = 20000
"""Built again at the latest this long after the first change not yet built for (a harvest
appends a form about every 1.5 s for minutes)."""


class VocabularyWatch(QObject):
    """Watches ``folder`` (the data folder) and the files ``names`` in it for ``controller``
    (a :class:`~dictate.ui.pipeline_runner.DictationController`)."""

    def __init__(self, controller: Any, folder: Path, names: tuple[str, ...],
                 parent: QObject | None = None) -> None:  # fmt: skip
        super().__init__(parent)
        self.controller = controller
        self.folder = folder
        self.names = names
        self.preloads = 0
        """Pipelines built here (for tests)."""
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._changed)
        self._watcher.fileChanged.connect(self._changed)
        self._quiet = QTimer(self, singleShot=True, interval=QUIET_MS)
        self._quiet.timeout.connect(self._build)
        self._most = QTimer(self, singleShot=True, interval=MOST_MS)
        self._most.timeout.connect(self._build)
        self._pending = False
        controller.stateChanged.connect(self._state)
        self._watch()

    def _watch(self) -> None:
        """Watch the folder and those of the files that exist (a file replaced by a rename
        leaves the watch: it is watched again here)."""
        paths = [self.folder, *(self.folder / n for n in self.names)]
        wanted = [str(p) for p in paths if p.exists()]
        have = set(self._watcher.files()) | set(self._watcher.directories())
        new = [p for p in wanted if p not in have]
        if new:
            self._watcher.addPaths(new)

    def _changed(self, _path: str) -> None:
        self._watch()
        self._pending = True
        self._quiet.start()
        if not self._most.isActive():
            self._most.start()

    def _state(self, state: State) -> None:
        self._watch()  # the folder may have been made since
        if state == State.IDLE and self._pending:
            self._quiet.start()

    def _build(self) -> None:
        if not self._pending:
            return
        if self.controller.state != State.IDLE:  # built at the end of the run (_state)
            return
        self._quiet.stop()
        self._most.stop()
        self._pending = False
        self.preloads += 1
        self.controller.preload()
