"""The analysis and printed report of ``dictate bench latency``: each sentence of a run with
its times after its end of speech (see :mod:`dictate.bench.latency` for what a sentence is
and what each time measures), and the summaries, targets and report."""

from __future__ import annotations

import itertools
import statistics
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Stamped:
    """An event, when the pipeline emitted it and when the window had applied it."""

    event: Any
    emitted: float
    applied: float


@dataclass
class Run:
    """One run of a recording into the window, as the report reads it."""

    target: str
    t0: float
    records: list[Stamped]
    lateness: list[float]
    engine: str
    provider: str
    text: str
    received: list[tuple[float, str]] = field(default_factory=list)
    typing_backend: str = ""


PARTIAL_TARGET_MS = 150.0
"""Partial words shown at most this long after the recogniser reported them."""
FINAL_MARGIN_MS = 200.0
"""Final text shown at most ``commit_after_ms`` + this (95th percentile)."""


def _norm(text: str) -> str:
    """Text as typed, compared without spaces and case (the typist fits both to the text
    before it)."""
    return "".join(text.split()).lower()


def _joined(records: list[Stamped]) -> str:
    """The text of the :class:`Finalized` events among ``records`` (a mark appended to words
    committed open goes right after them)."""
    from dictate.events import Finalized

    text = ""
    for r in records:
        if isinstance(r.event, Finalized):
            for sentence in r.event.sentences:
                joins = not text or (sentence[:1] in ".,;:!?" and r.event.continues)
                text += sentence if joins else " " + sentence
    return text


def sentences_of(run: Run, commit_after: float) -> list[dict[str, Any]]:
    """Each sentence of ``run`` (see :mod:`dictate.bench.latency`) with its times in
    milliseconds after its end of speech."""
    from dictate.events import Finalized, Finished, Live, Partial, Pending, Segment

    records = run.records
    segments = [
        (i, r.event)
        for i, r in enumerate(records)
        if isinstance(r.event, Segment) and r.event.words
    ]
    stretches: list[list[tuple[int, Any]]] = []
    for index, segment in segments:
        if stretches and segment.start - stretches[-1][-1][1].end <= commit_after:
            stretches[-1].append((index, segment))
        else:
            stretches.append([(index, segment)])
    finished = next(i for i, r in enumerate(records) if isinstance(r.event, Finished))
    results = []
    for number, stretch in enumerate(stretches):
        last_index, last = stretch[-1]
        ids = {s.segment for _, s in stretch}
        ends_at = stretches[number + 1][0][0] if number + 1 < len(stretches) else finished
        end = run.t0 + last.end

        def ms(wall: float, end: float = end) -> float:
            return round(1000 * (wall - end), 1)

        partials = [r for r in records if isinstance(r.event, Partial) and r.event.segment in ids]
        last_partial = partials[-1] if partials else None
        last_words = last_partial.event.words if last_partial else None
        covering = next(
            (
                r
                for r in records
                if (isinstance(r.event, Pending) and r.event.segment >= last.segment)
                or (
                    # The live punctuation of the last partial words (partial words can come
                    # back to an earlier result: only a Live made after it counts).
                    isinstance(r.event, Live)
                    and r.event.segment == last.segment
                    and last_partial is not None
                    and r.event.words == last_words
                    and r.emitted >= last_partial.emitted
                )
            ),
            None,
        )
        # What completes it: the commit after its pause; else (not committed) the last text
        # finalized before the next sentence, which may be the end of the run's flush. A mark a
        # commit left open gets later (with the next words, or at the end) is not waited for.
        finals = [
            i
            for i in range(last_index, ends_at)
            if isinstance(records[i].event, Finalized) and records[i].event.sentences
        ]
        final_index = next((i for i in finals if records[i].event.committed), None)
        if final_index is None and finals:
            final_index = finals[-1]
        final = records[final_index] if final_index is not None else None
        row: dict[str, Any] = {
            "sentence": number + 1,
            "speech_end_s": round(last.end, 3),
            "segments": len(stretch),
            "words": " ".join(w.text for _, s in stretch for w in s.words),
            "segment_closed_ms": ms(records[last_index].emitted),
            "partial_ms": ms(last_partial.applied) if last_partial else None,
            "pending_ms": ms(covering.applied) if covering else None,
            "pending_by": type(covering.event).__name__.lower() if covering else None,
            "final_ms": ms(final.applied) if final else None,
            "final_emitted_ms": ms(final.emitted) if final else None,
            "committed": bool(final and final.event.committed),
            "text": _joined(records[stretch[0][0] : ends_at]),
        }
        if run.target == "apps" and final_index is not None:
            # Typed when the receiver holds everything finalized up to this sentence's end.
            typed = _norm(_joined(records[: final_index + 1]))
            arrived = next(
                (stamp for stamp, text in run.received if _norm(text).startswith(typed)), None
            )
            row["typed_ms"] = ms(arrived) if arrived is not None else None
            began = next(
                (stamp for stamp, _ in run.received if stamp >= records[final_index].emitted), None
            )
            row["typed_first_ms"] = ms(began) if began is not None else None
        results.append(row)
    for before, row in itertools.pairwise(results):
        # A mark decided for words a commit left open, once the next words came, is the
        # previous sentence's.
        mark = row["text"][: len(row["text"]) - len(row["text"].lstrip(".,;:!? "))]
        if mark.strip():
            before["text"] += mark.rstrip()
            row["text"] = row["text"][len(mark) :]
    return results


def partial_to_shown(run: Run) -> list[float]:
    """Milliseconds from the pipeline emitting each partial result to the window having
    applied it."""
    from dictate.events import Partial

    return [
        round(1000 * (r.applied - r.emitted), 1)
        for r in run.records
        if isinstance(r.event, Partial)
    ]


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile, interpolated between the nearest ranks (the largest value with one
    sample)."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    position = q * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def summary(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "median": None, "p95": None, "max": None}
    return {
        "n": len(values),
        "median": round(statistics.median(values), 1),
        "p95": round(percentile(values, 0.95), 1),
        "max": round(max(values), 1),
    }


def _cell(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def format_latency(result: dict[str, Any]) -> str:
    """The printed report."""
    lines = [
        f"audio: {result['audio']} ({result['audio_seconds']} s"
        + (
            f", {len(result['spoken'])} sentences, {result['gap_ms']} ms silence after each)"
            if result["spoken"]
            else ")"
        ),
        f"engine: {result['engine']}; second pass: {result.get('second_pass', 'off')}; "
        f"punctuation on {result['punctuation_provider']}; "
        f"commit after {result['commit_after_ms']} ms",
        f"clock: {result['clock']}",
        f"block lateness (the pipeline's audio thread behind real time): median "
        f"{_cell(result['block_lateness_ms']['median'])} ms, max "
        f"{_cell(result['block_lateness_ms']['max'])} ms",
        "",
        "per sentence, ms after its end of speech (segment closed / partial shown / punctuated "
        "pending shown / final in window / typed):",
    ]
    for r in result["sentences"]:
        lines.append(
            f"  run {r['run']} #{r['sentence']}: {_cell(r['segment_closed_ms'])} / "
            f"{_cell(r['partial_ms'])} / {_cell(r['pending_ms'])} ({r['pending_by'] or '-'}) / "
            f"{_cell(r['final_ms'])} / {_cell(r.get('typed_ms'))}"
            f"{'' if r['committed'] else '  NOT COMMITTED (final only at the end of the run)'}"
            f"  {r['text']!r}"
        )
    s, t = result["summary"], result["targets"]
    names = [
        ("segment_closed_ms", "segment closed (recogniser's final words)", ""),
        ("partial_ms", "last partial words shown", ""),
        (
            "partial_to_shown_ms",
            "partial: recogniser -> shown in window",
            f"<= {t['partial_to_shown_ms']:g}",
        ),
        ("pending_ms", "punctuated pending words shown", ""),
        ("final_ms", "final text in the window", f"p95 <= {t['final_ms_p95']:g}"),
        ("typed_first_ms", "its first character typed into another app", ""),
        ("typed_ms", "final text typed into another app", f"p95 <= {t['final_ms_p95']:g}"),
    ]
    lines += ["", f"{'':44} {'median':>8} {'p95':>8} {'max':>8} {'n':>4}  target"]
    for key, name, target in names:
        v = s[key]
        if key == "typed_first_ms" and result["typed"] != "measured":
            continue
        if key == "typed_ms" and result["typed"] != "measured":
            lines.append(f"{name:44} {result['typed']}")
            continue
        lines.append(
            f"{name:44} {_cell(v['median']):>8} {_cell(v['p95']):>8} {_cell(v['max']):>8} "
            f"{v['n']:>4}  {target}"
        )
    verdict = result["verdict"]

    def word(ok: bool | None) -> str:
        return "not measured" if ok is None else "met" if ok else "MISSED"

    lines += [
        "",
        f"targets: partial words shown <= {t['partial_to_shown_ms']:g} ms after the recogniser "
        f"reports them: {word(verdict['partial_to_shown'])} (p95); final text <= "
        f"{t['final_ms_p95']:g} ms (commit after + {FINAL_MARGIN_MS:g}) at p95: in the window "
        f"{word(verdict['final'])}, typed {word(verdict['typed'])}",
        f"every sentence committed by its pause: {'yes' if verdict['all_committed'] else 'NO'}",
        "p95: interpolated between the nearest ranks (with a handful of sentences it is close "
        "to the largest); times are taken after the window's handle_event returned (offscreen: "
        "no painting) and, typed, when the receiving window's text changed",
    ]
    if result["typing_backend"]:
        lines.append(f"typing backend: {result['typing_backend']}")
    return "\n".join(lines)
