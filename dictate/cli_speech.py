"""The speech subcommands: ``transcribe``, ``devices``, ``models`` and ``bench pipeline``.

Kept apart from :mod:`dictate.cli` (text punctuation, evaluation) so neither grows unwieldy;
:func:`dictate.cli.build_parser` adds these parsers and :func:`dictate.cli.run` dispatches here.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from dictate.errors import AudioDeviceError, InputError

log = logging.getLogger("dictate")


# -- parsers ---------------------------------------------------------------------------------


def _add_speech_args(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--engine",
        choices=("vosk", "sphinx"),
        help="recogniser (default: Vosk if a model is installed, else the bundled PocketSphinx)",
    )
    parser.add_argument(
        "--model",
        metavar="PATH",
        help="Vosk model directory or installed model name (default: $DICTATE_VOSK_MODEL, "
        "then the best installed model)",
    )
    parser.add_argument(
        "--punctuator", metavar="DIR", help="punctuation model directory (default: the shipped one)"
    )
    parser.add_argument(
        "--provider",
        choices=("auto", "cpu", "cuda"),
        default="auto",
        help="ONNX Runtime execution provider for punctuation (default: auto)",
    )
    parser.add_argument("--mode", choices=("streaming", "baseline"), default="streaming")
    parser.add_argument(
        "--silence-ms",
        type=int,  # its range is the segmenter's to check
        default=500,
        metavar="MS",
        help="silence that ends a segment (default 500)",
    )
    parser.add_argument(
        "--max-segment",
        type=_bounded(float, 1.0, 600.0),
        default=40.0,
        metavar="S",
        help="longest segment in seconds (default 40)",
    )


def _bounded(kind: type, low: float, high: float) -> Callable[[str], Any]:
    """An argparse type: a finite number of ``kind`` from ``low`` to ``high`` (nan and inf are
    refused, like any other number out of range)."""

    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if not math.isfinite(value) or not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g}")
        return value

    return parse


def add_parsers(commands: Any, add_decoder_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``transcribe``, ``devices`` and ``models`` to the subcommand set."""
    transcribe = commands.add_parser(
        "transcribe",
        help="recognise and punctuate a WAV file or the microphone",
        description="Print the punctuated text of AUDIO (a WAV file of any rate, channels and "
        "sample width) or, with --mic, of the microphone until --duration or Ctrl+C. --json "
        "prints the pipeline's events (JSON Lines, with times) instead.",
    )
    transcribe.add_argument("audio", nargs="?", metavar="AUDIO", help="WAV file")
    transcribe.add_argument("--mic", action="store_true", help="listen to the microphone")
    transcribe.add_argument(
        "--device", metavar="NAME", help="microphone index or name (default: the remembered one)"
    )
    transcribe.add_argument(
        "--duration",
        type=_bounded(float, 0.1, 86_400.0),
        metavar="S",
        help="with --mic: stop after S seconds",
    )
    transcribe.add_argument(
        "--realtime", action="store_true", help="feed the file at real-time speed"
    )
    transcribe.add_argument("--json", action="store_true", help="print events as JSON Lines")
    _add_speech_args(transcribe)
    add_decoder_args(transcribe)

    devices = commands.add_parser(
        "devices",
        help="list microphones; remember one",
        description="List the input devices (* marks the system default). --use remembers one "
        "by name for dictation; --use default goes back to the system default.",
    )
    devices.add_argument("--use", metavar="NAME", help="index or (part of a) name to remember")

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


def add_bench_parser(bench_kinds: Any) -> None:
    """Add ``bench pipeline``."""
    bench = bench_kinds.add_parser(
        "pipeline",
        help="real-time factor and display latency of each engine",
        description="Runs AUDIO through segmenter, recogniser and punctuator. Real-time factor: "
        "processing time / audio duration with the file fed as fast as possible (median of "
        "--runs). Latency: with the file fed at real-time speed, the time from a segment's "
        "close (and from the end of its speech) to its words being shown as pending or final.",
    )
    bench.add_argument("audio", metavar="AUDIO", help="WAV file with several spoken phrases")
    bench.add_argument(
        "--engine", action="append", choices=("vosk", "sphinx"), help="repeat for several"
    )
    bench.add_argument("--model", metavar="PATH", help="Vosk model (see transcribe)")
    bench.add_argument("--punctuator", metavar="DIR", help="punctuation model directory")
    bench.add_argument("--runs", type=int, default=3, metavar="N", help="timed runs (default 3)")
    bench.add_argument("--json", action="store_true", help="print JSON")

    editor = bench_kinds.add_parser(
        "editor",
        help="per-keystroke and per-event cost of the editor on a long document",
        description="Key presses and pipeline updates into a long document with greyed words "
        "shown (offscreen), each journaled and fsynced as in the app.",
    )
    editor.add_argument("--chars", type=int, default=200_000, help="document size (200000)")
    editor.add_argument("--keys", type=int, default=300, help="key presses per run (300)")
    editor.add_argument("--runs", type=int, default=3, metavar="N", help="runs (default 3)")
    editor.add_argument("--json", action="store_true", help="print JSON")
    gui = bench_kinds.add_parser(
        "gui",
        help="longest stall of the window's event loop during dictation",
        description="Dictates AUDIO (default: the bundled sample) at real-time speed into the "
        "window (offscreen unless QT_QPA_PLATFORM says otherwise) while a 5 ms timer measures "
        "the gaps between its ticks; prints the longest gap, the 99th percentile and how many "
        "gaps exceeded 50 ms, per run.",
    )
    gui.add_argument("audio", nargs="?", metavar="AUDIO", help="WAV file")
    gui.add_argument("--engine", choices=("vosk", "sphinx"))
    gui.add_argument("--model", metavar="PATH", help="Vosk model")
    gui.add_argument("--runs", type=int, default=3, metavar="N", help="runs (default 3)")
    gui.add_argument("--json", action="store_true", help="print JSON")


def cmd_bench_editor(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.bench.gui import bench_editor

    for name in ("runs", "keys", "chars"):
        if getattr(args, name) < 1:
            raise InputError(f"--{name} must be at least 1")
    result = bench_editor(args.chars, args.keys, args.runs)
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        return 0
    stdout.write(
        f"document of {result['document_chars']:,} characters, greyed words shown:\n"
        f"key press: median {result['key_ms_median']} ms, p95 {result['key_ms_p95']} ms\n"
        f"pending update or finalized sentence: median {result['event_ms_median']} ms, "
        f"p95 {result['event_ms_p95']} ms\n"
    )
    return 0


def cmd_bench_gui(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.audio.capture import FileSource
    from dictate.bench.gui import bench_gui
    from dictate.paths import asset_path

    if args.runs < 1:
        raise InputError("--runs must be at least 1")
    audio = Path(args.audio) if args.audio else asset_path("sample_en.wav")
    FileSource(audio)  # a bad file fails here, with one line
    result = bench_gui(audio, args.engine, args.model, args.runs)
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        return 0
    for number, r in enumerate(result["runs"], start=1):
        stdout.write(
            f"run {number}: longest stall {r['max_stall_ms']} ms, p99 {r['p99_ms']} ms, "
            f"{r['over_50ms']} gaps over 50 ms ({r['ticks']} ticks)\n"
        )
    stdout.write(f"median of the longest stalls: {result['max_stall_ms_median']} ms\n")
    return 0


# -- shared ----------------------------------------------------------------------------------


def _punctuator(args: argparse.Namespace, options: Any) -> Any:
    from dictate.punctuation.decoder import make_punctuator
    from dictate.punctuation.model import load_punctuation_model

    model = load_punctuation_model(args.punctuator, getattr(args, "provider", "auto"))
    return make_punctuator(model, getattr(args, "mode", "streaming"), options)


def _segmenter_options(args: argparse.Namespace) -> Any:
    from dictate.asr.segmenter import SegmenterOptions

    try:
        return SegmenterOptions(silence_ms=args.silence_ms, max_segment_s=args.max_segment)
    except ValueError as exc:
        raise InputError(f"bad segmenter option: {exc}") from None


def _engine(args: argparse.Namespace, name: str | None, err: TextIO) -> Any:
    from dictate.asr.engine import load_engine

    engine = load_engine(name, args.model)
    if engine.name == "sphinx" and name is None:
        from dictate.asr.models import RECOMMENDED

        err.write(
            f"dictate: note: no Vosk model installed; using {engine.label}. "
            f"For accurate results: dictate models download {RECOMMENDED}\n"
        )
    log.info("engine: %s", engine.label)
    return engine


# -- transcribe ------------------------------------------------------------------------------


def cmd_transcribe(
    args: argparse.Namespace, options: Any, stdout: TextIO, stderr: TextIO | None = None
) -> int:
    from dictate.audio.capture import FileSource, MicrophoneSource
    from dictate.events import Error, Event, Finalized, Level
    from dictate.pipeline import Pipeline

    err = stderr or sys.stderr
    if args.mic == bool(args.audio):
        raise InputError("give either an AUDIO file or --mic")
    if args.duration is not None and (not args.mic or args.duration <= 0):
        raise InputError("--duration needs --mic and a positive number of seconds")
    source: Any
    if args.mic:
        from dictate.config import load_settings

        source = MicrophoneSource(args.device or load_settings().input_device)
    else:
        source = FileSource(args.audio, realtime=args.realtime)
    seg_options = _segmenter_options(args)
    engine = _engine(args, args.engine, err)
    punctuator = _punctuator(args, options)
    from dictate.asr.language import punctuation_mismatch, speech_model_language

    config = getattr(punctuator.tagger, "config", None)
    off = punctuation_mismatch(
        speech_model_language(engine.name, engine.model_path), getattr(config, "language", "en")
    )
    if off:
        err.write(f"dictate: note: punctuation is off: {off}\n")
        punctuator = None

    lock = threading.Lock()
    written = False
    broken = threading.Event()
    errors: list[Error] = []

    def on_event(event: Event) -> None:
        try:
            write(event)
        except BrokenPipeError:  # the reader went away (`| head`): stop listening
            broken.set()
            pipeline.stop()

    def write(event: Event) -> None:
        nonlocal written
        with lock:
            if broken.is_set():
                return
            if isinstance(event, Error):
                errors.append(event)
            if args.json:
                if not isinstance(event, Level):
                    stdout.write(json.dumps(event.to_json(), ensure_ascii=False) + "\n")
                    stdout.flush()
            elif isinstance(event, Finalized) and event.text:
                stdout.write((" " if written else "") + event.text)
                stdout.flush()
                written = True

    pipeline = Pipeline(engine, punctuator, on_event, seg_options)
    pipeline.start(source)
    if args.mic:
        err.write(f"dictate: listening on {source.name}; press Ctrl+C to stop\n")
    try:
        pipeline.wait(args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        # Stop listening and wait: what was already heard is still recognised and printed.
        pipeline.stop()
        while not pipeline.wait(0.2):
            pass
    if broken.is_set():
        raise BrokenPipeError
    if written:
        stdout.write("\n")
        stdout.flush()
    fatal = [e for e in errors if e.fatal]
    for event in errors:
        err.write(f"dictate: {'error' if event.fatal else 'warning'}: {event.message}\n")
    return 2 if fatal else 0


# -- devices ---------------------------------------------------------------------------------


def cmd_devices(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.audio.devices import find_input_device, list_input_devices
    from dictate.config import load_settings, save_settings

    settings = load_settings()
    if args.use is not None:
        if args.use.strip().lower() == "default":
            settings.input_device = None
            stdout.write("dictation will use the system default input\n")
        else:
            device = find_input_device(args.use)
            settings.input_device = device.name
            stdout.write(f"dictation will use {device.name}\n")
        save_settings(settings)
        return 0
    found = list_input_devices()
    if not found:
        raise AudioDeviceError(
            "no input devices found: connect a microphone, and check that the sound server "
            "(PulseAudio or PipeWire) is running"
        )
    for device in found:
        chosen = "  (remembered)" if device.name == settings.input_device else ""
        stdout.write(device.describe() + chosen + "\n")
    return 0


# -- models ----------------------------------------------------------------------------------


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


# -- bench pipeline --------------------------------------------------------------------------


def cmd_bench_pipeline(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.asr.models import resolve_vosk_model

    if args.runs < 1:
        raise InputError("--runs must be at least 1")
    engines = args.engine or (
        ["vosk", "sphinx"] if resolve_vosk_model(args.model) is not None else ["sphinx"]
    )
    from dictate.bench.pipeline import bench_pipeline

    result = bench_pipeline(args.audio, engines, args.model, args.punctuator, args.runs)
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        return 0
    stdout.write(f"{result['audio']}: {result['audio_seconds']} s of audio\n")
    for name, r in result["engines"].items():
        stdout.write(
            f"{name}: real-time factor {r['rtf_median']} (median of {len(r['rtf_runs'])}; "
            f"runs {r['rtf_runs']}), {r['words']} words\n"
            f"  shown (pending or final) after segment close: median "
            f"{r['latency_close_ms_median']} ms, max {r['latency_close_ms_max']} ms; "
            f"after end of speech: median {r['latency_speech_end_ms_median']} ms "
            f"({r['segments']} segments, real-time feed)\n"
        )
    return 0
