"""The ONNX Runtime session of the punctuation model: the execution provider (CUDA or the
CPU, as asked and as it turns out), its threads, and CUDA's libraries from pip."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from dictate.errors import ModelError, ProviderError

log = logging.getLogger("dictate.punctuation.model")  # where it logged before it moved here

Provider = Literal["auto", "cpu", "cuda"]
PROVIDERS: tuple[str, ...] = ("auto", "cpu", "cuda")
_CUDA = "CUDAExecutionProvider"
_CPU = "CPUExecutionProvider"


RUNTIME_MISSING = (
    "ONNX Runtime is not installed (neither the onnxruntime nor the onnxruntime-gpu package), "
    "so there is no punctuation model and no dictation; install dictate again with "
    "bash installer/setup.sh, or run pip install 'dictate[cpu]' ('dictate[gpu]' on a machine "
    "with an NVIDIA GPU)"
)


def runtime_missing() -> str | None:
    """:data:`RUNTIME_MISSING` if no ONNX Runtime build is installed, else None; cheap (the
    module is found, not imported), for the window to say so when it opens."""
    return RUNTIME_MISSING if importlib.util.find_spec("onnxruntime") is None else None


def import_onnxruntime() -> Any:
    """The ``onnxruntime`` module, from whichever build is installed (onnxruntime or
    onnxruntime-gpu: the two are one module with or without the CUDA provider).

    Raises:
        ProviderError: Neither is installed, or the installed one cannot be loaded.
    """
    try:
        import onnxruntime
    except ImportError as exc:
        if runtime_missing():
            raise ProviderError(RUNTIME_MISSING) from exc
        raise ProviderError(
            f"ONNX Runtime is installed but cannot be loaded ({exc}); onnxruntime and "
            "onnxruntime-gpu installed together break each other: uninstall both, then "
            "install one (pip install 'dictate[cpu]' or 'dictate[gpu]')"
        ) from exc
    return onnxruntime


@dataclass
class SessionInfo:
    """Which execution provider a session ended up with, and why."""

    provider: str
    threads: int
    note: str = ""
    available: list[str] = field(default_factory=list)


def _preload_cuda_libraries(ort: Any) -> None:
    """Make CUDA and cuDNN from pip's nvidia-* packages (the ``cuda`` extra) findable.

    ``onnxruntime.preload_dlls`` prints its complaints to stdout, which would corrupt the output
    of ``dictate punctuate``: they go to the debug log instead.
    """
    if not hasattr(ort, "preload_dlls"):
        return
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            ort.preload_dlls()
    except Exception as exc:  # best effort: the session tells whether CUDA works
        log.debug("onnxruntime.preload_dlls() failed: %s", exc)
    if printed.getvalue().strip():
        log.debug("onnxruntime.preload_dlls(): %s", printed.getvalue().strip())


def create_session(
    path: Path, provider: str, threads: int | None = None
) -> tuple[Any, SessionInfo]:
    """Create an ONNX Runtime session with the requested execution provider.

    ``auto`` tries CUDA and falls back to the CPU with a logged reason; ``cpu`` and ``cuda``
    force one. The provider in use is read back from the session, never assumed.

    Args:
        path: The ``model.onnx`` file.
        provider: ``auto``, ``cpu`` or ``cuda``.
        threads: Intra-op threads for the CPU; default: up to 4, at most the number of cores.

    Raises:
        ProviderError: ``cuda`` was requested and cannot be used, or ONNX Runtime is not
            installed.
        ModelError: The file is not a loadable ONNX model.
    """
    ort = import_onnxruntime()
    if provider not in PROVIDERS:
        raise ProviderError(f"unknown execution provider {provider!r}; use one of {PROVIDERS}")
    options = ort.SessionOptions()
    # Pinned on purpose: the default grabs every core, and the GUI and audio threads need one.
    threads = threads or max(1, min(4, os.cpu_count() or 1))
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Its threads wait for work asleep, not spinning: on the 2-core development machine the
    # spinning took the cores the other threads needed (`dictate bench punctuator --runs 30`:
    # 28.0 CPU-s and 14.3 s wall with it, 17.9 CPU-s and 12.2 s without; a 128-token window
    # 14.0 ms against 9.8 ms median), and the live pipeline's CPU for a real recording went
    # from a median 24.2 to 21.3 CPU-s with the same latency (5 runs each, docs/performance.md).
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    available = list(ort.get_available_providers())
    info = SessionInfo(provider=_CPU, threads=threads, available=available)
    wanted = [_CPU]
    if provider in ("auto", "cuda"):
        if _CUDA not in available:
            info.note = (
                f"this onnxruntime build has no CUDA support (available: {', '.join(available)})"
            )
            if provider == "cuda":
                raise ProviderError(
                    f"CUDA requested but {info.note}; install onnxruntime-gpu instead of "
                    "onnxruntime (pip uninstall onnxruntime, then pip install 'dictate[cuda]') "
                    "on a machine with an NVIDIA GPU, or use --provider cpu"
                )
        else:
            _preload_cuda_libraries(ort)
            wanted = [_CUDA, _CPU]
    quiet = _CUDA in wanted
    try:
        if quiet:
            # A failed CUDA initialisation is expected on CPU-only machines: we log our own
            # one-line reason instead of onnxruntime's multi-line error on stderr.
            ort.set_default_logger_severity(4)
        session = ort.InferenceSession(str(path), sess_options=options, providers=wanted)
    except Exception as exc:  # onnxruntime raises its own exception types for bad files
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(
            f"cannot load {path}: {first}; the model file is corrupt or not an ONNX model, "
            "reinstall or re-download it"
        ) from exc
    finally:
        if quiet:
            ort.set_default_logger_severity(2)  # onnxruntime's default: warnings and up
    in_use = list(session.get_providers())
    info.provider = in_use[0] if in_use else _CPU
    if _CUDA in wanted and _CUDA not in in_use:
        info.note = (
            "CUDAExecutionProvider could not be initialised (no NVIDIA GPU, or the CUDA and cuDNN "
            "libraries were not found: pip install 'dictate[cuda]')"
        )
        if provider == "cuda":
            raise ProviderError(f"CUDA requested but {info.note}; or use --provider cpu")
    if info.note and provider == "auto":
        log.info("punctuation model runs on the CPU: %s", info.note)
    return session, info
