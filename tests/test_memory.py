"""dictate.memory: freed memory given back to the system, and deferred imports."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dictate import memory


def _rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(memory._glibc() is None, reason="malloc_trim is glibc's (Linux)")
def test_release_gives_freed_heap_memory_back() -> None:
    # Blocks under glibc's mmap threshold come from the heap; keeping every other one alive
    # pins the heap's top, so glibc cannot shrink it by itself when the rest are freed.
    blocks = [bytearray(100_000) for _ in range(2000)]
    for block in blocks:
        block[::4096] = b"x" * len(block[::4096])  # touch every page: resident
    kept = blocks[1::2]
    del blocks
    before = _rss_mib()
    assert memory.release()
    after = _rss_mib()
    assert before - after > 50, (before, after)
    del kept


@pytest.mark.skipif(memory._glibc() is None, reason="mallopt is glibc's (Linux)")
def test_limit_heaps_is_accepted() -> None:
    assert memory.limit_heaps(memory.HEAPS)


_PILE_UP = textwrap.dedent(
    """
    import ctypes, sys
    from dictate import memory
    if sys.argv[1] == "fixed":
        assert memory.map_large_blocks()
    libc = memory._glibc()
    libc.malloc.restype = ctypes.c_void_p
    libc.free.argtypes = [ctypes.c_void_p]

    def rss():
        with open("/proc/self/status") as status:
            return next(int(l.split()[1]) for l in status if l.startswith("VmRSS:")) / 1024

    def block(size):
        pointer = libc.malloc(size)
        ctypes.memset(pointer, 1, size)  # resident
        return pointer

    libc.free(block(16 << 20))  # glibc's own threshold rises to 16 MiB here
    before = rss()
    blocks = [block(4 << 20) for _ in range(10)]
    kept = block(64 << 10)  # a small block after them pins the heap's top
    for pointer in blocks:
        libc.free(pointer)
    print(rss() - before)
    """
)


@pytest.mark.skipif(memory._glibc() is None, reason="mallopt is glibc's (Linux)")
def test_large_blocks_are_handed_back_as_they_are_freed() -> None:
    """A decode's buffers of a few MiB no longer pile up in the heap (docs/second-pass.md): with
    glibc's own rule, a freed 16 MiB block makes the next 4 MiB ones come from the heap, where
    they stay resident after they are freed."""

    def held_mib(mode: str) -> float:
        done = subprocess.run(
            [sys.executable, "-c", _PILE_UP, mode], capture_output=True, text=True, check=True
        )
        return float(done.stdout)

    assert held_mib("glibc") > 30
    assert held_mib("fixed") < 5


def test_a_deferred_module_runs_only_when_used(tmp_path: Path) -> None:
    (tmp_path / "heavy.py").write_text("import sys\nsys.stderr.write('LOADED\\n')\nVALUE = 42\n")
    (tmp_path / "library.py").write_text("import heavy\n\ndef use():\n    return heavy.VALUE\n")
    script = textwrap.dedent(
        """
        import sys
        from dictate import memory
        memory.defer_import("heavy")
        memory.defer_import("no_such_module_here")
        assert "no_such_module_here" not in sys.modules
        import library
        sys.stderr.write("IMPORTED\\n")
        print(library.use())
        print(type(sys.modules["heavy"]).__name__)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": f"{tmp_path}:{Path(memory.__file__).parents[1]}"},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stderr.split() == ["IMPORTED", "LOADED"]  # not run by `import heavy`
    assert done.stdout.split() == ["42", "module"]  # the real module from then on


def test_faster_whisper_is_loaded_without_pyav() -> None:
    pytest.importorskip("faster_whisper")
    script = textwrap.dedent(
        """
        import sys
        from dictate.asr import whisper_engine
        from dictate import memory
        memory.defer_import("av")
        import faster_whisper  # imports faster_whisper.audio, which imports av
        print(sorted(m for m in sys.modules if m == "av" or m.startswith("av.")))
        print(type(sys.modules["av"]).__name__)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert done.stdout.split("\n")[:2] == ["['av']", "_Deferred"]
