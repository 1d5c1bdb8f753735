"""The vocabulary's rewrites after recognition: followed from the segment to the finalized
sentence (dictate/editing/rewrites.py), an undo step of their own in the buffer, and the words
heard kept beside the words written in the history and the kept audio's links."""

from __future__ import annotations

from pathlib import Path

from dictate.asr.engine import Word
from dictate.editing.audio_links import AudioLinks
from dictate.editing.buffer import DictationBuffer
from dictate.editing.history import History, read_history
from dictate.editing.journal import Journal
from dictate.editing.journal_replay import replay
from dictate.editing.rewrites import KEEP, RewriteTrail, as_heard, find_rewrites
from dictate.events import Event, Finalized
from dictate.seam.segment import ClosedSegment, settle
from dictate.seam.vocabulary import VocabularyRefiner
from dictate.text.stage import TextStage
from dictate.writing.vocabulary import parse_entry
from dictate.writing.vocabulary_match import VocabularyMatcher


def test_the_refiner_says_what_it_rewrote_and_the_segment_event_carries_it() -> None:
    matcher = VocabularyMatcher([parse_entry("TensorRT = tensor r t"), parse_entry("metoprolol")])
    words = "we run tensor r t with metoprolo daily".split()
    timed = [Word(w, float(i), i + 0.5) for i, w in enumerate(words)]
    settled = settle(ClosedSegment(3, 0.0, 8.0, "silence", timed), [VocabularyRefiner(matcher)])
    assert [w.text for w in settled.words] == "we run TensorRT with metoprolol daily".split()
    event = settled.event(0.0)
    assert event.rewrites == [["TensorRT", "tensor r t"], ["metoprolol", "metoprolo"]]
    # Nothing rewritten: no rewrites, and none left over from the segment before.
    plain = [Word("hello", 0.0, 0.5)]
    refiner = VocabularyRefiner(matcher)
    settle(ClosedSegment(1, 0.0, 8.0, "silence", timed), [refiner])
    again = settle(ClosedSegment(2, 0.0, 1.0, "silence", plain), [refiner])
    assert again.event(0.0).rewrites is None


def test_rewrites_are_found_by_their_written_form_in_order_whole_words() -> None:
    text = "TensorRT beats tensorrtx; we use TensorRT."
    found = find_rewrites(text, [("TensorRT", "tensor r t"), ("TensorRT", "tensor rt")])
    assert [(r.start, r.heard) for r in found] == [(0, "tensor r t"), (33, "tensor rt")]
    assert as_heard(text, found) == "Tensor r t beats tensorrtx; we use tensor rt."
    # At a sentence start the entry's first letter was capitalised: still found.
    assert find_rewrites("Metoprolol daily.", [("metoprolol", "meadow pearl")])[0].written == (
        "Metoprolol"
    )
    assert find_rewrites("no such word", [("metoprolol", "meadow pearl")]) == []


def test_the_trail_gives_each_finalized_sentence_its_rewrites_and_waits_for_the_rest() -> None:
    trail = RewriteTrail()
    trail.add([["Dr. Nguyen", "doctor win"]])
    trail.add([["metoprolol", "metoprolo"]])
    first = trail.finalized(["Ask Dr. Nguyen today."])
    assert [[(r.written, r.heard) for r in s] for s in first] == [[("Dr. Nguyen", "doctor win")]]
    assert trail.finalized(["Nothing here."]) == [[]]  # the other is still pending
    second = trail.finalized(["Take it.", "Metoprolol daily."])
    assert [[r.heard for r in s] for s in second] == [[], ["metoprolo"]]
    assert trail.finalized(["Metoprolol again."]) == [[]]  # each rewrite is found once
    for _ in range(KEEP + 5):  # a rewrite whose words were scratched never comes: bounded
        trail.add([["metoprolol", "x"]])
    assert len(trail._waiting) == KEEP
    trail.reset()
    assert trail.finalized(["Metoprolol."]) == [[]]


def test_a_rewrite_is_an_undo_step_of_its_own(tmp_path: Path) -> None:
    journal = tmp_path / "j.jsonl"
    buffer = DictationBuffer(Journal(journal))
    buffer.load("Intro.")
    buffer.finalize(["We ran TensorRT with Dr. Nguyen."], pending="")
    written = buffer.text
    assert buffer.split_rewrites([("TensorRT", "tensor r t"), ("Dr. Nguyen", "doctor win")]) == 2
    assert buffer.text == written  # the text does not change
    buffer.undo()
    assert buffer.text == "Intro. We ran TensorRT with doctor win."
    buffer.undo()
    assert buffer.text == "Intro. We ran tensor r t with doctor win."
    got = replay(journal)  # each undo is journaled: a crash now recovers what is shown
    assert got is not None and got.text == buffer.text
    buffer.undo()
    assert buffer.text == "Intro."
    for _ in range(3):
        buffer.redo()
    assert buffer.text == written
    # Nothing to split: the last step is not dictation, or the entry is not in it.
    buffer.replace(len(buffer.text), len(buffer.text), "!")
    assert buffer.split_rewrites([("TensorRT", "tensor r t")]) == 0
    buffer.finalize(["Plain words."], pending="")
    assert buffer.split_rewrites([("TensorRT", "tensor r t")]) == 0
    buffer.undo()
    assert not buffer.text.endswith("Plain words.")


def test_the_history_and_the_links_keep_the_words_heard(tmp_path: Path) -> None:
    history = History(tmp_path / "history.jsonl")
    history.add("We ran TensorRT.", heard="We ran tensor r t.")
    history.add("Plain.", heard="Plain.")  # the same: not kept twice
    entries = read_history(history.path).entries
    assert [(e.text, e.heard) for e in entries] == [
        ("We ran TensorRT.", "We ran tensor r t."),
        ("Plain.", ""),
    ]
    links = AudioLinks(tmp_path / "audio").load()
    links.append({"op": "session", "session": "s1"})
    links.append({"op": "link", "session": "s1", "start": 1.0, "end": 2.0,
                  "text": "We ran TensorRT.", "heard": "We ran tensor r t."})  # fmt: skip
    links.append({"op": "session", "session": "s2"})
    links.forget(["s2"])  # rewritten without s2: the words heard stay
    links.close()
    again = AudioLinks(tmp_path / "audio").load()
    assert again.links[0].heard == "We ran tensor r t."
    # Found by the words written, and by the words heard (after an undo gave them back).
    assert again.find("We ran TensorRT.", 3) and again.find("We ran tensor r t.", 3)
    assert again.find("We ran tensor.", 3) == []
    again.close()


def test_the_text_stage_says_each_finalized_sentence_s_rewrites_and_how_it_was_heard() -> None:
    """Found once, where sentences are made (the window's undo steps, its history and the kept
    audio's links all read them from the event); a run's unfound rewrites end with it."""
    events: list[Event] = []
    stage = TextStage(None, events.append)  # no punctuator: each segment's words are final
    stage.segment(1, "we ran TensorRT".split(), rewrites=[("TensorRT", "tensor r t")])
    stage.segment(2, "with Dr. Nguyen".split(), rewrites=[("Dr. Nguyen", "doctor win")])
    stage.segment(3, "and nothing else".split(), rewrites=[("metoprolol", "meadow pearl")])
    stage.finish(3)
    finals = [e for e in events if isinstance(e, Finalized)]
    with_rewrites = [e for e in finals if e.rewrites]
    assert [e.rewrites for e in with_rewrites] == [
        [[["TensorRT", "tensor r t"]]],
        [[["Dr. Nguyen", "doctor win"]]],
    ]
    assert [e.heard for e in with_rewrites] == [["we ran tensor r t"], ["with doctor win"]]
    assert all(e.heard is None and e.rewrites is None for e in finals if not e.rewrites)
    stage.segment(4, "metoprolol now".split())  # the next run: the unfound one is gone
    stage.finish(4)
    assert [e for e in events[len(finals) :] if isinstance(e, Finalized) and e.rewrites] == []
