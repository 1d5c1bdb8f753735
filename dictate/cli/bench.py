"""``dictate bench punctuator|pipeline|gui|editor|replay|latency|file|second-pass``: the
benchmarks, printed or as JSON."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any, TextIO

from dictate.asr.registry import FIRST_PASS
from dictate.cli.bench_file import add_second_pass_arg
from dictate.cli.common import add_model_args, bounded, load_model
from dictate.errors import InputError


def cmd_bench_punctuator(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.bench.punctuator import bench_punctuator, format_punctuator

    if args.runs < 1 or args.repeats < 1 or (args.threads is not None and args.threads < 1):
        raise InputError("--runs, --repeats and --threads must be at least 1")
    words = tags = None
    if args.text:
        from dictate.evaluation.readers import read_reference

        reference = read_reference(args.text)
        words, tags = reference.words, reference.tags
    model = load_model(args, threads=args.threads)
    result = bench_punctuator(
        model, runs=args.runs, stream_words=words, stream_tags=tags, repeats=args.repeats
    )
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_punctuator(result) + "\n")
    return 0


def cmd_bench_pipeline(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.asr.registry import available_first_passes

    if args.runs < 1:
        raise InputError("--runs must be at least 1")
    engines = args.engine or list(available_first_passes(args.model))
    from dictate.bench.pipeline import bench_pipeline

    result = bench_pipeline(
        args.audio, engines, args.model, args.punctuator, args.runs, args.second_pass
    )
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        return 0
    stdout.write(f"{result['audio']}: {result['audio_seconds']} s of audio\n")
    for name, r in result["engines"].items():
        then = f" + {r['second_pass']}" if r["second_pass"] else ""
        stdout.write(
            f"{name}{then}: real-time factor {r['rtf_median']} (median of {len(r['rtf_runs'])}; "
            f"runs {r['rtf_runs']}), {r['words']} words\n"
            f"  shown (pending or final) after segment close: median "
            f"{r['latency_close_ms_median']} ms, p95 {r['latency_close_ms_p95']} ms, max "
            f"{r['latency_close_ms_max']} ms; "
            f"after end of speech: median {r['latency_speech_end_ms_median']} ms "
            f"({r['segments']} segments, real-time feed)\n"
            f"  CPU per second of audio: {r['cpu_per_audio_s_awake']} s dictating, "
            f"{r['cpu_per_audio_s_asleep']} s asleep (median; all threads)\n"
        )
        for label, row in r["latency_close_by_length"].items():
            stdout.write(
                f"    segments {label}: {row['n']}, after close median {row['p50_ms']} ms, "
                f"p95 {row['p95_ms']} ms\n"
            )
        if r["punctuation"] != "on":
            stdout.write(f"  punctuation {r['punctuation']}\n")
    return 0


def cmd_bench_gui(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.audio.capture import FileSource
    from dictate.bench.gui import bench_gui
    from dictate.paths import asset_path

    if args.runs < 1:
        raise InputError("--runs must be at least 1")
    audio = Path(args.audio) if args.audio else asset_path("sample_en.wav")
    FileSource(audio)  # a bad file fails here, with one line
    result = bench_gui(audio, args.engine, args.model, args.runs, args.second_pass, args.cpu)
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
        return 0
    if args.cpu:
        for number, r in enumerate(result["runs"], start=1):
            threads = ", ".join(f"{k} {v}" for k, v in r["threads_cpu_s"].items())
            stdout.write(f"run {number}: CPU {r['cpu_s']} s (child processes {r['children_cpu_s']}"
                         f" s); threads: {threads}\n")  # fmt: skip
        stdout.write(f"median CPU of a run: {result['cpu_s_median']} s; start-up and loading: "
                     f"{result['startup_cpu_s']} s\n")  # fmt: skip
    else:
        for number, r in enumerate(result["runs"], start=1):
            stdout.write(
                f"run {number}: longest stall {r['max_stall_ms']} ms, p99 {r['p99_ms']} ms, "
                f"{r['over_50ms']} gaps over 50 ms ({r['ticks']} ticks)\n"
            )
        stdout.write(f"median of the longest stalls: {result['max_stall_ms_median']} ms\n")
    for number, r in enumerate(result["runs"], start=1):
        stdout.write(f"run {number}: settled words {r['settled_p50_s']} s (median), "
                     f"{r['settled_p95_s']} s (p95) after the speech ended, "
                     f"{len(r['settled_s'])} segments\n")  # fmt: skip
    stdout.write(
        f"memory of the window's process: peak {result['loaded_peak_rss_mb']} MiB once "
        f"loaded, {result['peak_rss_mb']} MiB over dictation, {result['rss_mb']} MiB at the "
        "end\n"
    )
    return 0


def cmd_bench_replay(args: argparse.Namespace, stdout: TextIO) -> int:
    from dictate.bench.journal import bench_replay, format_replay

    result = bench_replay(args.chars, args.records, args.runs)
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_replay(result) + "\n")
    return 0


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


def cmd_bench_latency(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from dictate.audio.capture import FileSource
    from dictate.bench.latency import bench_latency
    from dictate.bench.latency_report import format_latency

    audio = Path(args.audio) if args.audio else None
    if audio is not None:
        FileSource(audio)  # a bad file fails here, with one line
    result = bench_latency(
        audio,
        args.engine,
        args.model,
        args.commit_after,
        sentences=args.sentences,
        gap_ms=args.gap_ms,
        block_ms=args.block_ms,
        runs=args.runs,
        typed=args.typed,
        progress=lambda line: stderr.write(f"dictate: {line}\n"),
        second_pass=args.second_pass,
    )
    if args.json:
        json.dump(result, stdout, indent=2)
        stdout.write("\n")
    else:
        stdout.write(format_latency(result) + "\n")
    return 0


def register(commands: Any) -> None:
    bench = commands.add_parser("bench", help="measure speed")
    bench_kinds = bench.add_subparsers(dest="bench_kind", metavar="KIND", required=True)
    bench_punct = bench_kinds.add_parser(
        "punctuator", help="model latency per window, streaming throughput, peak memory"
    )
    bench_punct.add_argument(
        "--runs",
        type=bounded(int, 1, 100_000),
        default=50,
        metavar="N",
        help="timed model calls per window size (default 50)",
    )
    bench_punct.add_argument(
        "--repeats",
        type=bounded(int, 1, 1000),
        default=3,
        metavar="N",
        help="streaming throughput runs; the median is reported (default 3)",
    )
    bench_punct.add_argument(
        "--text", metavar="FILE", help="stream this reference text instead of 5,000 synthetic words"
    )
    bench_punct.add_argument(
        "--threads",
        type=bounded(int, 1, 1024),
        metavar="N",
        help="CPU threads for ONNX Runtime (default: up to 4)",
    )
    bench_punct.add_argument("--json", action="store_true", help="print JSON")
    add_model_args(bench_punct)
    bench_punct.set_defaults(func=lambda args, io: cmd_bench_punctuator(args, io.stdout))
    pipeline = bench_kinds.add_parser(
        "pipeline",
        help="real-time factor and display latency of each engine",
        description="Runs AUDIO through segmenter, recogniser and punctuator. Real-time factor: "
        "processing time / audio duration with the file fed as fast as possible (median of "
        "--runs). Latency: with the file fed at real-time speed, the time from a segment's "
        "close (and from the end of its speech) to its words being shown as pending or final. "
        'CPU: process CPU seconds per second of audio, dictating and asleep (after "go to '
        'sleep" the recogniser still listens for "wake up"; nothing is punctuated).',
    )
    pipeline.add_argument(
        "audio", metavar="AUDIO", help="audio file (WAV, FLAC, ...) with several spoken phrases"
    )
    pipeline.add_argument(
        "--engine",
        action="append",
        choices=FIRST_PASS,
        help="repeat for several (default: each one whose model is installed)",
    )
    add_second_pass_arg(pipeline)
    pipeline.add_argument("--model", metavar="PATH", help="Vosk model (see transcribe)")
    pipeline.add_argument("--punctuator", metavar="DIR", help="punctuation model directory")
    pipeline.add_argument(
        "--runs", type=bounded(int, 1, 1000), default=3, metavar="N", help="timed runs (default 3)"
    )
    pipeline.add_argument("--json", action="store_true", help="print JSON")

    editor = bench_kinds.add_parser(
        "editor",
        help="per-keystroke and per-event cost of the editor on a long document",
        description="Key presses and pipeline updates into a long document with greyed words "
        "shown (offscreen), each journaled and fsynced as in the app.",
    )
    editor.add_argument(
        "--chars", type=bounded(int, 1, 50_000_000), default=200_000, help="document size (200000)"
    )
    editor.add_argument(
        "--keys", type=bounded(int, 1, 1_000_000), default=300, help="key presses per run (300)"
    )
    editor.add_argument(
        "--runs", type=bounded(int, 1, 1000), default=3, metavar="N", help="runs (default 3)"
    )
    editor.add_argument("--json", action="store_true", help="print JSON")
    replay = bench_kinds.add_parser(
        "replay",
        help="time and peak memory of recovering the text from a journal",
        description="Writes a journal of a --chars document and --records edits in the app's "
        "format, then replays it (as the next start after a crash does) in a fresh process per "
        "run: seconds and peak resident memory.",
    )
    replay.add_argument(
        "--chars",
        type=bounded(int, 0, 500_000_000),
        default=100_000_000,
        help="document size in characters (100000000)",
    )
    replay.add_argument(
        "--records",
        type=bounded(int, 0, 10_000_000),
        default=2000,
        help="edit records after the snapshot (2000)",
    )
    replay.add_argument(
        "--runs", type=bounded(int, 1, 100), default=3, metavar="N", help="runs (default 3)"
    )
    replay.add_argument("--json", action="store_true", help="print JSON")
    gui = bench_kinds.add_parser(
        "gui",
        help="longest stall of the window's event loop during dictation",
        description="Dictates AUDIO (default: the bundled sample) at real-time speed into the "
        "window (offscreen unless QT_QPA_PLATFORM says otherwise) while a 5 ms timer measures "
        "the gaps between its ticks; prints the longest gap, the 99th percentile and how many "
        "gaps exceeded 50 ms, per run, and how long after each segment's speech ended its settled "
        "words reached the window.",
    )
    gui.add_argument("audio", nargs="?", metavar="AUDIO", help="audio file (WAV, FLAC, ...)")
    gui.add_argument("--engine", choices=FIRST_PASS)
    add_second_pass_arg(gui)
    gui.add_argument("--model", metavar="PATH", help="Vosk model")
    gui.add_argument(
        "--runs", type=bounded(int, 1, 1000), default=3, metavar="N", help="runs (default 3)"
    )
    gui.add_argument("--json", action="store_true", help="print JSON")
    gui.add_argument(
        "--cpu",
        action="store_true",
        help="measure CPU instead of stalls: each run's CPU seconds by thread and in the child "
        "processes, and the start-up's (no 5 ms timer: its ticks cost CPU)",
    )
    from dictate.bench.recording import SENTENCES
    from dictate.config import COMMIT_AFTER_MS, COMMIT_AFTER_RANGE

    latency = bench_kinds.add_parser(
        "latency",
        help="end of speech -> partial, punctuated, final text shown and typed (commit on pause)",
        description="Plays a recording at real-time speed through the window's own dictation "
        "path (Silero VAD, the recogniser, the punctuation model, commit on pause; offscreen) "
        "and prints, per sentence, the milliseconds from its end of speech to its last partial "
        "words, its punctuated pending words and its final text shown in the window, and its "
        "text typed into another application (a second run, on an X display only); also the "
        "time from each partial result to the window showing it. Medians, 95th percentiles "
        "and the targets. By default the recording is made with espeak-ng: --sentences "
        "sentences, each followed by a silence longer than the commit time.",
    )
    latency.add_argument("--audio", metavar="FILE", help="recording to play (WAV, FLAC, ...)")
    latency.add_argument(
        "--engine",
        choices=FIRST_PASS,
        help="recogniser (default: Vosk if a model is installed, else the bundled PocketSphinx)",
    )
    latency.add_argument("--model", metavar="PATH", help="Vosk model (see transcribe)")
    add_second_pass_arg(latency)
    latency.add_argument(
        "--commit-after",
        type=bounded(int, *COMMIT_AFTER_RANGE),
        default=COMMIT_AFTER_MS,
        metavar="MS",
        help=f"silence after which pending words are committed (default {COMMIT_AFTER_MS})",
    )
    latency.add_argument(
        "--sentences",
        type=bounded(int, 1, len(SENTENCES)),
        default=6,
        metavar="N",
        help="sentences in the generated recording (default 6)",
    )
    latency.add_argument(
        "--gap-ms",
        type=bounded(int, 500, 60_000),
        metavar="MS",
        help="silence after each generated sentence (default: 3000, or the commit time + 2000 "
        "if that is longer)",
    )
    latency.add_argument(
        "--block-ms",
        type=bounded(int, 10, 500),
        default=30,
        metavar="MS",
        help="audio block length, as the microphone's (default 30)",
    )
    latency.add_argument(
        "--runs", type=bounded(int, 1, 100), default=1, metavar="N", help="runs (default 1)"
    )
    latency.add_argument(
        "--no-typed",
        dest="typed",
        action="store_false",
        help="skip the run that types into another application (done only on an X display)",
    )
    latency.add_argument("--json", action="store_true", help="print JSON")
    latency.set_defaults(func=lambda args, io: cmd_bench_latency(args, io.stdout, io.err))
    for name, command in (
        ("pipeline", cmd_bench_pipeline),
        ("gui", cmd_bench_gui),
        ("editor", cmd_bench_editor),
        ("replay", cmd_bench_replay),
    ):
        bench_kinds.choices[name].set_defaults(
            func=lambda args, io, command=command: command(args, io.stdout)
        )
    from dictate.cli.bench_file import register_file

    register_file(bench_kinds)
    from dictate.cli.bench_second_pass import register_second_pass

    register_second_pass(bench_kinds)
