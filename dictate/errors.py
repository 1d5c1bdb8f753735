"""Typed errors raised by the library; the command line turns them into one line and exit status 2.

Library code never calls ``sys.exit``: it raises one of these with a message that says what was
wrong, which file or device, and what to do about it.
"""

from __future__ import annotations


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
