"""``dictate transcribe --format txt|md|srt|vtt|json [-o FILE]``: each format of a real
recording through the real pipeline read back by its own parser, and the errors of --output."""

from __future__ import annotations

import argparse
import io
import os
from pathlib import Path

import pytest
import soundfile
from test_cli_speech import call, one_line_error
from transcript_checks import check_json, check_markdown, check_srt, check_vtt

from dictate.asr.engine import Word
from dictate.cli.transcript_output import TranscriptOutput, output_path
from dictate.errors import InputError
from dictate.events import Finalized, Finished, Segment

DATA = Path(__file__).resolve().parent / "data"
COMMANDS = DATA / "en_commands.wav"  # "... question mark ... next paragraph ... exclamation mark"


@pytest.mark.slow  # three runs of the recogniser
def test_subtitles_and_json_of_a_real_recording_parse_and_hold_the_texts_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The bundled engine on speech with voice commands in it: the subtitles and the JSON
    document, read back by their parsers, hold exactly the words `transcribe` prints, in
    order, timed within the recording. (Markdown, WebVTT and text files are written by the
    same code from the same events: tests/test_transcript.py.)"""
    base = ["transcribe", str(COMMANDS), "--engine", "sphinx"]
    code, out, _ = call(base, capsys)
    assert code == 0
    text = out.strip()
    assert "\n\n" in text and len(text.split()) >= 8  # "next paragraph" was carried out
    seconds = soundfile.info(str(COMMANDS)).duration
    target = tmp_path / "talk.srt"
    code, out, err = call([*base, "--format", "srt", "-o", str(target)], capsys)
    assert (code, out) == (0, ""), err
    subtitles = check_srt(target.read_text(encoding="utf-8"), text, seconds)
    code, out, _ = call([*base, "--format", "json"], capsys)
    assert code == 0
    data = check_json(out, text, seconds)
    assert abs(data["duration"] - seconds) < 0.05
    assert all(0 <= w["start"] < w["end"] <= seconds for w in data["words"])
    assert len(data["paragraphs"]) == 2 and len(subtitles) >= 2
    first = data["words"][0]  # the first word, said at 0.6 s in the recording
    assert 0.4 <= first["start"] <= 1.2
    assert abs(subtitles[0].start.total_seconds() - first["start"]) < 0.002
    check_vtt(_render(data, "vtt"), text, seconds)
    check_markdown(_render(data, "md"), text)


def _render(data: dict, format: str) -> str:
    """The document's words (times and sentences) as ``format``, through the Transcript."""
    from dictate.timed.transcript import Transcript

    transcript = Transcript(data["duration"])
    for n, sentence in enumerate(data["sentences"]):
        words = [w for w in data["words"] if w["sentence"] == n]
        heard = [Word(w["text"], w["start"], w["end"], w["confidence"]) for w in words]
        transcript.add(Segment(0, n, heard[0].start, heard[-1].end, "pause", heard))
        transcript.add(Finalized(0, n, [sentence["text"]]))
    return transcript.render(format)


def test_format_and_output_do_not_go_with_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for extra in (["--format", "srt"], ["--format", "json"], ["-o", str(tmp_path / "x.txt")]):
        code, out, err = call(["transcribe", str(COMMANDS), "--json", *extra], capsys)
        assert (code, out) == (2, "")
        one_line_error(err, "--json", "--format json")
    assert not (tmp_path / "x.txt").exists()


def test_output_that_cannot_be_written_fails_before_decoding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    audio = tmp_path / "talk.wav"
    audio.write_bytes(COMMANDS.read_bytes())
    before = audio.read_bytes()
    cases = {
        str(audio): "is the audio being transcribed",
        str(tmp_path / "." / "talk.wav"): "is the audio being transcribed",
        str(tmp_path / "missing" / "out.srt"): "there is no folder",
        str(tmp_path): "it is a folder",
    }
    if os.geteuid() != 0:  # root may write anything
        locked = tmp_path / "locked.srt"
        locked.write_text("kept\n")
        locked.chmod(0o444)
        cases[str(locked)] = "read-only"
    for target, why in cases.items():
        code, out, err = call(["transcribe", str(audio), "--format", "srt", "-o", target], capsys)
        assert (code, out) == (2, ""), target
        one_line_error(err, "error", why)
        assert "Vosk" not in err  # no engine was loaded: nothing was decoded
    assert audio.read_bytes() == before


def test_a_write_that_fails_at_the_end_prints_the_transcript_instead(tmp_path: Path) -> None:
    """The folder went away during the run: the subtitles go to standard output, and the
    command fails with a line saying so; no word is lost."""
    stdout = io.StringIO()
    output = TranscriptOutput("srt", tmp_path / "gone" / "talk.srt", stdout)
    for event in [
        Segment(0, 1, 0.0, 1.0, "pause", [Word("hello", 0.1, 0.5), Word("there", 0.6, 0.9)]),
        Finalized(0, 1, ["Hello there."]),
        Finished(0, "end_of_audio", 1.5, 0),
    ]:
        output.apply(event)
    with pytest.raises(InputError, match=r"cannot write .*talk\.srt.*standard output"):
        output.close()
    check_srt(stdout.getvalue(), "Hello there.", 1.5)
    assert "Hello there." in stdout.getvalue()


def test_a_text_file_is_what_standard_output_gets(tmp_path: Path) -> None:
    target = tmp_path / "talk.txt"
    output = TranscriptOutput("txt", target, io.StringIO())
    output.apply(Segment(0, 1, 0.0, 1.0, "pause", [Word("hi", 0.1, 0.5)]))
    output.apply(Finalized(0, 1, ["Hi."]))
    output.close()
    assert target.read_text(encoding="utf-8") == "Hi.\n"


def test_output_dash_is_standard_output() -> None:
    args = argparse.Namespace(json=False, format="md", output="-", audio=str(COMMANDS))
    assert output_path(args) is None
    stdout = io.StringIO()
    output = TranscriptOutput("md", None, stdout)
    output.apply(Segment(0, 1, 62.0, 63.0, "pause", [Word("hi", 62.0, 62.5)]))
    output.apply(Finalized(0, 1, ["Hi."]))
    output.close()
    assert stdout.getvalue() == "[00:01:02] Hi.\n"
