"""Memory the process has freed given back to the system, and imports that are never used
deferred (the window's resident size with Whisper loaded; docs/second-pass.md).

glibc keeps what a program frees in its heaps for reuse: after CTranslate2 loads a model (a
transient of about 50 MiB here) and after each decode (about 25 MiB of feature and encoder
buffers), the window's resident size stayed that much higher for good. ``malloc_trim`` hands
it back; it costs about a millisecond. Each thread that allocates may also get a heap of its own
(up to eight per core), each keeping its own free memory: :func:`limit_heaps` caps them, as
``MALLOC_ARENA_MAX`` would, for a process with a handful of busy threads.

glibc also serves a block of more than 128 KiB from its own mapping, handed back when it is
freed, but each time such a block is freed it raises that size to the block's (up to 32 MiB),
so that the next ones come from the heaps, where they stay until trimmed: a Whisper decode's
buffers then piled up to 25-35 MiB over the window's resident size while it ran (each decode
of librivox_sense in `dictate bench gui`, sampled every 5 ms), and set the window's peak
(348-351 MiB against 314 between decodes). :func:`map_large_blocks` fixes that size at 256 KiB:
the peak went to 330 MiB (docs/second-pass.md).

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
_M_MMAP_THRESHOLD = -3
"""``mallopt``'s parameter for the size from which a block gets a mapping of its own."""
_M_TRIM_THRESHOLD = -1
"""``mallopt``'s parameter for the free memory at a heap's top from which it is handed back."""
LARGE_BLOCK = 256 * 1024
"""From this size a block is mapped on its own and handed back when freed (measured against
1 and 4 MiB: peaks of 339 and 344 MiB in the window, against 330)."""
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


def map_large_blocks(size: int = LARGE_BLOCK) -> bool:
    """Give every block of ``size`` or more a mapping of its own, handed back when it is freed,
    and trim a heap's top from 4 times that (fixed: glibc no longer raises them as blocks are
    freed); True where set."""
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, size)) and bool(
        libc.mallopt(_M_TRIM_THRESHOLD, 4 * size)
    )


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
