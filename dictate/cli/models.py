"""``dictate models``: list, download, import and remove Vosk speech models."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, TextIO

from dictate.errors import InputError


class _Progress:
    """A download progress line on stderr: redrawn in place on a terminal, else every 10%."""

    def __init__(self, name: str, stream: TextIO) -> None:
        self.name = name
        self.stream = stream
        self.tty = stream.isatty()
        self.last_decile = -1

    def __call__(self, done: int, total: int | None) -> None:
        from dictate.asr.models import format_size

        if total:
            percent = 100 * done // total
            line = f"{self.name}: {format_size(done)} of {format_size(total)} ({percent}%)"
            decile = percent // 10
        else:
            line = f"{self.name}: {format_size(done)}"
            decile = done // (10 << 20)
        if self.tty:
            self.stream.write("\r" + line.ljust(70))
        elif decile != self.last_decile:
            self.stream.write(line + "\n")
        self.last_decile = decile
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")


def cmd_models(args: argparse.Namespace, stdout: TextIO, stderr: TextIO | None = None) -> int:
    from dictate.asr.models import CATALOG, ModelStore, format_size

    store = ModelStore()
    action = args.models_action
    if action == "list":
        installed = {m.name: m for m in store.installed()}
        stdout.write(f"Vosk models (installed in {store.root}):\n")
        for entry in CATALOG:
            state = "installed" if entry.name in installed else "not installed"
            mark = " (recommended)" if entry.recommended else ""
            stdout.write(
                f"  {entry.name:32s} {format_size(entry.approx_bytes):>8s}  {state}{mark}\n"
                f"      {entry.description}\n"
            )
        for name, model in installed.items():
            if model.entry is None:
                stdout.write(f"  {name:32s} {format_size(model.size_bytes):>8s}  installed\n")
        stdout.write("Bundled fallback: PocketSphinx US English (always available, low accuracy)\n")
        return 0
    if action == "download":
        err = stderr or sys.stderr
        progress = _Progress(args.name, err)
        try:
            path = store.download(args.name, url=args.url, progress=progress)
        except KeyboardInterrupt:
            err.write(
                "dictate: download interrupted; what was received is kept, run the same "
                "command again to resume\n"
            )
            return 130
        finally:
            progress.close()
        stdout.write(f"installed {args.name} in {path}\n")
        return 0
    if action == "import":
        if args.name is not None and not args.name.strip():
            raise InputError("--name is empty; give the name to install the model under")
        path = store.import_path(Path(args.path), args.name)
        stdout.write(f"installed {path.name} in {path}\n")
        return 0
    store.remove(args.name)
    stdout.write(f"removed {args.name}\n")
    return 0


def register(commands: Any) -> None:
    models = commands.add_parser("models", help="install and remove Vosk speech models")
    kinds = models.add_subparsers(dest="models_action", metavar="ACTION", required=True)
    kinds.add_parser("list", help="the catalogue and the installed models")
    download = kinds.add_parser("download", help="download and install a catalogue model")
    download.add_argument("name", metavar="NAME")
    download.add_argument("--url", help="download from this URL instead (a mirror)")
    imp = kinds.add_parser("import", help="install a model from a local folder or zip")
    imp.add_argument("path", metavar="PATH")
    imp.add_argument("--name", help="install under this name (default: the folder or zip name)")
    remove = kinds.add_parser("remove", help="delete an installed model")
    remove.add_argument("name", metavar="NAME")
    models.set_defaults(func=lambda args, io: cmd_models(args, io.stdout, io.stderr))
