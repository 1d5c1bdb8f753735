"""Word error rate of ``dictate transcribe`` on recordings with reference transcripts.

    .venv/bin/python benchmarks/asr_wer.py --variant "sphinx=--engine sphinx"
    .venv/bin/python benchmarks/asr_wer.py \\
        --variant "sphinx=--engine sphinx --second-pass off" \\
        --variant "sphinx+whisper=--engine sphinx --second-pass tiny.en" \\
        --json /tmp/wer.json --markdown /tmp/wer.md

``--through window`` runs each file through the window's own dictation path instead
(``dictate bench gui FILE ARGS``: fed at real-time speed, as from the microphone, offscreen).

Each manifest (default: the real recordings of benchmarks/real_recordings.py and the synthetic
long-form set of benchmarks/longform_set.py, where they have been built) lists WAV files and
their reference text. Every file is run through ``dictate transcribe FILE ARGS`` once per
``--variant NAME=ARGS`` (the ARGS split as a shell would), one run at a time, and the printed
text is scored against the reference:

* both texts are normalised the same way: the project's own written forms
  (:func:`dictate.writing.forms.written`, what ``dictate normalize`` does) so that "ten" and "10",
  "nineteen eighty four" and "1984" agree whatever the variant prints (``--no-written-norm``
  turns this off); then lower case, curly apostrophes straight, hyphens, dashes and slashes
  between words as spaces, every other mark removed, quotes at the ends of a word stripped;
  then the hesitations the app never writes (:data:`dictate.text.stage.FILLERS`: "uh", "um")
  are left out on both sides, as Whisper's English normaliser and the ASR leaderboards that use
  it do (the real set's Montreal Forced Aligner transcripts are verbatim and hold 16 of them;
  ``--count-fillers`` counts them as words);
* errors are the fewest substitutions, deletions and insertions (a Levenshtein alignment, whose
  total is checked against :func:`dictate.edit_distance.edit_distance`); WER = errors /
  reference words, pooled over a set as total errors / total reference words.

Prints a Markdown table per set (WER, S/D/I and wall time per file per variant, pooled row) and
the command that produced it; ``--json`` also writes every hypothesis. The pipeline is not
quite repeatable (two runs of the same build on the same file can differ by a word or two:
MFA's acoustic_corpus gave 13.3% and 15.0% with PocketSphinx), so ``--runs N`` runs every file
N times and pools the errors, showing each file's range; the wall time includes the process's
start and model loading and depends on what else the machine is doing.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dictate.edit_distance import edit_distance  # noqa: E402

CACHE = Path.home() / ".cache" / "dictate-bench"
DEFAULT_MANIFESTS = (CACHE / "real" / "manifest.json", CACHE / "longform" / "manifest.json")
DEFAULT_VARIANT = "sphinx=--engine sphinx"


# -- scoring -----------------------------------------------------------------------------------


def normalise(text: str, written_forms: bool = True, fillers: bool = False) -> list[str]:
    """``text`` as the words that are compared (see the module docstring); ``fillers``: keep
    the hesitations."""
    if written_forms:
        from dictate.writing.forms import written

        text = written(text)
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[-\u2010-\u2015/]", " ", text)
    text = re.sub(r"[^\w\s']", "", text)
    words = [word for word in (w.strip("'") for w in text.split()) if word]
    if fillers:
        return words
    from dictate.text.stage import FILLERS

    return [word for word in words if word not in FILLERS]


@dataclass
class Errors:
    """Edit operations that turn the reference into the hypothesis."""

    ref_words: int = 0
    hyp_words: int = 0
    sub: int = 0
    dele: int = 0
    ins: int = 0

    @property
    def errors(self) -> int:
        return self.sub + self.dele + self.ins

    @property
    def wer(self) -> float:
        return self.errors / self.ref_words if self.ref_words else float(self.errors > 0)

    def __add__(self, other: Errors) -> Errors:
        return Errors(
            self.ref_words + other.ref_words,
            self.hyp_words + other.hyp_words,
            self.sub + other.sub,
            self.dele + other.dele,
            self.ins + other.ins,
        )


def alignment(ref: list[str], hyp: list[str]) -> list[tuple[int | None, int | None]]:
    """A minimal edit alignment, in order: (i, j) a match or substitution of ``ref[i]`` by
    ``hyp[j]``, (i, None) a deletion, (None, j) an insertion."""
    rows, cols = len(ref) + 1, len(hyp) + 1
    cost = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        cost[i][0] = i
    for j in range(cols):
        cost[0][j] = j
    for i in range(1, rows):
        above, here = cost[i - 1], cost[i]
        for j in range(1, cols):
            same = ref[i - 1] == hyp[j - 1]
            here[j] = min(above[j - 1] + (not same), above[j] + 1, here[j - 1] + 1)
    steps: list[tuple[int | None, int | None]] = []
    i, j = len(ref), len(hyp)
    while i or j:  # walk back, preferring a match or substitution, then a deletion
        if i and j and cost[i][j] == cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            steps.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif i and cost[i][j] == cost[i - 1][j] + 1:
            steps.append((i - 1, None))
            i -= 1
        else:
            steps.append((None, j - 1))
            j -= 1
    return steps[::-1]


def align(ref: list[str], hyp: list[str]) -> Errors:
    """Substitutions, deletions and insertions of a minimal alignment of ``hyp`` to ``ref``."""
    out = Errors(len(ref), len(hyp))
    for i, j in alignment(ref, hyp):
        if i is not None and j is not None:
            out.sub += ref[i] != hyp[j]
        elif i is not None:
            out.dele += 1
        else:
            out.ins += 1
    if out.errors != edit_distance(ref, hyp):
        raise AssertionError("alignment disagrees with the edit distance")
    return out


# -- running -----------------------------------------------------------------------------------


@dataclass
class Result:
    set: str
    id: str
    variant: str
    duration: float
    wall_s: float
    errors: Errors
    hypothesis: str = ""
    failed: str = ""
    command: list[str] = field(default_factory=list)
    run: int = 1


def dictate_command(explicit: str | None) -> list[str]:
    if explicit:
        return shlex.split(explicit)
    beside = Path(sys.executable).parent / "dictate"
    return [str(beside)] if beside.is_file() else [sys.executable, "-m", "dictate"]


def parse_variant(text: str) -> tuple[str, list[str]]:
    name, sep, args = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"--variant wants NAME=ARGS, got {text!r}")
    return name.strip(), shlex.split(args)


def transcribe(
    dictate: list[str], wav: str, args: list[str], timeout: float
) -> tuple[str, float, str]:
    """The text ``dictate transcribe`` prints, its wall time, and an error ('' when none)."""
    command = [*dictate, "transcribe", wav, *args]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        return "", time.perf_counter() - start, f"timed out after {timeout:.0f} s"
    wall = time.perf_counter() - start
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or [""])[-1]
        return done.stdout, wall, f"exit {done.returncode}: {tail}"
    return done.stdout, wall, ""


def through_window(
    dictate: list[str], wav: str, args: list[str], timeout: float
) -> tuple[str, float, str]:
    """As :func:`transcribe`, through the window's own dictation path: ``dictate bench gui WAV
    ARGS --json`` plays the file at real-time speed into the window (offscreen) as the
    microphone would, and its text is what the window holds at the end."""
    command = [*dictate, "bench", "gui", wav, *args, "--runs", "1", "--json"]
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
            env={**os.environ, "QT_QPA_PLATFORM": os.environ.get("QT_QPA_PLATFORM", "offscreen")},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "", time.perf_counter() - start, f"timed out after {timeout:.0f} s"
    wall = time.perf_counter() - start
    if done.returncode:
        tail = (done.stderr.strip().splitlines() or [""])[-1]
        return "", wall, f"exit {done.returncode}: {tail}"
    return str(json.loads(done.stdout)["runs"][0]["text"]), wall, ""


def load_manifest(path: Path) -> tuple[str, list[dict[str, Any]]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    return str(document.get("set", path.parent.name)), list(document["recordings"])


# -- reporting ---------------------------------------------------------------------------------


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _file_cells(runs: list[Result]) -> list[str]:
    """WER (pooled over the runs, with the range when there are several), S/D/I (a run's mean)
    and wall time (a run's mean) of one file and variant."""
    if not runs:
        return ["", "", ""]
    done = [r for r in runs if not r.failed]
    wall = f"{sum(r.wall_s for r in runs) / len(runs):.1f}"
    if not done:
        return ["failed", "", wall]
    total = sum((r.errors for r in done), Errors())
    wer = pct(total.wer)
    if len(done) > 1:
        low, high = min(r.errors.wer for r in done), max(r.errors.wer for r in done)
        wer += f" ({100 * low:.1f}-{100 * high:.1f})" if high > low else " (same)"
    n = len(done)
    sdi = "/".join(f"{x / n:.3g}" for x in (total.sub, total.dele, total.ins))
    return [wer + (f", {len(runs) - n} failed" if len(runs) > n else ""), sdi, wall]


def markdown(results: list[Result], variants: list[str], header: str) -> str:
    lines = [header, ""]
    sets = list(dict.fromkeys(r.set for r in results))
    lines += ["## Summary (pooled WER: total errors / total reference words)", ""]
    lines.append("| set | files | minutes | ref words | " + " | ".join(variants) + " |")
    lines.append("|---|---:|---:|---:|" + "---:|" * len(variants))
    for name in sets:
        rows = [r for r in results if r.set == name]
        ids = list(dict.fromkeys(r.id for r in rows))
        first = [next(r for r in rows if r.id == i and r.run == 1) for i in ids]
        minutes = sum(r.duration for r in first) / 60
        words = sum(r.errors.ref_words for r in first)
        cells = []
        for variant in variants:
            done = [r for r in rows if r.variant == variant and not r.failed]
            total = sum((r.errors for r in done), Errors())
            failed = sum(1 for r in rows if r.variant == variant and r.failed)
            cells.append(pct(total.wer) + (f" ({failed} failed)" if failed else ""))
        lines.append(
            f"| {name} | {len(ids)} | {minutes:.1f} | {words} | " + " | ".join(cells) + " |"
        )
    for name in sets:
        rows = [r for r in results if r.set == name]
        ids = list(dict.fromkeys(r.id for r in rows))
        lines += ["", f"## {name}", ""]
        head = "| recording | s | ref words |"
        rule = "|---|---:|---:|"
        for variant in variants:
            head += f" {variant} WER | S/D/I | wall s |"
            rule += "---:|---:|---:|"
        lines += [head, rule]
        for rid in ids:
            mine = [r for r in rows if r.id == rid]
            cells = [rid, f"{mine[0].duration:.1f}", str(mine[0].errors.ref_words)]
            for variant in variants:
                cells += _file_cells([r for r in mine if r.variant == variant])
            lines.append("| " + " | ".join(cells) + " |")
        first = [next(r for r in rows if r.id == i and r.run == 1) for i in ids]
        cells = ["**pooled**", f"{sum(r.duration for r in first):.1f}"]
        cells.append(str(sum(r.errors.ref_words for r in first)))
        for variant in variants:
            done = [r for r in rows if r.variant == variant and not r.failed]
            total = sum((r.errors for r in done), Errors())
            runs = max((r.run for r in rows if r.variant == variant), default=1)
            wall = sum(r.wall_s for r in rows if r.variant == variant) / runs
            cells += [
                f"**{pct(total.wer)}**",
                "/".join(f"{x / runs:.3g}" for x in (total.sub, total.dele, total.ins)),
                f"{wall:.0f}",
            ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--manifest", type=Path, action="append",
                        help="a manifest JSON (repeat; default: real and longform)")  # fmt: skip
    parser.add_argument("--variant", type=parse_variant, action="append",
                        help=f"NAME=ARGS for dictate transcribe (repeat; default "
                             f"{DEFAULT_VARIANT!r})")  # fmt: skip
    parser.add_argument("--dictate", help="the dictate command (default: the one beside this "
                        "Python, else python -m dictate)")  # fmt: skip
    parser.add_argument("--only", default="", help="comma-separated recording ids")
    parser.add_argument(
        "--through",
        choices=("transcribe", "window"),
        default="transcribe",
        help="window: the window's dictation path, fed in real time (bench gui)",
    )
    parser.add_argument("--runs", type=int, default=1,
                        help="runs of each file and variant (WER pooled, range shown)")  # fmt: skip
    parser.add_argument("--timeout", type=float, default=3600, help="seconds per file")
    parser.add_argument("--no-written-norm", action="store_true",
                        help="compare without the written-forms normalisation")  # fmt: skip
    parser.add_argument("--count-fillers", action="store_true",
                        help="count 'uh' and 'um' as words (the app writes none)")  # fmt: skip
    parser.add_argument("--json", type=Path, help="write every result (with hypotheses) here")
    parser.add_argument("--markdown", type=Path, help="also write the tables here")
    args = parser.parse_args(argv)

    manifests = args.manifest or [p for p in DEFAULT_MANIFESTS if p.is_file()]
    if not manifests:
        parser.error("no manifest: build them with benchmarks/real_recordings.py and "
                     "benchmarks/longform_set.py, or give --manifest")  # fmt: skip
    variants: list[tuple[str, list[str]]] = args.variant or [parse_variant(DEFAULT_VARIANT)]
    names = [name for name, _ in variants]
    if len(set(names)) != len(names):
        parser.error("variant names must differ")
    dictate = dictate_command(args.dictate)
    only = set(filter(None, args.only.split(",")))
    results: list[Result] = []
    for manifest in manifests:
        set_name, recordings = load_manifest(manifest)
        for rec in recordings:
            if only and rec["id"] not in only:
                continue
            ref = normalise(rec["text"], not args.no_written_norm, args.count_fillers)
            for run, (name, extra) in (
                (run, v) for run in range(1, args.runs + 1) for v in variants
            ):
                runner = through_window if args.through == "window" else transcribe
                text, wall, failed = runner(dictate, rec["wav"], extra, args.timeout)
                errors = align(ref, normalise(text, not args.no_written_norm, args.count_fillers))
                how = ["transcribe", rec["wav"]] if args.through == "transcribe" else [
                    "bench", "gui", rec["wav"]]  # fmt: skip
                command = [*dictate, *how, *extra]
                duration = float(rec["duration"])
                result = Result(
                    set_name,
                    rec["id"],
                    name,
                    duration,
                    wall,
                    errors,
                    text.strip(),
                    failed,
                    command,
                    run,
                )
                results.append(result)
                status = (
                    failed or f"WER {pct(errors.wer)} ({errors.sub}/{errors.dele}/{errors.ins})"
                )
                label = f"{set_name}/{rec['id']} [{name}]" + (
                    f" run {run}" if args.runs > 1 else ""
                )
                print(f"{label} {wall:.1f} s: {status}", file=sys.stderr)

    invoked = " ".join(
        shlex.quote(a) for a in [Path(sys.argv[0]).as_posix(), *(argv or sys.argv[1:])]
    )
    variant_lines = "\n".join(
        f"- `{name}`: `dictate transcribe FILE {shlex.join(extra)}`" for name, extra in variants
    )
    header = (
        f"# dictate transcribe: word error rate\n\n"
        f"Command: `{invoked}`\n\n"
        f"{datetime.datetime.now().isoformat(timespec='seconds')}, {platform.node()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}. "
        f"Variants:\n\n{variant_lines}\n\n"
        f"Normalisation: {'written forms, then ' if not args.no_written_norm else ''}lower case, "
        f"punctuation removed, hyphens split"
        f"{'' if args.count_fillers else ', uh and um left out'}. "
        f"Wall time includes start-up and model loading."
    )
    report = markdown(results, names, header)
    print(report)
    if args.markdown:
        args.markdown.write_text(report, encoding="utf-8")
    if args.json:
        rows = []
        for r in results:
            row = asdict(r)
            row["errors"] |= {"errors": r.errors.errors, "wer": r.errors.wer}
            rows.append(row)
        args.json.write_text(
            json.dumps({"manifests": [str(m) for m in manifests], "results": rows}, indent=1)
            + "\n",
            encoding="utf-8",
        )
    return 1 if any(r.failed for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
