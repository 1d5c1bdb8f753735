"""Private by default, and files checked before they are parsed: the settings are this user's
only whatever the umask; a settings file that is a named pipe, a device, huge or nested 100,000
deep gives one message and the defaults (it used to hang, exhaust memory or crash every start);
and nothing the user said reaches the log when a stage fails."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from fake_tagger import FakeTagger

from dictate.config import MAX_SETTINGS_BYTES, Settings, load_settings, save_settings

SECRET = "zanzibarquux"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_settings_and_their_folder_are_private_whatever_the_umask(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DICTATE_CONFIG")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    old = os.umask(0)
    try:
        path = save_settings(Settings(silence_ms=700))
    finally:
        os.umask(old)
    assert path.is_relative_to(tmp_path)
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700
    path.chmod(0o644)  # as versions before 0.3 wrote it
    assert load_settings().silence_ms == 700
    assert _mode(path) == 0o600


def _load_in_thread(path: Path) -> Settings:
    got: list[Settings] = []
    reader = threading.Thread(target=lambda: got.append(load_settings(path)), daemon=True)
    reader.start()
    reader.join(10)
    assert got, f"load_settings hung on {path}"
    return got[0]


def test_a_settings_file_that_is_a_named_pipe_is_refused_without_hanging(tmp_path: Path) -> None:
    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    settings = _load_in_thread(fifo)
    assert settings == Settings(problems=settings.problems)
    assert len(settings.problems) == 1 and "named pipe" in settings.problems[0]


def test_a_settings_file_linked_to_dev_zero_is_refused_without_reading_it(tmp_path: Path) -> None:
    link = tmp_path / "settings.json"
    link.symlink_to("/dev/zero")
    settings = _load_in_thread(link)
    assert "character device" in settings.problems[0]


def test_a_huge_settings_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    with path.open("wb") as fh:
        fh.truncate(MAX_SETTINGS_BYTES + 1)  # sparse: no disk used
    assert "more than" in load_settings(path).problems[0]


def test_settings_nested_100000_deep_are_refused_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text('{"replacements": ' + "[" * 100_000 + "]" * 100_000 + "}")
    settings = load_settings(path)
    assert "levels deep" in settings.problems[0]
    kept = tmp_path / "settings.json.unreadable"
    assert kept.read_bytes() == path.read_bytes() and _mode(kept) == 0o600


@pytest.mark.slow
def test_transcribe_with_a_named_pipe_for_settings_does_not_hang(tmp_path: Path) -> None:
    """The reviewed failure: `dictate transcribe` waited for a writer to the pipe forever."""
    from dictate.paths import asset_path

    fifo = tmp_path / "settings.json"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, "-m", "dictate", "transcribe", str(asset_path("sample_en.wav"))],
        capture_output=True,
        text=True,
        timeout=240,
        env={**os.environ, "DICTATE_CONFIG": str(fifo)},
    )
    assert done.returncode == 0, done.stderr
    assert len(done.stdout.split()) > 5
    assert "named pipe" in done.stderr


# -- nothing the user said in the log ---------------------------------------------------------


def _logged(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(
        f"{r.getMessage()} {r.exc_text or ''} {r.exc_info or ''}" for r in caplog.records
    )


def test_a_failing_written_forms_stage_logs_no_words(caplog: pytest.LogCaptureFixture) -> None:
    from dictate.events import Finalized
    from dictate.punctuation.decoder import StreamingPunctuator
    from dictate.text.stage import TextStage

    def writer(text: str) -> str:
        raise ValueError(f"cannot write {text!r}")  # as int('twenty') would quote its input

    events: list[object] = []
    stage = TextStage(StreamingPunctuator(FakeTagger()), events.append, writer=writer)
    with caplog.at_level(logging.DEBUG):
        stage.segment(1, f"my code word is {SECRET} and then we left".split())
        stage.finish(1)
    finals = " ".join(" ".join(e.sentences) for e in events if isinstance(e, Finalized))
    assert SECRET in finals  # the words are kept, as punctuated
    assert "written forms failed" in caplog.text and "ValueError" in caplog.text
    assert SECRET not in _logged(caplog)


def test_a_failing_punctuator_logs_no_words(caplog: pytest.LogCaptureFixture) -> None:
    from dictate.punctuation.decoder import StreamingPunctuator
    from dictate.text.stage import TextStage

    class Broken(StreamingPunctuator):
        def feed(self, words: Any, cases: Any = None, hints: Any = None) -> Any:
            raise RuntimeError(f"model failed on {words!r}")

    events: list[object] = []
    stage = TextStage(Broken(FakeTagger()), events.append)
    with caplog.at_level(logging.DEBUG):
        stage.segment(1, f"the word {SECRET} was said".split())
        stage.finish(1)
    assert "punctuator failed" in caplog.text
    assert SECRET not in _logged(caplog)


def test_an_internal_error_in_written_forms_logs_no_words(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dictate.writing import forms

    def broken(text: str, options: object) -> str:
        raise KeyError(text)

    monkeypatch.setattr(forms, "_rewrite", broken)
    with caplog.at_level(logging.DEBUG):
        assert forms.written(f"twenty {SECRET}") == f"twenty {SECRET}"
    assert "written forms failed" in caplog.text and "KeyError" in caplog.text
    assert SECRET not in _logged(caplog)


def test_a_failing_event_listener_logs_no_words(caplog: pytest.LogCaptureFixture) -> None:
    from dictate.events import Pending
    from dictate.run.sink import Sink
    from dictate.text.stage import TextStage

    def listener(event: object) -> None:
        raise ValueError(f"could not show {event!r}")

    sink = Sink([], TextStage(None, listener), listener)
    with caplog.at_level(logging.DEBUG):
        sink.emit(Pending(0.0, 1, f"pending {SECRET}"))
    assert "event listener failed on Pending" in caplog.text
    assert SECRET not in _logged(caplog)


def test_the_data_folder_made_by_an_older_version_is_closed_at_start() -> None:
    from dictate.paths import user_data_dir
    from dictate.ui.app import _close_data_folder

    folder = user_data_dir()  # in the test's own home (conftest)
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    _close_data_folder()
    assert _mode(folder) == 0o700
