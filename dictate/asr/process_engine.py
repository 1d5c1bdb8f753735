"""Run a recogniser in a child process, so its C code never holds this process's GIL.

PocketSphinx's Python binding keeps Python's global interpreter lock while it decodes (tens of
milliseconds per call), which stalls the GUI thread of the window. Vosk (called through cffi)
releases it, so only the window's PocketSphinx engine goes through here. The child loads the
engine itself (spawned, not forked: the parent has Qt and PortAudio threads) and speaks a small
message protocol over a pipe; waiting on the pipe releases the lock.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np

from dictate.asr.engine import Word
from dictate.errors import DictateError

log = logging.getLogger("dictate.asr")


def _serve(conn: Connection, name: str | None, model: str | None) -> None:
    """The child: load the engine, then decode what the parent sends until it says close."""
    # The parent may go away (the app quit while this loaded): no one to tell, no traceback.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, EOFError):
        _serve_until_closed(conn, name, model)


def _serve_until_closed(conn: Connection, name: str | None, model: str | None) -> None:
    from dictate.asr.loader import load_engine

    try:
        engine = load_engine(name, model)
        recognizer = engine.recognizer()
    except Exception as exc:
        conn.send(("error", str(exc)))
        return
    conn.send(("ready", engine.label, str(engine.model_path) if engine.model_path else None))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        kind = message[0]
        try:
            if kind == "start":
                recognizer.start(message[1])
            elif kind == "audio":
                words = recognizer.accept(np.frombuffer(message[1], dtype="<i2"))
                if words is not None:
                    conn.send(("partial", words))
            elif kind == "finish":
                final = recognizer.finish()
                conn.send(("final", [(w.text, w.start, w.end, w.confidence) for w in final]))
            elif kind == "close":
                return
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


class ProcessEngine:
    """An engine loaded in a child process; each recogniser is a child of its own.

    Raises:
        DictateError: The child could not load the engine (the child's message is kept).
    """

    def __init__(self, name: str | None, model: str | Path | None = None) -> None:
        self._name = name
        self._model = str(model) if model is not None else None
        probe = ProcessRecognizer(name, self._model)  # loads once now: errors surface here
        self.name = probe.engine_name
        self.label = probe.label
        self.model_path = probe.model_path
        self._spare: ProcessRecognizer | None = probe

    def recognizer(self) -> ProcessRecognizer:
        if self._spare is not None:
            spare, self._spare = self._spare, None
            return spare
        return ProcessRecognizer(self._name, self._model)


class ProcessRecognizer:
    """The parent's side of one child recogniser (same interface as the in-process ones)."""

    def __init__(self, name: str | None, model: str | None) -> None:
        self._name, self._model = name, model
        self._spawn()

    def _spawn(self) -> None:
        name, model = self._name, self._model
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, name, model), name="dictate-recognizer", daemon=True
        )
        self._process.start()
        child.close()
        reply = self._receive(timeout=120)
        if reply[0] != "ready":
            self.close()
            raise DictateError(str(reply[1]))
        _, self.label, path = reply
        self.model_path = Path(path) if path else None
        self.engine_name = "sphinx" if "PocketSphinx" in self.label else "vosk"
        self._partial: list[str] | None = None

    def _receive(self, timeout: float | None = None) -> Any:
        if not self._conn.poll(timeout):
            raise DictateError("the recogniser process did not answer; restart dictation")
        try:
            return self._conn.recv()
        except EOFError:
            raise DictateError("the recogniser process ended unexpectedly") from None

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._conn.send(message)
        except (BrokenPipeError, OSError):
            raise DictateError("the recogniser process ended unexpectedly") from None

    def _drain(self) -> None:
        while self._conn.poll(0):
            reply = self._receive(0)
            if reply[0] == "partial":
                self._partial = reply[1]
            elif reply[0] == "error":
                raise DictateError(f"recogniser failed: {reply[1]}")

    def start(self, time: float) -> None:
        if not self._process.is_alive():  # it died in an earlier run (killed, out of memory)
            log.warning("the recogniser process had ended; starting a new one")
            self.close()
            self._spawn()
        self._send(("start", time))

    def accept(self, samples: np.ndarray) -> list[str] | None:
        self._send(("audio", np.asarray(samples, dtype="<i2").tobytes()))
        self._drain()
        partial, self._partial = self._partial, None
        return partial

    def finish(self) -> list[Word]:
        self._send(("finish",))
        while True:
            reply = self._receive(timeout=60)
            if reply[0] == "final":
                self._partial = None
                return [Word(*item) for item in reply[1]]
            if reply[0] == "error":
                raise DictateError(f"recogniser failed: {reply[1]}")

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self._conn.send(("close",))
        self._process.join(5)
        if self._process.is_alive():
            self._process.kill()

    def __del__(self) -> None:
        if getattr(self, "_process", None) is not None and self._process.is_alive():
            self._process.kill()
