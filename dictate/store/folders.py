"""Model folders and copying them safely: what a Vosk model folder is and where it is in an
unpacked archive, which names a model's folder may have, and the checks before a zip is
unpacked or a folder copied into the store (no climbing out, no link loops)."""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path, PurePosixPath, PureWindowsPath

from dictate.errors import InputError, ModelError

log = logging.getLogger("dictate.models")

TMP_PREFIX = ".tmp-"
"""The store's hidden working folders (installs, removals) start with this."""

# Letters, digits, spaces, '.', '_', '-' ...: anything that is one plain directory name on every
# system. No separators, no ':' (Windows drives and streams), no control characters, and no
# leading '.', which is reserved for the store's own hidden folders.
_NAME_RE = re.compile(r"[^./\\:\x00-\x1f][^/\\:\x00-\x1f]{0,127}")


def is_vosk_model_dir(path: str | Path) -> bool:
    """Whether ``path`` is a Vosk model folder.

    A model has its acoustic model in ``am/final.mdl`` and its configuration in ``conf/``
    (``model.conf``, ``mfcc.conf``); the decoding graph is in ``graph/`` (or a top-level
    ``HCLG.fst`` in some older models). Lenient on purpose: ``am/final.mdl`` plus any one of
    ``conf/``, ``graph/`` or ``HCLG.fst`` is enough. Nothing is loaded.
    """
    path = Path(path)
    if not (path / "am" / "final.mdl").is_file():
        return False
    return (path / "conf").is_dir() or (path / "graph").is_dir() or (path / "HCLG.fst").is_file()


def missing_parts(path: Path) -> str:
    """What :func:`is_vosk_model_dir` did not find in ``path``, for error messages."""
    if not (path / "am" / "final.mdl").is_file():
        return "no am/final.mdl"
    return "am/final.mdl but no conf/ or graph/ folder"


def find_model_dir(top: Path, name: str) -> Path | None:
    """The model folder in an unpacked archive: ``top`` itself or one of its subfolders.

    Upstream zips hold a single folder named like the model; some hold the files at the top.
    A subfolder called ``name`` is preferred; hidden and ``__MACOSX`` folders are skipped.
    """
    if is_vosk_model_dir(top):
        return top
    subdirs = sorted(
        (p for p in top.iterdir() if p.is_dir() and not p.name.startswith((".", "__MACOSX"))),
        key=lambda p: (p.name != name, p.name),
    )
    return next((p for p in subdirs if is_vosk_model_dir(p)), None)


def is_model_name(name: str) -> bool:
    """Whether ``name`` has the form of a model's folder name; see :func:`check_name`."""
    return _NAME_RE.fullmatch(name) is not None


def check_name(name: str) -> str:
    """``name`` if it is a safe folder name for the store.

    Raises:
        InputError: ``name`` is empty, too long, hidden, or has a path separator or ``:``.
    """
    if not is_model_name(name) or name.strip() != name:
        raise InputError(
            f"{name!r} cannot be a model name: use one plain folder name (letters, digits, '.', "
            "'_', '-'; not starting with '.', no '/', '\\' or ':', at most 128 characters)"
        )
    return name


def _unsafe_member(member: str) -> bool:
    """Whether a zip member name is absolute or climbs out of the target folder."""
    normalized = member.replace("\\", "/")
    if normalized.startswith("/") or PureWindowsPath(member).drive:
        return True
    return ".." in PurePosixPath(normalized).parts


def _copy_size(source: Path) -> int:
    """The bytes that copying the folder ``source`` writes, checked before anything is copied.

    :func:`shutil.copytree` follows links, so this does too, and refuses what copytree would
    get wrong: a link out of ``source`` (it would copy files that are no part of the model) and
    a link loop: ``a -> b``, ``b -> a`` never reaches a file, and a link to a folder it is in
    (``graph/up -> ..``, or two folders linking to each other) would be copied into itself
    until the path is too long.

    Raises:
        InputError: A link points out of ``source`` or is part of a loop.
        OSError: A file cannot be read (a broken link);
            :meth:`~dictate.store.store.ModelStore.import_path` says which.
    """
    top = Path(os.path.realpath(source))
    return _folder_copy_size(source, (top,), source)


def _folder_copy_size(folder: Path, chain: tuple[Path, ...], source: Path) -> int:
    """:func:`_copy_size` of ``folder``; ``chain`` holds the real folders from ``source``'s down
    to ``folder``'s, which a link to a folder must not lead back into."""
    total = 0
    with os.scandir(folder) as entries:
        listed = sorted(entries, key=lambda entry: entry.name)
    for entry in listed:
        path = Path(entry.path)
        if entry.is_symlink():
            real = _link_target(path, source)
            if not real.is_relative_to(chain[0]):
                raise InputError(
                    f"{path} is a link to {real}, outside {source}; refusing to copy files from "
                    "outside the model folder (copy the real files into it)"
                )
            is_dir = real.is_dir()
        else:
            real = chain[-1] / entry.name
            is_dir = entry.is_dir(follow_symlinks=False)
        if not is_dir:
            total += real.stat().st_size
        elif real in chain:
            raise InputError(
                f"{path} is a symbolic link loop: it leads back to {real}, a folder it is in, so "
                f"copying {source} would never end; delete the link (or replace it with the real "
                "files) and import again"
            )
        else:
            total += _folder_copy_size(path, (*chain, real), source)
    return total


def _link_target(link: Path, source: Path) -> Path:
    """Where ``link`` leads in the end, every link on the way followed.

    Raises:
        InputError: The links go round in a loop and never reach a file.
        OSError: The link is broken.
    """
    try:
        return Path(os.path.realpath(link, strict=True))
    except OSError as exc:
        if exc.errno != errno.ELOOP:  # broken: said of the link in the model, not its target
            raise OSError(
                exc.errno, f"{exc.strerror}: the link leads to {exc.filename}", str(link)
            ) from exc
        raise InputError(
            f"{link} is a symbolic link loop: following it never reaches a file; delete the link "
            f"(or point it at the real file) and import {source} again"
        ) from exc


def _tree_size(path: Path) -> int:
    total = 0
    for item in path.rglob("*"):
        try:
            if item.is_file():
                total += item.stat().st_size
        except OSError:
            continue
    return total


def remove_model_folder(path: Path, what: str) -> None:
    """Delete the installed model folder ``path`` (``what``: "Vosk model x", for the log).

    The folder is first renamed to a hidden one in the same store, so an interrupted removal
    never leaves a half-deleted model that looks installed.

    Raises:
        ModelError: It could not be renamed (in use, read-only).
    """
    trash = Path(tempfile.mkdtemp(prefix=f"{TMP_PREFIX}{path.name}-", dir=path.parent))
    try:
        os.rename(path, trash / path.name)
    except OSError as exc:
        shutil.rmtree(trash, ignore_errors=True)
        raise ModelError(f"could not remove {path}: {exc}; is it in use?") from exc
    shutil.rmtree(trash, ignore_errors=True)
    if trash.exists():
        log.warning("could not delete all of %s; the next install will retry", trash)
    log.info("removed %s from %s", what, path.parent)
