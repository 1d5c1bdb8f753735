"""Run a recogniser in a child process, so its C code never holds this process's GIL.

PocketSphinx's Python binding keeps Python's global interpreter lock while it decodes (tens of
milliseconds per call), which stalls the GUI thread of the window. Vosk (called through cffi)
releases it, so only the window's PocketSphinx engine goes through here. The child loads the
engine itself (spawned, not forked: the parent has Qt and PortAudio threads) and speaks a small
message protocol over a pipe; waiting on the pipe releases the lock.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import multiprocessing
from collections.abc import Sequence
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any, cast

import numpy as np

from dictate.asr.command_decode import CommandDecode
from dictate.asr.engine import CommandDecoding, VocabularyTaking, Word
from dictate.asr.registry import EngineOptions
from dictate.errors import DictateError
from dictate.parent_watch import exit_with_parent

log = logging.getLogger("dictate.asr")


def _serve(conn: Connection, options: EngineOptions) -> None:
    """The child: load the engine, then decode what the parent sends until it says close."""
    exit_with_parent()
    # The parent may go away (the app quit while this loaded): no one to tell, no traceback.
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, EOFError):
        _serve_until_closed(conn, options)


def _serve_until_closed(conn: Connection, options: EngineOptions) -> None:
    from dictate.asr.loader import load_engine

    try:
        engine = load_engine(options=options)
        recognizer = engine.recognizer()
    except Exception as exc:
        conn.send(("error", str(exc)))
        return
    path = str(engine.model_path) if engine.model_path else None
    conn.send(("ready", engine.label, path, engine.name))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        kind = message[0]
        try:
            if kind == "start":
                recognizer.start(message[1])
            elif kind == "vocabulary":  # only an engine declared to take it is sent one
                conn.send(("added", cast(VocabularyTaking, recognizer).add_vocabulary(message[1])))
            elif kind == "audio":
                words = recognizer.accept(np.frombuffer(message[1], dtype="<i2"))
                if words is not None:
                    conn.send(("partial", words))
            elif kind == "finish":
                final = recognizer.finish()
                said = [(w.text, w.start, w.end, w.confidence) for w in final]
                conn.send(("final", said, recognizer.alternatives))
            elif kind == "close":
                return
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))


def _serve_commands(conn: Connection, options: EngineOptions, phrases: list[str]) -> None:
    """The child of a :class:`ProcessCommandDecoder`: decode segments against the phrases."""
    exit_with_parent()
    with contextlib.suppress(BrokenPipeError, ConnectionResetError, EOFError):
        from dictate.asr.loader import load_engine

        try:
            # Only an engine declared able to (Abilities.command_decoder) runs here.
            engine = cast(CommandDecoding, load_engine(options=options))
            decoder = engine.command_decoder(phrases)
        except Exception as exc:
            conn.send(("error", f"{type(exc).__name__}: {exc}"))
            return
        conn.send(("ready", decoder is not None))
        while True:
            message = conn.recv()
            if message[0] != "decode":
                return
            try:
                result = decoder.decode(np.frombuffer(message[1], dtype="<i2"), message[2])
                conn.send(("result", dataclasses.astuple(result)))
            except Exception as exc:
                conn.send(("error", f"{type(exc).__name__}: {exc}"))


class _Child:
    """The parent's end of a child process that answers over a pipe."""

    _conn: Connection
    _process: Any
    _what = "recogniser"

    def _receive(self, timeout: float | None = None) -> Any:
        if not self._conn.poll(timeout):
            raise DictateError(f"the {self._what} process did not answer; restart dictation")
        try:
            return self._conn.recv()
        except EOFError:
            raise DictateError(f"the {self._what} process ended unexpectedly") from None

    def close(self) -> None:
        with contextlib.suppress(BrokenPipeError, OSError):
            self._conn.send(("close",))
        self._process.join(5)
        if self._process.is_alive():
            self._process.kill()

    def __del__(self) -> None:
        if getattr(self, "_process", None) is not None and self._process.is_alive():
            self._process.kill()


class ProcessCommandDecoder(_Child):
    """The second decode of commands (:mod:`dictate.asr.command_decode`) in a child process of
    its own, for the same reason as the recogniser's: PocketSphinx keeps the GIL while it
    decodes. A second child rather than the recogniser's, so the punctuation thread never
    shares a pipe with the audio thread. It starts now; the first decode waits for it."""

    _what = "command decoder"

    def __init__(self, options: EngineOptions, phrases: list[str]) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve_commands,
            args=(child, options, list(phrases)),
            name="dictate-commands",
            daemon=True,
        )
        self._process.start()
        child.close()
        self._ready: bool | None = None

    def decode(self, samples: np.ndarray, heard: Sequence[str] = ()) -> CommandDecode:
        if self._ready is None:
            reply = self._receive(120)
            self._ready = reply[0] == "ready" and bool(reply[1])
            if not self._ready:
                log.warning("no second decode of commands: %s", reply[1])
        if not self._ready:
            return CommandDecode("", False, 0.0)
        try:
            self._conn.send(("decode", np.asarray(samples, dtype="<i2").tobytes(), list(heard)))
        except (BrokenPipeError, OSError):
            raise DictateError("the command decoder process ended unexpectedly") from None
        reply = self._receive(60)
        if reply[0] != "result":
            raise DictateError(f"command decoder failed: {reply[1]}")
        return CommandDecode(*reply[1])


def out_of_process(engine: Any) -> Any:
    """``engine`` as a live pipeline runs it: in a child process where it holds the GIL while
    it decodes (PocketSphinx), else as it is. In the process, the refining thread waited for
    the lock: ``transcribe --realtime`` of J. F. Kennedy scored a command's texts in 0.47-0.63 s
    against 0.35-0.41 s with the recogniser in its child (docs/performance.md)."""
    from dictate.asr.registry import abilities_of, options_of

    if not abilities_of(engine).own_process:
        return engine
    return ProcessEngine(None, options=options_of(engine))


class ProcessEngine:
    """An engine loaded in a child process; each recogniser is a child of its own.

    Raises:
        DictateError: The child could not load the engine (the child's message is kept).
    """

    def __init__(
        self,
        name: str | None,
        model: str | Path | None = None,
        options: EngineOptions | None = None,
    ) -> None:
        self._options = EngineOptions.of(name, model, options)
        probe = ProcessRecognizer(self._options)  # loads once now: errors surface here
        self.name = probe.engine_name
        self.label = probe.label
        self.model_path = probe.model_path
        self._spare: ProcessRecognizer | None = probe

    def command_decoder(self, phrases: Sequence[str]) -> ProcessCommandDecoder:
        """The second decode of commands, in a child process of its own."""
        return ProcessCommandDecoder(self._options, list(phrases))

    def close(self) -> None:
        """End the spare recogniser's child (those handed out are their holders' to close)."""
        spare, self._spare = self._spare, None
        if spare is not None:
            spare.close()

    def recognizer(self) -> ProcessRecognizer:
        if self._spare is not None:
            spare, self._spare = self._spare, None
            return spare
        return ProcessRecognizer(self._options)


class ProcessRecognizer(_Child):
    """The parent's side of one child recogniser (same interface as the in-process ones)."""

    def __init__(self, options: EngineOptions) -> None:
        self._options = options
        self.alternatives: list[list[str]] = []
        """The child recogniser's, for the last segment."""
        self._vocabulary: list[Any] = []
        self._spawn()

    def _spawn(self) -> None:
        context = multiprocessing.get_context("spawn")
        self._conn, child = context.Pipe()
        self._process = context.Process(
            target=_serve, args=(child, self._options), name="dictate-recognizer", daemon=True
        )
        self._process.start()
        child.close()
        reply = self._receive(timeout=120)
        if reply[0] != "ready":
            self.close()
            raise DictateError(str(reply[1]))
        _, self.label, path, self.engine_name = reply
        self.model_path = Path(path) if path else None
        self._partial: list[str] | None = None
        if self._vocabulary:  # a child started again hears the entries the first one had
            self._add(self._vocabulary)

    def add_vocabulary(self, entries: Sequence[Any]) -> int:
        """The user's vocabulary into the child's recogniser (before :meth:`start`), kept for
        a child started again; how many entries it added."""
        self._vocabulary = list(entries)
        return self._add(self._vocabulary)

    def _add(self, entries: list[Any]) -> int:
        self._send(("vocabulary", entries))
        reply = self._receive(timeout=60)
        if reply[0] != "added":
            raise DictateError(f"recogniser failed: {reply[1]}")
        return int(reply[1])

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
                self.alternatives = list(reply[2])
                return [Word(*item) for item in reply[1]]
            if reply[0] == "error":
                raise DictateError(f"recogniser failed: {reply[1]}")
