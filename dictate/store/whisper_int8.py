"""A CPU copy of a Whisper model with its weights stored as int8, made once and loaded from then
on.

Whisper tiny.en (and the catalogue's models) store their weights as float16. Loaded for the
CPU with ``compute_type="int8"``, CTranslate2 reads them and quantizes them in memory: the
window's process held 97 MiB more while tiny.en loaded than once it had (a peak of 356 MiB
against 259 MiB after; measured, docs/second-pass.md), which put the window over its 350 MB
budget while loading. A model whose weights are int8 on disk loads with no such peak.

So the first load makes that copy: a child process (its memory is its own, and ends with it)
reads ``model.bin`` and writes it again with every weight CTranslate2 would quantize for
Whisper quantized as CTranslate2's own converter does (int8 per row, with a float32 scale per
row; the convolutions' weights kept, as CTranslate2 keeps them for Whisper), beside copies of
the model's other files. The words are the same: on the 16 real recordings of
``benchmarks/real_recordings.py``, both loads wrote the same text (tests check the weights).

The copy lives in ``whisper-int8/KEY`` in the user cache directory (``~/.cache/dictate`` on
Linux: it is made again if lost), ``KEY`` drawn from the source ``model.bin``'s path, size and
modification time. ``copy.json`` holds the source's identity and the copy's size and SHA-256,
checked at every load; a copy that fails the check is made again, and where the copy cannot be
made (a model CTranslate2's spec does not describe, a full disk) the model is loaded as it is,
with one line in the log saying why.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from dictate.store.whisper_bundled import sha256_of

log = logging.getLogger("dictate.models")

FOLDER = "whisper-int8"
"""The copies' folder, in the user cache directory."""
MANIFEST = "copy.json"
VERSION = 1
"""Of the copy's recipe: a copy made by another recipe is made again."""
CONVERT_TIMEOUT_S = 600

_DTYPES = ("float32", "int8", "int16", "int32", "float16", "bfloat16")
"""CTranslate2's type ids, in order (``ctranslate2.specs.model_spec``)."""
_FLOATS = {"float32", "float16", "bfloat16"}


def _read_string(f: IO[bytes]) -> str:
    (length,) = struct.unpack("<H", f.read(2))
    return f.read(length)[:-1].decode("utf-8")


def variables(
    model_bin: Path, with_data: bool = False
) -> Iterator[tuple[str, list[int], str, Any]]:
    """The variables of a CTranslate2 ``model.bin``: name, shape, type name and, where
    ``with_data``, the bytes (else None: the data is skipped). Then the aliases, as
    ``(alias, [], "alias", name)``.

    Raises:
        ValueError: The file is not a CTranslate2 model of a version this reads.
    """
    with model_bin.open("rb") as f:
        (version,) = struct.unpack("<I", f.read(4))
        if not 5 <= version <= 6:
            raise ValueError(f"{model_bin}: CTranslate2 model version {version} is not read here")
        _read_string(f)  # the spec's name
        f.read(4)  # its revision
        (count,) = struct.unpack("<I", f.read(4))
        for _ in range(count):
            name = _read_string(f)
            (rank,) = struct.unpack("<B", f.read(1))
            shape = list(struct.unpack(f"<{rank}I", f.read(4 * rank)))
            type_id, size = struct.unpack("<BI", f.read(5))
            if type_id >= len(_DTYPES):
                raise ValueError(f"{model_bin}: variable {name} has an unknown type {type_id}")
            if with_data:
                yield name, shape, _DTYPES[type_id], f.read(size)
            else:
                f.seek(size, os.SEEK_CUR)
                yield name, shape, _DTYPES[type_id], None
        (aliases,) = struct.unpack("<I", f.read(4))
        for _ in range(aliases):
            alias = _read_string(f)
            yield alias, [], "alias", _read_string(f)


def quantizable(name: str) -> bool:
    """Whether CTranslate2 quantizes this variable of a Whisper model at load time for an int8
    compute type (``WhisperModel::is_quantizable``: a weight, not a convolution's)."""
    return name.endswith("weight") and "conv" not in name


def needs_copy(model_bin: Path) -> bool:
    """Whether the model stores a weight CTranslate2 would quantize as floats."""
    return any(
        dtype in _FLOATS
        for name, _, dtype, _ in variables(model_bin)
        if dtype != "alias" and quantizable(name)
    )


def _source_identity(model_bin: Path) -> dict[str, Any]:
    stat = model_bin.stat()
    return {"path": str(model_bin.resolve()), "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}


def _key(identity: dict[str, Any]) -> str:
    text = json.dumps(identity, sort_keys=True).encode("utf-8")
    return hashlib.sha256(text).hexdigest()[:16]


def _valid_copy(folder: Path, identity: dict[str, Any]) -> bool:
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        copy = folder / "model.bin"
        return (
            manifest.get("version") == VERSION
            and manifest.get("source") == identity
            and copy.stat().st_size == manifest.get("size")
            and sha256_of(copy) == manifest.get("sha256")
        )
    except (OSError, ValueError, AttributeError):
        return False


def int8_copy(model: Path, root: Path) -> Path:
    """The folder of ``model``'s int8 copy under ``root`` (the user cache directory), made now if it
    is missing or fails its check; ``model`` itself where it needs no copy or the copy cannot
    be made (logged)."""
    model_bin = model / "model.bin"
    try:
        if not needs_copy(model_bin):
            return model
        identity = _source_identity(model_bin)
    except (OSError, ValueError) as exc:
        log.info("Whisper model %s is loaded as it is: %s", model, exc)
        return model
    folder = root / FOLDER / _key(identity)
    if _valid_copy(folder, identity):
        return folder
    try:
        _make_copy(model, folder, identity)
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        log.warning(
            "could not store an int8 copy of the Whisper model %s (%s); loading it as it is, "
            "which takes more memory while it loads",
            model,
            exc,
        )
        return model
    _remove_stale(folder)
    return folder


def _remove_stale(kept: Path) -> None:
    """Remove the copies beside ``kept`` (just made) whose model has gone or changed since
    they were made (an upgrade, a reinstall, a removed environment): each is as big as its
    model's weights and would never be used again. Copies of other models that are still
    there, and another process's unfinished work (hidden folders), are left alone."""
    for folder in kept.parent.iterdir():
        if folder == kept or folder.name.startswith(".") or not folder.is_dir():
            continue
        try:
            source = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["source"]
            stale = _source_identity(Path(source["path"])) != source
        except FileNotFoundError:
            stale = True  # the model (or the copy's manifest) is gone
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not readable now: not this process's to judge
        if stale:
            log.info("removing the int8 copy %s: its model has gone or changed", folder)
            shutil.rmtree(folder, ignore_errors=True)


def _make_copy(model: Path, folder: Path, identity: dict[str, Any]) -> None:
    """Convert in a child process into a new folder beside ``folder``, check, rename into
    place (a crash leaves a hidden temporary folder, never a half copy under the key)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    try:
        done = subprocess.run(
            [sys.executable, "-m", "dictate.store.whisper_int8", str(model), str(work)],
            capture_output=True,
            text=True,
            timeout=CONVERT_TIMEOUT_S,
            check=False,
        )
        if done.returncode != 0:
            lines = (done.stderr or done.stdout).strip().splitlines()
            raise ValueError(lines[-1] if lines else f"the converter exited {done.returncode}")
        copy = work / "model.bin"
        manifest = {
            "version": VERSION,
            "source": identity,
            "size": copy.stat().st_size,
            "sha256": sha256_of(copy),
        }
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if folder.exists():  # a damaged copy, or another process's finished one
            shutil.rmtree(folder, ignore_errors=True)
        try:
            work.rename(folder)
        except OSError:
            if not _valid_copy(folder, identity):  # another process won the rename
                raise
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)


def convert(model: Path, out: Path) -> None:
    """Write ``model``'s int8 copy into the folder ``out`` (run in a child process: it holds
    the model as floats while it works). Uses CTranslate2's own Whisper spec and quantization,
    so the file is what its converter writes for ``--quantization int8``, the convolutions
    aside."""
    import numpy as np
    from ctranslate2.specs import model_spec, whisper_spec

    numpy_types = {"float32": np.float32, "int8": np.int8, "int16": np.int16,
                   "int32": np.int32, "float16": np.float16}  # fmt: skip
    values: dict[str, Any] = {}
    aliases: list[tuple[str, str]] = []
    for name, shape, dtype, data in variables(model / "model.bin", with_data=True):
        if dtype == "alias":
            aliases.append((name, data))
        elif dtype not in numpy_types:
            raise ValueError(f"variable {name} is {dtype}: not converted here")
        else:
            values[name] = np.frombuffer(data, dtype=numpy_types[dtype]).reshape(shape)
    for alias, target in aliases:
        values[alias] = values[target]  # the converter makes the alias again

    def layers(part: str) -> int:
        found = (re.match(rf"{part}/layer_(\d+)/", name) for name in values)
        return len({m.group(1) for m in found if m})

    spec = whisper_spec.WhisperSpec(
        layers("encoder"),
        int(values["encoder/num_heads"]),
        layers("decoder"),
        int(values["decoder/num_heads"]),
    )
    for name, value in values.items():
        scope, attribute = model_spec._parent_scope(name)
        layer = model_spec.index_spec(spec, scope)
        if not hasattr(layer, attribute):
            raise ValueError(f"variable {name} is not in CTranslate2's Whisper spec")
        setattr(layer, attribute, value)
    model_spec.LayerSpec.validate(spec)  # the vocabulary's check is the model's own: not here
    spec._alias_variables()
    spec._quantize("int8", variable_filter=quantizable)
    out.mkdir(parents=True, exist_ok=True)
    spec._serialize(str(out / "model.bin"))
    for other in model.iterdir():
        if other.is_file() and other.name != "model.bin":
            shutil.copy2(other, out / other.name)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print(
            "usage: python -m dictate.store.whisper_int8 MODEL_FOLDER OUT_FOLDER", file=sys.stderr
        )
        return 2
    try:
        convert(Path(args[0]), Path(args[1]))
    except (OSError, ValueError, KeyError, AttributeError, IndexError) as exc:
        print(f"cannot convert {args[0]}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
