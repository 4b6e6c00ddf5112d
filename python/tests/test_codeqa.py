"""quarry_code.codeqa.pairs against `quarry codeqa qa` on the same comments."""

import json

import pytest

import quarry_code
from conftest import jsonl

COMMENTS = [
    "Returns the number of lines in the given file.",
    "Open the connection to the database and return a cursor.",
    "This function checks whether the user is logged in.",
    "Decorator which caches the result of a function.",
    ":param x: the value",
    "",
]


def test_pairs_equal_the_cli(nlp, model_dir, run_cli, tmp_path):
    comments = tmp_path / "comments.jsonl"
    comments.write_text("".join(json.dumps({"comment": c}) + "\n" for c in COMMENTS))
    lines = jsonl(run_cli("codeqa", "qa", "--parser", model_dir, "--comments", str(comments)))
    assert len(lines) == len(COMMENTS)
    for comment, line in zip(COMMENTS, lines):
        assert quarry_code.codeqa.pairs(comment, nlp) == line["pairs"], comment
    first = quarry_code.codeqa.pairs(COMMENTS[0], nlp)
    assert first and set(first[0]) == {"question", "answer", "kind", "rule"}
    assert len(quarry_code.codeqa.pairs(COMMENTS[1], nlp, max_pairs=1)) <= 1


def test_pairs_need_a_pipeline():
    with pytest.raises(TypeError, match="quarry_code.nlp.Language"):
        quarry_code.codeqa.pairs("Returns x.", None)
