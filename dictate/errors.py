"""Typed errors raised by the library; the command line turns them into one line and exit status 2.

Library code never calls ``sys.exit``: it raises one of these with a message that says what was
wrong, which file or device, and what to do about it.
"""

from __future__ import annotations

import logging
import sys
import traceback
from pathlib import Path


class DictateError(Exception):
    """Base class of every error the user can act on."""


class InputError(DictateError):
    """Input text, audio or a reference file could not be read or is not what was expected."""


class ModelError(DictateError):
    """A model directory is missing, incomplete or corrupt."""


class ModelNotFound(ModelError):
    """No model directory at the given or resolved location."""


class ProviderError(DictateError):
    """The requested ONNX Runtime execution provider cannot be used."""


class AudioError(DictateError):
    """Audio could not be read or captured."""


class AudioDeviceError(AudioError):
    """A microphone is missing, cannot be opened, or failed while recording."""


class PortAudioMissing(AudioDeviceError):
    """The PortAudio system library is not installed, so no microphone can be used."""


class TypingError(DictateError):
    """Text cannot be typed into other applications (no backend, or the backend failed)."""


class DownloadError(DictateError):
    """A model download failed (network, size mismatch, corrupt archive)."""


class DownloadCancelled(DownloadError):
    """The user cancelled a download; nothing was installed."""


def as_sentence(message: str) -> str:
    """An error message as a window shows it: from a capital letter. The command line writes
    them after ``dictate: error:`` and in lower case ("no microphone found: ...")."""
    return message[:1].upper() + message[1:] if message[:1].islower() else message


def log_failure(
    logger: logging.Logger, message: str, *args: object, exc: BaseException | None = None
) -> None:
    """Log the exception being handled, without its message: the stages run on the user's
    words, and an exception's message often quotes them (``invalid literal for int(): 'my pin
    is four four'``); the log must hold nothing the user said. Its type and where it was raised
    (file, line and function of each frame: the code, never the values) find the bug.

    Call it in an ``except`` block, as :meth:`logging.Logger.exception`, or give ``exc``.
    """
    kind, _, tb = (type(exc), exc, exc.__traceback__) if exc is not None else sys.exc_info()
    frames = traceback.extract_tb(tb)[-10:]
    where = " < ".join(f"{Path(f.filename).name}:{f.lineno} in {f.name}" for f in reversed(frames))
    logger.error(f"{message}: %s at %s", *args, kind.__name__ if kind else "error", where or "?")


def close_quietly(thing: object, logger: logging.Logger, what: str) -> None:
    """Call ``thing.close()`` where it has one (a child process, a model); a failure is logged
    at info, not raised: freeing one thing must not stop the freeing of the next."""
    close = getattr(thing, "close", None)
    if close is None:
        return
    try:
        close()
    except Exception:
        logger.info("closing %s failed", what, exc_info=True)
