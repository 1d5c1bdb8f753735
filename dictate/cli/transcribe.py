"""``dictate transcribe``: an audio file or the microphone to punctuated text."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
import time
from typing import Any, TextIO

from dictate.cli.common import (
    Streams,
    add_decoder_args,
    add_speech_args,
    add_writing_args,
    bounded,
    decoder_options,
    engine_for,
    second_pass_choice,
    segmenter_options,
)
from dictate.cli.transcript_output import add_format_args
from dictate.cpus import usable_cpus
from dictate.errors import DictateError, InputError
from dictate.text_safety import json_text, shown


def cmd_transcribe(
    args: argparse.Namespace, options: Any, stdout: TextIO, stderr: TextIO | None = None
) -> int:
    from dictate.audio.capture import FileSource, MicrophoneSource
    from dictate.cli.transcript_output import output_path
    from dictate.config import load_settings

    err = stderr or sys.stderr
    if args.mic == bool(args.audio):
        raise InputError("give either an AUDIO file or --mic")
    if args.duration is not None and (not args.mic or args.duration <= 0):
        raise InputError("--duration needs --mic and a positive number of seconds")
    if args.workers > 1 and (args.mic or args.realtime):
        raise InputError("--workers is for an audio file, without --realtime")
    args.workers = usable_workers(args.workers, err)
    out_path = output_path(args)  # before the decoding: a file that cannot be written fails now
    source: Any
    if args.mic:
        source = MicrophoneSource(args.device or load_settings().input_device)
        # Listening now: what is said while the models load is kept and recognised after.
        source.start()
        err.write(f"dictate: listening on {shown(str(source.name))} (loading the recogniser…)\n")
        err.flush()
        try:
            return _transcribe(args, options, stdout, err, source, out_path)
        finally:
            source.close()  # a load that failed: the microphone is let go (a no-op after a run)
    else:
        source = FileSource(args.audio, realtime=args.realtime)
        info = source.info
        if info.missing_frames:
            err.write(
                f"dictate: warning: {info.path} is cut off: its header promises "
                f"{info.duration + info.missing_s:.1f} s of audio, the file holds "
                f"{info.duration:.1f} s; transcribing what is there\n"
            )
    return _transcribe(args, options, stdout, err, source, out_path)


def _transcribe(
    args: argparse.Namespace,
    options: Any,
    stdout: TextIO,
    err: TextIO,
    source: Any,
    out_path: Any,
) -> int:
    from dictate.cli.transcript_output import make_output
    from dictate.config import load_settings
    from dictate.editing.apply import apply_event
    from dictate.events import Error, Event, Finalized, Level, Segment
    from dictate.punctuation.model import load_punctuation_model
    from dictate.run.assembly import TextOptions, build_file_run, build_pipeline
    from dictate.writing.vocabulary import load_vocabulary
    from dictate.writing.vocabulary_harvest import load_misheard

    seg_options = segmenter_options(args)
    # With decode workers, one per core, the second pass decodes there; here it only checks
    # the commands and decodes again what sampled: on one thread, which with the workers took
    # 1 s off a 3-minute file's 28 s (its threads waited on each other for the busy cores).
    threads = 1 if args.workers > 1 else 0
    use = "live" if args.mic or args.realtime else "files"  # what "auto" chooses for
    engine, second_pass = engine_for(
        args, args.engine, err, second=True, second_threads=threads, use=use
    )
    # Dictation with the tier "auto" chose is watched as the window watches it: where its
    # words came too late, the live tier steps down (dictate.asr.tiers.observe_run).
    watched = _auto_live_tier(args, engine) if args.mic and second_pass is not None else ""
    settled: list[float] = []
    if args.mic or args.realtime:  # live, as the window runs it: the lock free for the others
        from dictate.asr.process_engine import out_of_process

        engine = out_of_process(engine)
    model = load_punctuation_model(args.punctuator, getattr(args, "provider", "auto"))
    typist = None
    if args.type:
        from dictate.output.chooser import choose_backend
        from dictate.output.typist import Call, TypingTarget, Typist

        settings = load_settings()
        typist = Typist(
            choose_backend(settings.typing_backend, clipboard_fallback=settings.clipboard_fallback)
        )

    lock = threading.Lock()
    heard = False  # any recognised words, even ones a voice command took back
    broken = threading.Event()
    errors: list[Error] = []

    def on_event(event: Event) -> None:
        try:
            write(event)
        except BrokenPipeError:  # the reader went away (`| head`): stop listening
            broken.set()
            pipeline.stop()

    def write(event: Event) -> None:
        nonlocal heard
        with lock:
            if broken.is_set():
                return
            if isinstance(event, Finalized) and event.text:
                heard = True
            if isinstance(event, Error):
                errors.append(event)
            if watched and isinstance(event, Segment) and event.words:
                said = pipeline.wall_time(event.end)
                if said is not None:
                    settled.append(time.monotonic() - said)
            if typing_target is not None:
                apply_event(typing_target, event)
            if args.json:
                if not isinstance(event, Level):
                    stdout.write(json_text(event.to_json()) + "\n")
                    stdout.flush()
            elif output is not None:
                output.apply(event)

    typing_errors: list[str] = []

    def type_now(kind: str, arg: Any) -> None:
        """--type: each finalized sentence as it becomes final, and the commands' keys."""
        assert typist is not None
        try:
            if typist.run(kind, arg) == "moved" and kind == Call.SCRATCH:
                err.write("dictate: note: the focus moved to another window; nothing deleted\n")
        except DictateError as exc:
            typing_errors.append(str(exc))
            err.write(f"dictate: warning: typing failed: {shown(str(exc))}\n")

    typing_target = TypingTarget(type_now) if typist is not None else None

    if args.commit_after is None:
        commit_ms = load_settings().commit_after_ms
    else:
        commit_ms = None if args.commit_after == "never" else args.commit_after
    text = TextOptions(
        mode=getattr(args, "mode", "streaming"),
        decoder=options,
        commands=args.commands,
        written_forms=args.written,
        replacements=load_settings().replacements,
        vocabulary=(vocabulary := load_vocabulary()),
        misheard=load_misheard(vocabulary),
    )
    commit_after = None if commit_ms is None else commit_ms / 1000
    pipeline: Any
    if args.mic:
        built = build_pipeline(engine, model, on_event, text, seg_options, second_pass,
                               commit_after=commit_after, live=args.json)  # fmt: skip
        pipeline, punctuation_off = built.pipeline, built.punctuation_off
    else:  # one recogniser, or several processes at once (dictate.run.file_decode)
        live = {"live": args.json} if args.workers <= 1 else {}
        pipeline, punctuation_off = build_file_run(
            args.audio, engine, model, on_event, text, seg_options, second_pass,
            args.workers, commit_after=commit_after, **live,
        )  # fmt: skip
    if punctuation_off:
        err.write(f"dictate: note: punctuation is off: {punctuation_off}\n")
    # Voice commands can take back dictated text: then the text is printed whole at the end.
    whole = text.commands and not punctuation_off
    output = None if args.json else make_output(args, out_path, stdout, whole)
    pipeline.start(source)
    duration = args.duration
    if args.mic:
        err.write("dictate: ready; press Ctrl+C to stop\n")
        if duration is not None and source.started_at is not None:  # from when it listened
            duration = max(0.0, duration - (time.monotonic() - source.started_at))
    # SIGTERM (`timeout`, a service manager, kill) ends a run as Ctrl+C does: it used to kill
    # the process before anything recognised was printed.
    terminate = (
        signal.signal(signal.SIGTERM, _interrupt)
        if threading.current_thread() is threading.main_thread()
        else None
    )
    try:
        pipeline.wait(duration)
    except KeyboardInterrupt:
        pass
    finally:
        # Stop listening and wait: what was already heard is still recognised and printed.
        pipeline.stop()
        said = 0.0
        while not pipeline.wait(0.2):
            behind = pipeline.behind() if args.mic else 0.0
            if behind >= 2 and time.monotonic() - said >= 5:  # the speech said, not yet heard
                err.write(f"dictate: finishing: {behind:.0f} s of speech left to recognise\n")
                err.flush()
                said = time.monotonic()
        pipeline.close()  # what the refiners and the recogniser hold
        if terminate is not None:
            signal.signal(signal.SIGTERM, terminate)
        if typist is not None:
            from dictate.output.backends import close_backend

            close_backend(typist.backend)
    if broken.is_set():
        raise BrokenPipeError
    if output is not None:
        output.close()
    if watched:
        from dictate.asr.tiers import observe_run

        stepped = observe_run(watched, settled)
        if stepped:
            err.write(f"dictate: note: {stepped}\n")
    fatal = [e for e in errors if e.fatal]
    for event in errors:
        err.write(f"dictate: {'error' if event.fatal else 'warning'}: {shown(event.message)}\n")
    if not heard and not fatal:
        where = (
            f"from {source.name}: is it the microphone you speak into, and is it muted? "
            "(`dictate devices` lists the microphones)"
            if args.mic
            else f"in {args.audio}: it holds no speech the recogniser could make out"
        )
        err.write(f"dictate: note: no words were recognised {shown(where)}\n")
    return 2 if fatal or typing_errors else 0


def _auto_live_tier(args: argparse.Namespace, engine: Any) -> str:
    """The Whisper tier "auto" chose for dictation after ``engine``'s words; "" where the
    second pass was named (the user's choice is never stepped down) or is not Whisper's."""
    from dictate.asr.loader import AUTO, second_pass_model

    if second_pass_choice(args) != AUTO:
        return ""
    return second_pass_model(AUTO, engine, "live") or ""


def commit_after_ms(text: str) -> int | str:
    """``--commit-after``: milliseconds in the settings' range, or "never"."""
    from dictate.config import COMMIT_AFTER_RANGE

    if text.strip().lower() == "never":
        return "never"
    low, high = COMMIT_AFTER_RANGE
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of milliseconds or 'never'"
        ) from None
    if not low <= value <= high:
        raise argparse.ArgumentTypeError(f"{value} ms is not between {low} and {high} (or 'never')")
    return value


def workers_count(text: str) -> int:
    """``--workers``: 1 to 64, or "auto" (the CPU cores)."""

    if text.strip().lower() == "auto":
        return max(1, min(64, usable_cpus()))
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of workers or 'auto'") from None
    if not 1 <= value <= 64:
        raise argparse.ArgumentTypeError(f"{value} workers: give 1 to 64 (or 'auto')")
    return value


def usable_workers(requested: int, err: TextIO, cores: int | None = None) -> int:
    """``requested`` workers, at most one per core (``cores``: the machine's): each is a
    recogniser of its own, busy on a core and about 150 MB, so more than the cores only cost
    memory (64 on 2 cores started 65 processes, 9.5 GB). Says so in one line when it cuts."""

    cores = cores or usable_cpus()
    if requested <= cores:
        return requested
    err.write(
        f"dictate: note: --workers {requested} is more than the {cores} cores this process "
        f"may run on; using {cores}\n"
    )
    return cores


def _interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def register(commands: Any) -> None:
    transcribe = commands.add_parser(
        "transcribe",
        help="recognise and punctuate an audio file or the microphone",
        description="Print the punctuated text of AUDIO (WAV, FLAC, OGG or MP3; any rate, channels "
        "and sample width) or, with --mic, of the microphone until --duration or Ctrl+C. --json "
        "prints the pipeline's events (JSON Lines, with times) instead. Numbers, dates and money "
        'are written as such and voice commands ("new paragraph", "scratch that", '
        '"comma", ...) are carried out; since a command can take back dictated text, the '
        "text is printed when the run ends (with --no-commands, each sentence as it is final).",
    )
    transcribe.add_argument("audio", nargs="?", metavar="AUDIO", help="WAV, FLAC, OGG or MP3 file")
    transcribe.add_argument("--mic", action="store_true", help="listen to the microphone")
    transcribe.add_argument(
        "--device", metavar="NAME", help="microphone index or name (default: the remembered one)"
    )
    transcribe.add_argument(
        "--duration",
        type=bounded(float, 0.1, 86_400.0),
        metavar="S",
        help="with --mic: stop after S seconds",
    )
    transcribe.add_argument(
        "--realtime", action="store_true", help="feed the file at real-time speed"
    )
    transcribe.add_argument(
        "--commit-after",
        type=commit_after_ms,
        metavar="MS",
        help="commit the words not yet final after MS ms of silence, 300 to 10000, or 'never' "
        "(default: the setting, 1500 unless changed)",
    )
    transcribe.add_argument("--json", action="store_true", help="print events as JSON Lines")
    transcribe.add_argument(
        "--workers",
        type=workers_count,
        default=1,
        metavar="N",
        help="decode an audio file in N recogniser processes at once, or 'auto' (one per CPU "
        "core); with PocketSphinx the words are those of one process (default 1: the live "
        "pipeline, one process; see docs/parallel-decode.md)",
    )
    transcribe.add_argument(
        "--type",
        action="store_true",
        help="also type each sentence, as it becomes final, into the window with the keyboard "
        "focus (and carry out new line, new paragraph and scratch that there)",
    )
    add_speech_args(transcribe)
    add_decoder_args(transcribe)
    add_writing_args(transcribe, default_on=True)
    add_format_args(transcribe)
    transcribe.set_defaults(func=run)


def run(args: argparse.Namespace, io: Streams) -> int:
    return cmd_transcribe(args, decoder_options(args), io.stdout, io.stderr)
