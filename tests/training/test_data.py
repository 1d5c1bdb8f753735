"""Training data preparation: cleaning, spoken forms and label alignment, on small fixtures."""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import pytest

from dictate.punctuation.labels import PUNCT_TAGS
from dictate.training.data import (
    ALL_CAPS,
    CAPITALIZED,
    LOWER,
    NO_VARIATION,
    AsrNoise,
    LabelledText,
    Variation,
    add_asr_noise,
    case_label,
    clean_transcript,
    expand_symbols,
    is_validation,
    label_text,
    labelled_documents,
    noisy_reference,
    read_corpus,
    read_records,
    read_talks,
    spoken_form,
    validation_keys,
    write_validation,
)

O, COMMA, PERIOD, QUESTION = range(len(PUNCT_TAGS))  # noqa: E741 - the tag names


@pytest.mark.parametrize(
    ("token", "spoken"),
    [
        ("hello", ["hello"]),
        ("Hello", ["hello"]),
        ("1990", ["nineteen", "ninety"]),
        ("2008", ["two", "thousand", "eight"]),
        ("1905", ["nineteen", "oh", "five"]),
        ("1990s", ["nineteen", "nineties"]),
        ("80s", ["eighties"]),
        ("4,800", ["four", "thousand", "eight", "hundred"]),
        ("123", ["one", "hundred", "twenty", "three"]),
        ("3.5", ["three", "point", "five"]),
        ("21st", ["twenty", "first"]),
        ("9:30", ["nine", "thirty"]),
        ("9:05", ["nine", "oh", "five"]),
        ("9/11", ["nine", "eleven"]),
        ("10-15", ["ten", "to", "fifteen"]),
        ("CO2", ["co", "two"]),
        ("3D", ["three", "d"]),
        ("U.S", ["us"]),
        ("AT&T", ["at", "and", "t"]),
        ("don't", ["don't"]),
    ],
)
def test_spoken_form(token: str, spoken: list[str]) -> None:
    assert spoken_form(token) == spoken


@pytest.mark.parametrize(
    ("text", "expanded"),
    [
        ("It costs $5 million.", "It costs 5 million dollars."),
        ("about 50% of it", "about 50 percent of it"),
        ("#1 fan", "number 1 fan"),
        ("salt & pepper", "salt and pepper"),
        ("£3.50 each", "3.50 pounds each"),
        ("30°C", "30 degrees C"),
    ],
)
def test_expand_symbols(text: str, expanded: str) -> None:
    assert expand_symbols(text) == expanded


def test_clean_transcript() -> None:
    raw = (
        "Translator: Joe Smith Reviewer: Ann Lee\n"
        "I&#39;m here &amp;amp; &quot;ready&quot; --\n(Laughter)\n"
        "CA: So what? ♫ la la ♫\n(Applause)\n"
    )
    assert clean_transcript(raw) == 'I\'m here & "ready" -- So what? la la'


@pytest.mark.parametrize(
    ("word", "label"),
    [
        ("the", LOWER),
        ("The", CAPITALIZED),
        ("I", CAPITALIZED),
        ("NASA", ALL_CAPS),
        ("NASA's", ALL_CAPS),
        ("I'm", CAPITALIZED),
        ("iPhone", LOWER),
        ("42", LOWER),
    ],
)
def test_case_label(word: str, label: int) -> None:
    assert case_label(word) == label


def labelled(text: str, variation: Variation = NO_VARIATION) -> list[tuple[str, int, int]]:
    out = label_text(text, random.Random(0), variation)
    return list(zip(out.words, out.punct, out.case, strict=True))


def test_labels_follow_the_words_and_the_iwslt_convention() -> None:
    assert labelled("Hi, I'm Ann; and you? Fine: thanks -- really! NASA.") == [
        ("hi", COMMA, CAPITALIZED),
        ("i'm", O, CAPITALIZED),
        ("ann", PERIOD, CAPITALIZED),
        ("and", O, LOWER),
        ("you", QUESTION, LOWER),
        ("fine", COMMA, CAPITALIZED),
        ("thanks", COMMA, LOWER),
        ("really", PERIOD, LOWER),
        ("nasa", PERIOD, ALL_CAPS),
    ]


def test_punctuation_goes_to_the_last_spoken_word() -> None:
    assert labelled("It was 1990, or $5.") == [
        ("it", O, CAPITALIZED),
        ("was", O, LOWER),
        ("nineteen", O, LOWER),
        ("ninety", COMMA, LOWER),
        ("or", O, LOWER),
        ("five", O, LOWER),
        ("dollars", PERIOD, LOWER),
    ]


def test_a_sentence_starting_with_a_number_starts_with_a_capital() -> None:
    assert labelled("Yes. 20 people came.")[1] == ("twenty", O, CAPITALIZED)


def test_abbreviation_dots_are_not_sentence_ends() -> None:
    words = labelled("Mr. Smith went to the U.S. and came back. Then Dr. Who.")
    assert ("mr", O, CAPITALIZED) in words
    assert ("us", O, ALL_CAPS) in words
    assert ("back", PERIOD, LOWER) in words
    assert words[-1] == ("who", PERIOD, CAPITALIZED)


def test_contractions_split_like_iwslt() -> None:
    words = labelled("I don't know.", Variation(keep_digits=0.0, split_contractions=1.0))
    assert words == [
        ("i", O, CAPITALIZED),
        ("don", O, LOWER),
        ("'t", O, LOWER),
        ("know", PERIOD, LOWER),
    ]


def test_digits_can_be_kept() -> None:
    words = labelled("In 1990.", Variation(keep_digits=1.0, split_contractions=0.0))
    assert words == [("in", O, CAPITALIZED), ("1990", PERIOD, LOWER)]


def test_text_without_words() -> None:
    assert labelled("-- ... ♫") == []


def test_read_talks(tmp_path: Path) -> None:
    path = tmp_path / "talks.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.write(json.dumps({"id": "a", "text": "One."}) + "\n\n")
        out.write(json.dumps({"id": "b", "text": "Two?"}) + "\n")
    assert list(read_talks(path)) == ["One.", "Two?"]


def test_asr_noise_keeps_labels_aligned_and_rates_near_the_setting() -> None:
    text = label_text(
        "We went home. Then, we slept well! Did you? Paris was far. " * 200, random.Random(0)
    )
    vocabulary = ["uh", "the", "and", "bread"]
    noisy = add_asr_noise(text, random.Random(1), AsrNoise(rate=0.15), vocabulary)
    assert len(noisy.words) == len(noisy.punct) == len(noisy.case)
    # About 15% of the words changed: substitutions, deletions and insertions together.
    changed = sum(1 for a, b in zip(text.words, noisy.words, strict=False) if a != b)
    assert 0.05 * len(text) < changed
    assert abs(len(noisy) - len(text)) < 0.05 * len(text)
    # Sentence ends survive (only a sentence whose every word was deleted is gone), and every
    # sentence still starts with a capital.
    ends = [i for i, p in enumerate(noisy.punct) if p in (2, 3)]
    assert 0.99 * len([p for p in text.punct if p in (2, 3)]) <= len(ends)
    for i in ends[:-1]:
        assert noisy.case[i + 1] != 0, (noisy.words[i : i + 2], noisy.case[i + 1])
    assert add_asr_noise(text, random.Random(1), AsrNoise(rate=0.0), vocabulary).words == (
        text.words
    )
    assert len(add_asr_noise(LabelledText(), random.Random(1), AsrNoise(), vocabulary)) == 0


def test_labelled_documents_mix_ted_and_corpora_and_refuse_heldout(tmp_path: Path) -> None:
    def write(path: Path, texts: list[str]) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        with gzip.open(path, "wt", encoding="utf-8") as out:
            for i, text in enumerate(texts):
                out.write(json.dumps({"id": str(i), "text": text}) + "\n")
        return path

    sentence = "We met at the station. It was late, and we were tired! Were you there? "
    talks = write(tmp_path / "ted" / "talks.jsonl.gz", [f"(Laughter) {sentence * 3}"] * 4)
    fiction = write(tmp_path / "corpora" / "fiction.jsonl.gz", [f'"{sentence}" she said.'] * 200)
    docs = list(labelled_documents(talks, 0, Variation(), {fiction: 0.25}))
    ted, rest = docs[:4], docs[4:]
    assert all("laughter" not in d.words for d in ted)  # TED transcripts are cleaned
    assert 25 < len(rest) < 75  # about a quarter of the 200 documents
    assert rest[0].words[:2] == ["we", "met"]  # the quotation mark is gone, labels aligned
    noisy = list(labelled_documents(talks, 0, Variation(), {fiction: 1.0}, AsrNoise(rate=0.3)))
    assert any(d.words != c.words for d, c in zip(noisy, docs, strict=False))
    # The noise rate changes the words of noisy documents, never which documents are kept:
    # the mixture is the same whatever rate is being tuned (it was not, with one shared stream).
    distinct = write(
        tmp_path / "corpora" / "numbered.jsonl.gz",
        [f"Document {i} begins here. {sentence}" for i in range(200)],
    )
    kept = []
    for rate in (0.0, 0.08, 0.3):
        noise = AsrNoise(rate=rate, documents=0.5) if rate else None
        kept.append(len(list(labelled_documents(talks, 0, Variation(), {distinct: 0.25}, noise))))
    assert kept[0] > 4 and kept == [kept[0]] * 3
    heldout = write(tmp_path / "corpora" / "heldout" / "x.heldout.jsonl.gz", [sentence])
    with pytest.raises(ValueError, match="held out"):
        list(labelled_documents(talks, 0, Variation(), {heldout: 1.0}))


@pytest.mark.slow  # over 0.7 s: the fast lane stays under a minute
def test_validation_split_is_stable_kept_out_of_training_and_written(tmp_path: Path) -> None:
    path = tmp_path / "corpora" / "essays.jsonl.gz"
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for i in range(3000):
            out.write(
                json.dumps(
                    {
                        "id": f"doc-{i}",
                        "text": f"Essay number {i} is here, and it says very little at all.",
                    }
                )
                + "\n"
            )
    chosen = {r["id"] for r in read_records(path) if is_validation(r)}
    assert 10 <= len(chosen) <= 55  # about 1% of 3,000
    assert chosen == {r["id"] for r in read_records(path) if is_validation(r)}  # same every time
    trained = list(read_corpus(path))
    assert len(trained) == 3000 - len(chosen)
    assert not any(f"Essay number {i.split('-')[1]} " in t for i in chosen for t in trained)
    (written,) = write_validation([path], tmp_path / "validation")
    assert written.name == "essays.heldout.jsonl.gz"  # the format `dictate eval registers` reads
    assert {r["id"] for r in read_records(written)} == chosen
    talks = tmp_path / "ted" / "talks.jsonl.gz"
    talks.parent.mkdir()
    with gzip.open(talks, "wt", encoding="utf-8") as out:
        out.write(json.dumps({"text": "One talk about the sea and the ships. " * 5}) + "\n")
    docs = list(labelled_documents(talks, 0, Variation(), {path: 1.0}))
    assert len(docs) == 1 + len(trained)  # the validation documents are not among them


def test_asr_noise_only_on_the_chosen_share_of_documents(tmp_path: Path) -> None:
    talks = tmp_path / "talks.jsonl.gz"
    text = "We met at the station and it was late and we were tired of it all. " * 4
    with gzip.open(talks, "wt", encoding="utf-8") as out:
        for _ in range(400):
            out.write(json.dumps({"text": text}) + "\n")
    clean = list(labelled_documents(talks, 0, Variation()))
    noisy = list(labelled_documents(talks, 0, Variation(), noise=AsrNoise(0.3, documents=0.5)))
    changed = sum(a.words != b.words for a, b in zip(clean, noisy, strict=True))
    assert 150 < changed < 250  # about half the documents
    with pytest.raises(ValueError):
        AsrNoise(documents=1.5)


def test_noisy_reference_keeps_tags_aligned_and_refuses_test_sets(tmp_path: Path) -> None:
    from dictate.training.noisy_reference import main

    words = ("so we went home then it rained did it rain yes it did " * 200).split()
    tags = ["O", "O", "O", "COMMA", "O", "O", "PERIOD", "O", "O", "QUESTION", "COMMA", "O"]
    tags = [*tags, "PERIOD"] * 200
    vocabulary = ["the", "a", "of"]
    noisy_words, noisy_tags = noisy_reference(words, tags, AsrNoise(0.2), 3, vocabulary)
    assert len(noisy_words) == len(noisy_tags) and noisy_words != words
    assert 0.8 * len(words) < len(noisy_words) < 1.2 * len(words)
    assert noisy_tags.count("QUESTION") >= 0.85 * tags.count("QUESTION")
    assert noisy_reference(words, tags, AsrNoise(0.0), 3, vocabulary) == (words, tags)
    dev = tmp_path / "test2011.tsv"
    dev.write_text("hello\tO\nthere\tPERIOD\n")
    with pytest.raises(SystemExit):
        main([str(dev), str(tmp_path / "out.tsv"), "--talks", str(dev)])


def test_a_file_of_few_long_documents_still_gives_one_validation_document(tmp_path: Path) -> None:
    """75 books at 1% gave no non-fiction validation text for model 2; now the lowest hash is
    taken when the share picks none, and that book is kept out of training."""

    path = tmp_path / "corpora" / "books.jsonl.gz"
    path.parent.mkdir(parents=True)
    books = [{"id": f"book-{i}", "text": f"Book {i} begins here. It ends here."} for i in range(5)]
    assert not any(is_validation(book) for book in books)  # the share alone picks none
    with gzip.open(path, "wt", encoding="utf-8") as out:
        out.writelines(json.dumps(book) + "\n" for book in books)
    (chosen,) = validation_keys(path)
    assert chosen in {book["id"] for book in books}
    assert validation_keys(path) == {chosen}  # the same book every time
    trained = list(read_corpus(path))
    assert len(trained) == 4
    assert all(not text.startswith(f"Book {chosen.split('-')[1]} ") for text in trained)
    (written,) = write_validation([path], tmp_path / "validation")
    assert [r["id"] for r in read_records(written)] == [chosen]
