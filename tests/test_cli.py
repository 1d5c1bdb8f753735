"""The command line, end to end, on a tiny real ONNX model."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dictate.cli import main, run

# A reference in the tiny model's vocabulary: it tags stop/huh/well, and nothing else.
TSV = "the\tO\nstop\tPERIOD\nwell\tCOMMA\nyou\tO\nhuh\tQUESTION\nand\tO\nthe\tPERIOD\n"
CASED = "The people, well, look at London stop. Why huh? So I think we go stop.\n"


def dictate(
    *args: str,
    stdin: bytes = b"",
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run the real entry point in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "dictate", *args],
        input=stdin,
        capture_output=True,
        timeout=120,
        env=env,
    )


def run_text(args: list[str], stdin: bytes = b"") -> str:
    out = io.StringIO()
    assert run(args, stdin=io.BytesIO(stdin), stdout=out) == 0
    return out.getvalue()


def test_punctuate_streaming_joins_segments_across_pauses(tiny_model_dir: Path) -> None:
    text = run_text(
        ["punctuate", "--model", str(tiny_model_dir)],
        b"the people look at\n\nlondon stop so i\nthink nasa huh and we go\n",
    )
    assert text == "The people look at London stop. So I think NASA huh? And we go.\n"


def test_punctuate_baseline_closes_every_line(tiny_model_dir: Path) -> None:
    text = run_text(
        ["punctuate", "--mode", "baseline", "--model", str(tiny_model_dir)],
        b"the people look at\nlondon stop so i\n",
    )
    assert text == "The people look at. London stop. So I.\n"


def test_punctuate_strips_input_punctuation_and_case(tiny_model_dir: Path) -> None:
    text = run_text(["punctuate", "--model", str(tiny_model_dir)], b'"The, PEOPLE?!" (look)\n')
    assert text == "The people look.\n"


def test_punctuate_with_no_input_prints_nothing(tiny_model_dir: Path) -> None:
    assert run_text(["punctuate", "--model", str(tiny_model_dir)], b"\n  \n") == ""


def test_model_from_environment(tiny_model_dir: Path) -> None:
    env = {**os.environ, "DICTATE_PUNCTUATOR_MODEL": str(tiny_model_dir)}
    result = dictate("punctuate", stdin=b"the stop\n", env=env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == b"The stop.\n"


def assert_one_line_error(result: subprocess.CompletedProcess[bytes], *needles: str) -> None:
    assert result.returncode == 2
    err = result.stderr.decode()
    assert err.count("\n") == 1 and err.startswith("dictate: error: "), err
    assert "Traceback" not in err
    for needle in needles:
        assert needle in err, err


def test_missing_model_directory(tmp_path: Path) -> None:
    assert_one_line_error(dictate("punctuate", "--model", str(tmp_path / "no")), "does not exist")


def test_no_model_anywhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The checkout ships a model, so pretend the bundled one is absent (in-process).
    import dictate.store.resolve

    monkeypatch.delenv("DICTATE_PUNCTUATOR_MODEL", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    monkeypatch.setattr(
        dictate.store.resolve, "bundled_punctuator_dirs", lambda: [tmp_path / "none"]
    )
    assert main(["punctuate"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no punctuation model found" in err and "--model" in err


def test_corrupt_model(tiny_model_dir: Path, tmp_path: Path) -> None:
    import shutil

    broken = Path(shutil.copytree(tiny_model_dir, tmp_path / "m"))
    (broken / "model.onnx").write_bytes(b"\0garbage" * 100)
    assert_one_line_error(
        dictate("punctuate", "--model", str(broken), stdin=b"a\n"), "model.onnx", "corrupt"
    )


def test_binary_stdin(tiny_model_dir: Path) -> None:
    assert_one_line_error(
        dictate("punctuate", "--model", str(tiny_model_dir), stdin=b"ok\n\x89PNG\0\0\x1a\n"),
        "line 2",
        "binary",
    )


def test_non_utf8_stdin(tiny_model_dir: Path) -> None:
    assert_one_line_error(
        dictate("punctuate", "--model", str(tiny_model_dir), stdin=b"caf\xe9\n"), "line 1", "UTF-8"
    )


def test_a_50000_word_line_is_refused_and_earlier_text_kept(tiny_model_dir: Path) -> None:
    stdin = b"the people stop\n" + b"word " * 50_000 + b"\n"
    result = dictate("punctuate", "--model", str(tiny_model_dir), stdin=stdin)
    assert_one_line_error(result, "line 2", "50,000 words")
    assert result.stdout == b"The people stop.\n"  # what came before the bad line is not lost


def test_bad_decoder_option(tiny_model_dir: Path) -> None:
    assert_one_line_error(
        dictate("punctuate", "--model", str(tiny_model_dir), "--min-right-words", "0"),
        "--min-right-words",
    )


def test_eval_punctuation_json(tiny_model_dir: Path, tmp_path: Path) -> None:
    ref = tmp_path / "ref.tsv"
    ref.write_text(TSV)
    result = json.loads(
        run_text(["eval", "punctuation", str(ref), "--json", "--model", str(tiny_model_dir)])
    )
    punct = result["model"]["punctuation"]
    # The model finds stop, well and huh, and misses the final period: 3 of 4 marks.
    assert punct["PERIOD"]["precision"] == 1.0 and punct["PERIOD"]["recall"] == 0.5
    assert punct["COMMA"]["f1"] == 1.0 and punct["QUESTION"]["f1"] == 1.0
    assert punct["OVERALL"]["recall"] == pytest.approx(0.75)
    assert result["model"]["segmentation"]["f0.5"] == pytest.approx(
        (1.25 * 1.0 * (2 / 3)) / (0.25 * 1.0 + 2 / 3)
    )
    assert result["model"]["capitalization"] is None
    assert result["words"] == 7


def test_eval_punctuation_table_with_casing(tiny_model_dir: Path, tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text(CASED)
    text = run_text(["eval", "punctuation", str(ref), "--model", str(tiny_model_dir)])
    assert "OVERALL f1" in text and "capitalisation f1" in text


def test_eval_streaming_compares_both_decoders(tiny_model_dir: Path, tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text(CASED * 20)
    args = ["eval", "streaming", str(ref), "--model", str(tiny_model_dir), "--seed", "1"]
    args += "--seed 2 --p-mid 0.3".split()
    result = json.loads(run_text([*args, "--json"]))
    assert [r["seed"] for r in result["runs"]] == [1, 2]
    for entry in result["runs"]:
        baseline, streaming = entry["baseline"], entry["streaming"]
        # The tiny model knows where sentences end; only the baseline also closes every pause.
        assert streaming["segmentation"]["precision"] == 1.0
        assert baseline["segmentation"]["precision"] < 1.0
        assert streaming["segmentation"]["f0.5"] > baseline["segmentation"]["f0.5"]
        assert baseline["mean_delay_segments"] == 0
        assert streaming["mean_delay_segments"] > 0
    text = run_text(args)
    assert "median over 2 seeds" in text and "segmentation F0.5" in text


def test_eval_streaming_scores_commit_times(tiny_model_dir: Path, tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text(CASED * 20)
    args = ["eval", "streaming", str(ref), "--model", str(tiny_model_dir), "--seed", "1"]
    args += "--commit-after 500 --commit-after 3000 --commit-after never --json".split()
    result = json.loads(run_text(args))
    entry = result["runs"][0]
    short, long = entry["commit 0.5 s"], entry["commit 3 s"]
    assert short["commits"] == entry["segments"]  # every simulated pause is at least 0.5 s
    assert 0 <= long["commits"] < short["commits"]
    assert entry["streaming"]["commits"] == 0
    assert result["simulation"]["pause_end"] == 0.8
    text = run_text(args[:-1])
    assert "commit 0.5 s" in text and "commits" in text
    bad = dictate("eval", "streaming", str(ref), "--commit-after", "soon")
    assert bad.returncode == 2 and b"--commit-after" in bad.stderr


def test_eval_unreadable_file(tiny_model_dir: Path, tmp_path: Path) -> None:
    assert_one_line_error(
        dictate(
            "eval", "punctuation", str(tmp_path / "missing.tsv"), "--model", str(tiny_model_dir)
        ),
        "missing.tsv",
    )
    binary = tmp_path / "data.bin"
    binary.write_bytes(b"\0\1\2" * 100)
    assert_one_line_error(
        dictate("eval", "streaming", str(binary), "--model", str(tiny_model_dir)), "data.bin"
    )


def test_eval_bad_simulation_option(tiny_model_dir: Path, tmp_path: Path) -> None:
    ref = tmp_path / "ref.txt"
    ref.write_text(CASED)
    assert_one_line_error(
        dictate("eval", "streaming", str(ref), "--p-end", "1.5", "--model", str(tiny_model_dir)),
        "p_end",
    )


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_bench_punctuator(tmp_path: Path) -> None:
    from tiny_model import build_tiny_model

    model_dir = build_tiny_model(tmp_path / "m", max_length=128)
    args = ["bench", "punctuator", "--model", str(model_dir), *"--runs 3 --repeats 1".split()]
    result = json.loads(run_text([*args, "--json"]))
    assert result["provider"] == "CPUExecutionProvider" or result["provider"].startswith("CUDA")
    windows = {w["tokens"]: w for w in result["windows"]}
    assert set(windows) == {32, 64, 128, 256}
    assert windows[128]["median_ms"] > 0 and windows[128]["p95_ms"] >= windows[128]["median_ms"]
    assert "max_length" in windows[256]["skipped"]
    assert result["streaming"]["words"] == 5_000
    assert result["streaming"]["words_per_second_median"] > 0
    assert result["peak_rss_mb"] > 0
    text = run_text(args)
    assert "words/s" in text and "provider" in text


def test_bench_editor() -> None:
    result = json.loads(
        run_text(["bench", "editor", *"--chars 3000 --keys 24 --runs 1 --json".split()])
    )
    assert result["document_chars"] > 2900 and result["keys_per_run"] == 24
    assert 0 < result["key_ms_median"] <= result["key_ms_p95"]
    assert 0 < result["event_ms_median"] <= result["event_ms_p95"]
    assert_one_line_error(dictate("bench", "editor", "--keys", "0"), "--keys")


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_closed_or_full_outputs_and_huge_lines_give_one_line(tmp_path: Path) -> None:
    """Issue 12: a closed stdout or stdin, a full device and a 3 MB line: one line, exit 2,
    and the huge line is refused without being read whole."""
    script = "import sys; from dictate.cli import main; sys.exit(main(sys.argv[1:]))"

    def shell(command: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        return subprocess.run(
            ["bash", "-c", f'"{sys.executable}" -c "{script}" {command}'],
            input=stdin, capture_output=True, timeout=120,
        )  # fmt: skip

    assert_one_line_error(shell("punctuate >&-", b"hello world\n"), "standard output is closed")
    assert_one_line_error(shell("punctuate <&-"), "standard input is closed")
    full = shell("punctuate > /dev/full", b"hello world how are you\n")
    assert_one_line_error(full, "cannot write the output", "No space left")
    assert_one_line_error(dictate("punctuate", stdin=b"word " * 600_000), "longer than")


@pytest.mark.slow
def test_non_finite_numbers_fifos_and_empty_names_are_refused(tmp_path: Path) -> None:
    for value in ("nan", "inf", "-inf"):
        assert_one_line_error(
            dictate("transcribe", "x.wav", f"--max-segment={value}"), "--max-segment", value
        )
    assert_one_line_error(dictate("transcribe", "--mic", "--duration", "nan"), "--duration")
    for value in ("nan", "-1", "inf"):  # found in review: nan waited for ever, silently
        assert_one_line_error(dictate("toggle", "--wait", value), "--wait", value)
    huge = "99999999999999999999"  # found by trying the CLI: tracebacks, or runs for ever
    for args in (
        ["punctuate", "--left-context", huge],
        ["punctuate", "--max-pending-words", huge],
        ["punctuate", "--min-right-words", huge],
        ["transcribe", "x.wav", "--silence-ms", huge],
        ["bench", "punctuator", "--threads", huge],
        ["bench", "punctuator", "--runs", huge],
        ["bench", "editor", "--chars", huge],
        ["bench", "pipeline", "x.wav", "--runs", huge],
    ):
        assert_one_line_error(dictate(*args, stdin=b"hello\n"), args[-2], huge)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert_one_line_error(dictate("transcribe", str(fifo)), "is a FIFO")  # no hang
    assert_one_line_error(dictate("transcribe", "/dev/zero"), "is a device")
    assert_one_line_error(dictate("transcribe", str(tmp_path)), "is a directory")
    assert_one_line_error(dictate("models", "import", str(tmp_path), "--name", ""), "--name")
    assert_one_line_error(dictate("frobnicate"), "invalid choice")


def test_help_and_version() -> None:
    result = dictate("--version")
    assert result.returncode == 0 and result.stdout.startswith(b"dictate ")
    helped = dictate("--help").stdout
    for command in (b"punctuate", b"transcribe", b"models", b"devices", b"--self-test"):
        assert command in helped


def test_models_download_progress_in_a_log(tmp_path: Path) -> None:
    """On a stream that is not a terminal, the progress bar comes as whole lines (no carriage
    returns piling up), and the last one shows the full size."""
    from tqdm import tqdm
    from zip_server import NAME, serve_model_zip

    out, err = io.StringIO(), io.StringIO()
    with serve_model_zip(tmp_path, model_bytes=600_000) as (base, _):
        args = ["models", "download", NAME, "--url", f"{base}/{NAME}.zip"]
        assert run(args, stdout=out, stderr=err) == 0, err.getvalue()
    size = tqdm.format_sizeof((tmp_path / "model.zip").stat().st_size, divisor=1000)
    log = err.getvalue()
    assert "\r" not in log and log.endswith("\n")
    last = log.splitlines()[-1]
    assert last.startswith(f"{NAME}: 100%") and f" {size}/{size} " in last, log
    assert f"installed {NAME}" in out.getvalue()


def test_models_download_progress_starts_over_and_learns_the_total() -> None:
    """The store's callback: the total may be unknown at first, and the count may go back to
    0 when the download has to start over."""
    from dictate.cli.models import _Progress

    err = io.StringIO()
    progress = _Progress("model", err)
    progress.retrying("the connection timed out; attempt 2 of 4 in 1 s")  # before any byte
    for done, total in [(0, None), (700, None), (0, 2000), (1500, 2000), (2000, 2000)]:
        progress(done, total)
        if done == 700:
            progress.retrying("the connection ended early; attempt 3 of 4 in 2 s")
    progress.close()
    lines = err.getvalue().splitlines()
    assert lines[0] == "dictate: note: model: the connection timed out; attempt 2 of 4 in 1 s"
    assert lines[1].startswith("model: 0.00B ")  # no total yet: a count, no percentage
    assert "dictate: note: model: the connection ended early; attempt 3 of 4 in 2 s" in lines
    assert lines[-1].startswith("model: 100%") and " 2.00k/2.00k " in lines[-1], lines


def test_eval_registers_scores_each_heldout_slice(tiny_model_dir: Path, tmp_path: Path) -> None:
    import gzip

    folder = tmp_path / "heldout"
    folder.mkdir()
    for name, docs in {
        "ami_meetings": [CASED * 5, CASED * 3],
        "gutenberg_literature": [CASED * 8],
        "something_new": [CASED * 4],
    }.items():
        with gzip.open(folder / f"{name}.heldout.jsonl.gz", "wt", encoding="utf-8") as out:
            for i, text in enumerate(docs):
                out.write(json.dumps({"id": str(i), "title": "t", "text": text}) + "\n")
    args = ["eval", "registers", str(folder), "--model", str(tiny_model_dir)]
    result = json.loads(run_text([*args, "--json"]))
    registers = result["registers"]
    assert list(registers) == ["fiction", "meetings", "something_new"]  # known ones first
    assert registers["meetings"]["words"] == 8 * len(CASED.split())
    assert registers["fiction"]["streaming_segmentation_f05"] == 1.0  # the tiny model knows
    assert registers["fiction"]["baseline_segmentation_f05"] < 1.0
    table = run_text(args)
    assert table.splitlines()[0].split()[:3] == ["register", "words", "stream"]
    assert len(table.splitlines()) == 4


def test_eval_registers_bad_folder_is_one_line(tmp_path: Path) -> None:
    result = dictate("eval", "registers", str(tmp_path))
    assert result.returncode == 2
    assert b"holds no *.heldout.jsonl.gz files" in result.stderr
    (tmp_path / "x.heldout.jsonl.gz").write_bytes(b"not gzip")
    result = dictate("eval", "registers", str(tmp_path))
    assert result.returncode == 2 and b"cannot read" in result.stderr


def test_models_download_with_a_malformed_url_gives_one_error_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Found in review: it was a traceback."""
    args = ["models", "download", "vosk-model-small-en-us-0.15", "--url", "http://[::1/x.zip"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("dictate: error: ") and err.count("\n") == 1, err
    assert "not a valid URL" in err


def test_a_file_that_cannot_be_read_is_not_called_an_output_failure(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found in review: every OSError was reported as "cannot write the output"."""
    model = tmp_path / "my-model"
    (model / "am").mkdir(parents=True)
    (model / "am" / "final.mdl").write_bytes(b"x" * 100)
    (model / "conf").mkdir()
    (model / "conf" / "model.conf").symlink_to(model / "conf" / "gone.conf")  # dangling
    assert main(["models", "import", str(model)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("dictate: error: ") and err.count("\n") == 1, err
    assert "cannot import" in err and "model.conf" in err and "nothing was installed" in err
