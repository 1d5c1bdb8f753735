"""Startup never crashes (issue 12, part 1): settings are read field by field, an unusable data
directory or journal is reported in the window and the text is kept in memory, and a desktop
launch leaves a log file, a faulthandler file and one dialog for an unexpected exception."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from dictate.config import Settings, load_settings, save_settings, settings_path
from dictate.ui.app import start_window


def test_settings_of_the_wrong_type_fall_back_one_field_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    path.write_text(
        '{"font_size": "big", "font_family": 5, "mode": "loud", "silence_ms": 700,'
        ' "max_segment_s": NaN, "min_right_words": true, "engine": "sphinx",'
        ' "first_run_done": "yes", "unknown": 1}',
        encoding="utf-8",
    )
    settings = load_settings(path)
    assert settings.silence_ms == 700 and settings.engine == "sphinx"  # the good ones kept
    default = Settings()
    assert settings.font_size == default.font_size and settings.font_family is None
    assert settings.mode == "streaming" and settings.max_segment_s == default.max_segment_s
    assert settings.min_right_words == default.min_right_words
    assert settings.first_run_done is False
    assert [p.split(" ")[0] for p in settings.problems] == [
        "max_segment_s", "mode", "min_right_words", "font_family", "font_size", "first_run_done",
    ]  # fmt: skip
    save_settings(settings, path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert "problems" not in saved and load_settings(path).problems == []


def test_a_file_of_an_older_version_keeps_its_first_pass_model(tmp_path: Path) -> None:
    """``vosk_model`` was renamed ``first_pass_model`` (it is any engine's model): a file that
    has the old name loads into the new field, the new name wins where both are there, and
    the file is written with the new name."""
    path = tmp_path / "settings.json"
    path.write_text('{"engine": "vosk", "vosk_model": "vosk-model-en-us-0.22"}', encoding="utf-8")
    settings = load_settings(path)
    assert settings.first_pass_model == "vosk-model-en-us-0.22" and settings.problems == []
    save_settings(settings, path)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["first_pass_model"] == "vosk-model-en-us-0.22" and "vosk_model" not in saved
    both = {"vosk_model": "old", "first_pass_model": "new"}
    assert Settings.from_dict(both).first_pass_model == "new"
    assert Settings.from_dict({"vosk_model": ""}).problems == ["first_pass_model ('')"]


def test_bad_settings_open_the_window_with_one_notice(qtbot) -> None:  # type: ignore[no-untyped-def]
    settings_path().parent.mkdir(parents=True, exist_ok=True)
    settings_path().write_text('{"font_size": "big", "font_family": 5}', encoding="utf-8")
    window = start_window()
    qtbot.addWidget(window)
    assert not window.messages.isHidden()
    text = window.messages.label.text()
    assert "font_size ('big')" in text and "font_family (5)" in text
    window.document.modified = False


def test_an_unreadable_settings_file_is_reported_and_kept(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Found in review: a file that is not JSON used to fall back to the defaults silently, and
    the next change of any setting wrote them over the user's file."""
    path = settings_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    mine = '{"hotkey": "Ctrl+Alt+X", "replacements": [],}'
    path.write_text(mine, encoding="utf-8")
    window = start_window()
    qtbot.addWidget(window)
    assert not window.messages.isHidden()
    assert "could not be read" in window.messages.label.text()
    assert str(path) + ".unreadable" in window.messages.label.text()
    save_settings(window.settings, path)  # what the next change of a setting does
    assert Path(str(path) + ".unreadable").read_text(encoding="utf-8") == mine
    window.document.modified = False


@pytest.mark.parametrize("damage", ["data dir is a file", "journal is a directory"])
def test_an_unusable_data_directory_keeps_the_text_and_says_so(
    qtbot: Any,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    damage: str,
) -> None:
    from dictate.editing.journal import default_journal_path

    if damage == "data dir is a file":
        (tmp_path / "data-file").write_text("not a folder")
        monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data-file"))
    else:
        default_journal_path().mkdir(parents=True)
    window = start_window()
    qtbot.addWidget(window)
    window.show()
    assert not window.write_problem.isHidden()
    assert "Autosave failed" in window.write_problem.label.text()
    assert "Save As" in [
        b.text().replace("&", "").rstrip("…") for b in window.write_problem.buttons
    ]
    QTest.keyClicks(window.editor, "Still typing.")
    QTest.keyClick(window.editor, Qt.Key.Key_Return)
    assert window.editor.text == "Still typing.\n"
    assert window.document.save_as(tmp_path / "elsewhere.txt")
    assert (tmp_path / "elsewhere.txt").read_text(encoding="utf-8") == "Still typing.\n"
    window.document.modified = False
    window.document.retry_timer.stop()


def test_a_desktop_launch_logs_to_a_file_and_shows_one_dialog_per_run(tmp_path: Path) -> None:
    """In a child process: the log file, faulthandler and the exception hook change global
    state that must not leak into the rest of the suite."""
    script = textwrap.dedent(
        """
        import logging, sys
        from PySide6.QtWidgets import QApplication, QMessageBox
        from dictate.ui.app_log import install_excepthook, log_to_file

        import os
        os.umask(0)  # the log is private whatever the umask
        shown = []
        QMessageBox.critical = lambda *args: shown.append(args[2])
        logfile = log_to_file()
        install_excepthook(logfile)
        app = QApplication([])
        logging.getLogger("dictate.test").info("started")
        for n in range(2):
            try:
                raise RuntimeError(f"boom {n}")
            except RuntimeError:
                sys.excepthook(*sys.exc_info())
        print(logfile)
        print(len(shown), shown[0])
        """
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "XDG_STATE_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    logfile, dialog = done.stdout.strip().splitlines()
    assert Path(logfile).parent.is_relative_to(tmp_path)
    log = Path(logfile).read_text(encoding="utf-8")
    # The type and where it was raised; never the message, which may quote what was said.
    assert "started" in log and log.count("unexpected error: RuntimeError at <string>") == 2
    assert "boom" not in log
    assert dialog.startswith("1 ") and "boom 0" in dialog and logfile in dialog
    crash = Path(logfile).parent / "crash.log"
    assert crash.exists()
    for private in (Path(logfile), crash):
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
    assert stat.S_IMODE(Path(logfile).parent.stat().st_mode) == 0o700
    assert stat.S_IMODE(Path(logfile).parent.parent.stat().st_mode) == 0o700  # state/dictate
