"""Checks of every transcript format ``dictate`` writes, shared by the library's tests and the
command line's: each file is read back by the format's own parser, and its words, cue limits
and times are checked against the text."""

from __future__ import annotations

import html
import io
import json
import re

import srt
import webvtt

from dictate.timed.subtitles import MAX_CHARS, MAX_LINES, MAX_SECONDS

SLACK = 0.0015  # times are written to the millisecond
STAMP = re.compile(r"^\[(\d\d):([0-5]\d):([0-5]\d)\] (.*)$")


def check_cues(cues: list[tuple[float, float, list[str]]], text: str, duration: float) -> None:
    """Cue limits, order and words: (start, end, lines) each."""
    words = [w for _, _, lines in cues for line in lines for w in line.split()]
    assert words == text.split()
    previous_end = 0.0
    for start, end, lines in cues:
        assert 1 <= len(lines) <= MAX_LINES, lines
        single_word = sum(len(line.split()) for line in lines) == 1
        for line in lines:
            assert line == line.strip() and line, lines
            assert len(line) <= MAX_CHARS or single_word, lines
        assert 0.0 <= start <= end <= duration + SLACK, (start, end, duration)
        assert end - start <= MAX_SECONDS + SLACK or single_word, (start, end, lines)
        assert start >= previous_end - SLACK, (previous_end, start)
        previous_end = end


def check_srt(document: str, text: str, duration: float) -> list[srt.Subtitle]:
    subtitles = list(srt.parse(document, ignore_errors=False))
    assert [s.index for s in subtitles] == list(range(1, len(subtitles) + 1))
    check_cues(
        [
            (s.start.total_seconds(), s.end.total_seconds(), s.content.split("\n"))
            for s in subtitles
        ],
        text,
        duration,
    )
    return subtitles


def check_vtt(document: str, text: str, duration: float) -> list[webvtt.Caption]:
    assert document.startswith("WEBVTT")
    captions = webvtt.from_buffer(io.StringIO(document), strict=True).captions
    check_cues(
        [
            (
                c.start_time.in_milliseconds() / 1000,  # start_in_seconds: whole seconds
                c.end_time.in_milliseconds() / 1000,
                [html.unescape(x) for x in c.lines],
            )
            for c in captions
        ],
        text,
        duration,
    )
    return captions


def check_json(document: str, text: str, duration: float) -> dict:
    data = json.loads(document)
    assert data["format"] == "dictate-transcript" and data["version"] == 1
    assert data["text"] == text
    assert abs(data["duration"] - duration) <= SLACK
    words = data["words"]
    assert [w["text"] for w in words] == text.split()
    previous = 0.0
    for word in words:
        assert previous - SLACK <= word["start"] <= word["end"] <= duration + SLACK, word
        assert word["confidence"] is None or 0.0 <= word["confidence"] <= 1.0
        previous = word["end"]
    sentences = data["sentences"]
    assert " ".join(s["text"] for s in sentences).split() == text.split()
    for n, sentence in enumerate(sentences):
        mine = [w for w in words if w["sentence"] == n]
        assert [w["text"] for w in mine] == sentence["text"].split()
        assert sentence["start"] == mine[0]["start"] and sentence["end"] >= mine[-1]["end"]
    starts = [s["start"] for s in sentences]
    assert starts == sorted(starts)
    assert [i for p in data["paragraphs"] for i in p["sentences"]] == list(range(len(sentences)))
    return data


def check_markdown(document: str, text: str) -> list[int]:
    """The paragraphs' times, in whole seconds; each paragraph begins with its time."""
    paragraphs = document.split("\n\n") if document else []
    times = []
    words: list[str] = []
    for paragraph in paragraphs:
        match = STAMP.match(paragraph.split("\n", 1)[0])
        assert match, paragraph
        hours, minutes, seconds, _ = match.groups()
        times.append(int(hours) * 3600 + int(minutes) * 60 + int(seconds))
        words += paragraph.split()[1:]
    assert times == sorted(times)
    assert words == text.split()
    assert not document or document.endswith("\n")
    return times
