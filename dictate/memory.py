"""Memory the process has freed given back to the system, and imports that are never used
deferred (the window's resident size with Whisper loaded; docs/second-pass.md).

glibc keeps what a program frees in its heaps for reuse: after CTranslate2 loads a model (a
transient of about 50 MiB here) and after each decode (about 25 MiB of feature and encoder
buffers), the window's resident size stayed that much higher for good. ``malloc_trim`` hands
it back; it costs about a millisecond. Each thread that allocates may also get a heap of its own
(up to eight per core), each keeping its own free memory: :func:`limit_heaps` caps them, as
``MALLOC_ARENA_MAX`` would, for a process with a handful of busy threads.

Elsewhere than glibc (macOS, Windows, musl) these do nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import sys
import types
from functools import cache
from typing import Any

_M_ARENA_MAX = -8
"""``mallopt``'s parameter for the most heaps (glibc's malloc.h)."""
HEAPS = 2
"""Heaps for the window and ``transcribe``: the audio, refining and punctuation threads share
them; what glibc would allow on this 2-core machine is 16."""


@cache
def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim  # noqa: B018  (absent on musl: not glibc)
        libc.mallopt  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def release() -> bool:
    """Give the memory freed in every heap back to the system; True where it was possible."""
    libc = _glibc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True


def limit_heaps(heaps: int = HEAPS) -> bool:
    """Cap the heaps glibc makes for threads (call before the threads start); True where set."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_ARENA_MAX, heaps))


class _Deferred(types.ModuleType):
    """A module's stand-in that imports it on the first attribute asked of it."""

    def __getattr__(self, attr: str) -> Any:
        name = self.__name__
        if sys.modules.get(name) is self:
            del sys.modules[name]
        real = importlib.import_module(name)
        return getattr(real, attr)


def defer_import(name: str) -> None:
    """Import module ``name`` only when it is first used: a stand-in is put in
    :data:`sys.modules` now. For a module a library imports at its top and uses only in
    functions dictate never calls (faster-whisper's PyAV and its FFmpeg libraries, which decode
    audio files: dictate hands it samples). Nothing happens if it is imported already or not
    installed. (``importlib.util.LazyLoader`` does not do: ``import`` itself reads the module's
    ``__spec__``, which loads it.)"""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = _Deferred(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in
