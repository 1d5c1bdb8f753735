"""The document journal: every change to the text, appended and fsynced, for crash recovery.

The journal is a JSON Lines file in the user data directory. Each line is one operation:

* ``{"op": "reset", "text": ...}`` the document became exactly this text (start, New, Open, or a
  compaction snapshot);
* ``{"op": "edit", "pos": N, "del": "...", "ins": "..."}`` at character ``pos``, the text
  ``del`` was replaced by ``ins`` (a user edit or a finalized sentence);
* ``{"op": "pending", "text": ...}`` the dictated words not yet final (shown greyed), kept so a
  crash loses none of them;
* ``{"op": "path", "path": ...}`` the document's file, after Open or Save As;
* ``{"op": "closed"}`` the app closed normally: nothing to recover.

:meth:`Journal.append` writes the line, flushes and fsyncs before it returns, so the caller can
apply or show the change only once it is on disk. :func:`replay` rebuilds the document; a last
line cut short by a crash is ignored (everything before it is intact). The file is compacted into
one ``reset`` when it grows large, by writing a new file and renaming it over the old.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dictate.paths import user_data_dir

log = logging.getLogger("dictate.journal")

COMPACT_AFTER = 2000
"""Operations after which the journal is rewritten as a single snapshot."""


def default_journal_path() -> Path:
    return user_data_dir() / "journal" / "document.jsonl"


@dataclass
class Recovered:
    """What a journal holds: the document, the pending words, and its file if it had one."""

    text: str
    pending: str
    path: str | None
    closed: bool
    """True if the app closed normally after the last change (nothing to recover)."""

    @property
    def full_text(self) -> str:
        """The document with the pending words appended at its end, as Stop would have."""
        if not self.pending:
            return self.text
        sep = "" if not self.text or self.text.endswith((" ", "\n")) else " "
        return self.text + sep + self.pending


def _apply(text: str, op: dict[str, Any]) -> str:
    pos = int(op["pos"])
    removed = str(op.get("del", ""))
    if text[pos : pos + len(removed)] != removed:
        raise ValueError(f"journal edit at {pos} does not match the document")
    return text[:pos] + str(op.get("ins", "")) + text[pos + len(removed) :]


def replay(path: Path) -> Recovered | None:
    """Rebuild the document from the journal at ``path``; None if there is none.

    A last line cut off by a crash is skipped; a line that does not fit the document (a corrupt
    journal) stops the replay there, keeping everything before it.
    """
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    text, pending, doc_path, closed = "", "", None, False
    for number, line in enumerate(raw.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            op = json.loads(line)
            kind = op["op"]
            if kind == "reset":
                text, pending = str(op["text"]), ""
            elif kind == "edit":
                text = _apply(text, op)
            elif kind == "pending":
                pending = str(op["text"])
            elif kind == "path":
                doc_path = op.get("path")
            elif kind == "closed":
                closed = True
                continue
            closed = False
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("journal %s: stopped at line %d (%s)", path, number, exc)
            break
    return Recovered(text, pending, doc_path, closed)


class Journal:
    """Appends operations to the journal file, each one durable when :meth:`append` returns."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or default_journal_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = self.path.open("ab")
        self._ops = 0

    def append(self, op: dict[str, Any]) -> None:
        line = json.dumps(op, ensure_ascii=False).encode("utf-8") + b"\n"
        self._fh.write(line)
        self._fh.flush()
        os.fsync(self._fh.fileno())
        self._ops += 1

    def reset(self, text: str, path: str | None = None) -> None:
        """Start over with ``text`` (New, Open, recovery): rewrites the file."""
        self._rewrite(text, "", path)

    def edit(self, pos: int, removed: str, inserted: str) -> None:
        self.append({"op": "edit", "pos": pos, "del": removed, "ins": inserted})

    def pending(self, text: str) -> None:
        self.append({"op": "pending", "text": text})

    def set_path(self, path: str | None) -> None:
        self.append({"op": "path", "path": path})

    def maybe_compact(self, text: str, pending: str, path: str | None) -> None:
        """Rewrite as one snapshot once the file holds many operations."""
        if self._ops >= COMPACT_AFTER:
            self._rewrite(text, pending, path)

    def _rewrite(self, text: str, pending: str, path: str | None) -> None:
        tmp = self.path.with_name(self.path.name + ".tmp")
        with tmp.open("wb") as fh:
            for op in (
                {"op": "reset", "text": text},
                {"op": "path", "path": path},
                {"op": "pending", "text": pending},
            ):
                fh.write(json.dumps(op, ensure_ascii=False).encode("utf-8") + b"\n")
            fh.flush()
            os.fsync(fh.fileno())
        self._fh.close()
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)
        self._fh = self.path.open("ab")
        self._ops = 0

    def close(self, clean: bool = True) -> None:
        """Close the file; ``clean`` marks a normal exit (nothing to recover next time)."""
        if self._fh.closed:
            return
        if clean:
            self.append({"op": "closed"})
        self._fh.close()


def _fsync_dir(directory: Path) -> None:
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
