"""quarry_code.nlp against `quarry nlp parse --format json`; spaCy's
attribute names; errors; the GIL released while a batch is analysed."""

from __future__ import annotations

import threading
import time

import pytest

import quarry_code
from conftest import jsonl

TEXTS = [
    "Returns the number of lines in the given file.",
    "Open the file, read it and close it. Then return its contents!",
    "If the cache is empty, the value is computed again by the worker.",
    "Über naïve café owners didn't pay $3.50 for U.S. stamps.",
    "",
    "Convert a string to an int    with  spaces.",
]


def test_parses_equal_the_cli(nlp, model_dir, run_cli, tmp_path):
    source = tmp_path / "texts.txt"
    source.write_text("\n".join(TEXTS) + "\n")
    expected = jsonl(run_cli("nlp", "parse", "--model", model_dir, "--file", str(source), "--format", "json"))
    docs = list(nlp.pipe(TEXTS, batch_size=4))
    assert len(docs) == len(expected) == len(TEXTS)
    for doc, want in zip(docs, expected):
        assert doc.text == want["text"]
        got = [
            {
                "text": t.text,
                "whitespace": t.whitespace_,
                "tag": t.tag_,
                "pos": t.pos_,
                "morph": t.morph,
                "lemma": t.lemma_,
                "head": t.head.i,
                "dep": t.dep_,
                "sent_start": t.is_sent_start,
            }
            for t in doc
        ]
        assert got == want["tokens"]


def test_tokens_have_spacys_attributes_and_tree(nlp):
    doc = nlp("The old man opened the heavy door. He left.")
    assert [t.i for t in doc] == list(range(len(doc)))
    assert "".join(t.text_with_ws for t in doc) == doc.text
    root = next(t for t in doc if t.dep_ == "ROOT")
    assert root.head == root and root.text == "opened" and root.lemma_ == "open"
    assert {c.text for c in root.children} >= {"man", "door", "."}
    assert [t.text for t in root.children[0].subtree] == ["The", "old", "man"]
    assert all(c.head == root for c in root.children)
    assert [s.text for s in doc.sents] == ["The old man opened the heavy door.", "He left."]
    assert doc.sents[1].root.text == "left" and doc[-1].text == "."
    assert doc[8].is_sent_start and not doc[1].is_sent_start
    assert doc[8].idx == doc.text.index("He")


def test_to_json_has_spacys_form(nlp):
    doc = nlp("Über cafés close. Yes.")
    data = doc.to_json()
    assert data["text"] == doc.text
    assert data["sents"] == [{"start": s.start_char, "end": s.end_char} for s in doc.sents]
    for token, item in zip(doc, data["tokens"]):
        assert item == {
            "id": token.i,
            "start": token.idx,
            "end": token.idx + len(token),
            "tag": token.tag_,
            "pos": token.pos_,
            "morph": token.morph,
            "lemma": token.lemma_,
            "dep": token.dep_,
            "head": token.head.i,
        }
        assert doc.text[item["start"] : item["end"]] == token.text


def test_batch_size_does_not_change_the_docs(nlp):
    texts = TEXTS * 3
    one = [d.to_json() for d in nlp.pipe(texts, batch_size=1)]
    assert one == [d.to_json() for d in nlp.pipe(iter(texts), batch_size=1000)]
    with pytest.raises(quarry_code.QuarryValueError, match="batch_size"):
        list(nlp.pipe(texts, batch_size=0))


def test_loading_a_missing_model_is_an_os_error_naming_it(tmp_path):
    with pytest.raises(quarry_code.QuarryOSError, match="config.cfg") as raised:
        quarry_code.nlp.load(tmp_path)
    assert isinstance(raised.value, OSError)


def test_a_corrupt_model_file_is_a_value_error_naming_it(model_dir, tmp_path):
    import shutil

    copy = tmp_path / "model"
    shutil.copytree(model_dir, copy)
    (copy / "config.cfg").write_text("[nlp]\nlang = \"en\"\npipeline = [\"no_such_component\"]\n")
    with pytest.raises(quarry_code.QuarryError, match="config.cfg"):
        quarry_code.nlp.load(copy)


def test_a_text_too_long_is_a_value_error(nlp):
    with pytest.raises(quarry_code.QuarryValueError, match="text 1 of the batch"):
        list(nlp.pipe(["fine", "x" * 1_000_001]))


def test_two_threads_parse_concurrently_without_holding_the_gil(nlp):
    texts = [TEXTS[i % 4] for i in range(600)]
    expected = [d.to_json() for d in nlp.pipe(texts[:8])]
    calls = []
    results = {}

    def work(name):
        started = time.perf_counter()
        docs = list(nlp.pipe(texts, batch_size=len(texts)))  # one native call
        calls.append((started, time.perf_counter()))
        results[name] = [d.to_json() for d in docs[:8]]

    workers = [threading.Thread(target=work, args=(n,)) for n in ("a", "b")]
    beats = []
    for w in workers:
        w.start()
    while any(w.is_alive() for w in workers):
        beats.append(time.perf_counter())
        time.sleep(0.001)
    for w in workers:
        w.join()
    assert results["a"] == results["b"] == expected
    # While a batch is analysed, this thread keeps running: the GIL is free.
    start, end = min(c[0] for c in calls), max(c[1] for c in calls)
    middle = (start + (end - start) * 0.25, end - (end - start) * 0.25)
    inside = [b for b in beats if middle[0] <= b <= middle[1]]
    assert len(inside) >= 20, f"main thread ran {len(inside)} times during {end - start:.3f}s of parsing"
