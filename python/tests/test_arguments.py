"""Arguments of the wrong type or value raise a TypeError or ValueError
naming the argument, and a lone string is never taken for a list of
one-character lines (metrics.bleu("abc", "abc") used to score 3 lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

import quarry_code
from quarry_code import codeqa, metrics


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.py").write_text("import os\n")
    return tmp_path


def test_query_takes_str_bytes_and_path_like_paths(project):
    expected = quarry_code.query(str(project), select="unused-import")
    assert quarry_code.query(project, select="unused-import") == expected
    assert quarry_code.query(bytes(project), select="unused-import") == expected
    assert quarry_code.query([bytes(project)], select="unused-import") == expected


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"paths": None}, "paths must be a path or a sequence of paths, not NoneType"),
        ({"paths": [None]}, r"paths\[0\] must be a path"),
        ({"select": b"unused-import"}, "select must be a sequence of strings, not a single bytes"),
        ({"select": [None]}, r"select\[0\] must be str, not NoneType"),
        ({"negative": "yes"}, "negative must be a bool, not str"),
        ({"cache": 1}, "cache must be a bool, not int"),
        ({"time_budget": "5"}, "time_budget must be a number of seconds or None, not str"),
        ({"on_error": None}, "on_error must be str, not NoneType"),
        ({"config": 3}, "config must be a path"),
    ],
)
def test_query_names_the_argument_of_the_wrong_type(project, arguments, message):
    arguments.setdefault("paths", project)
    with pytest.raises(TypeError, match=message):
        quarry_code.query(**arguments)


@pytest.mark.parametrize(
    ("hyps", "refs", "message"),
    [
        ("the cat", ["the cat"], "hyps must be a sequence of strings, not a single str"),
        (["the cat"], "the cat", "refs must be a sequence of strings or of string sequences, not a single str"),
        (None, ["the cat"], "hyps must be a sequence of strings, not NoneType"),
        ([b"the cat"], ["the cat"], r"hyps\[0\] must be str, not bytes"),
        (["the cat"], [["the cat"], "the cat"], r"refs\[1\] must be a sequence of strings, not a single str"),
        (["a", None], ["a", "b"], r"hyps\[1\] must be str, not NoneType"),
    ],
)
def test_metrics_refuse_anything_but_lists_of_lines(hyps, refs, message):
    with pytest.raises(TypeError, match=message):
        metrics.bleu(hyps, refs)
    with pytest.raises(TypeError, match=message):
        metrics.score("rouge-l", hyps, refs)


def test_metric_options_name_the_option():
    with pytest.raises(TypeError, match="stem must be a bool"):
        metrics.rouge_l(["a"], ["a"], stem="yes")
    with pytest.raises(TypeError, match=r"weights\[0\] must be a number, not NoneType"):
        metrics.sentence_bleu(["a"], ["a"], weights=[None, 0.5])
    with pytest.raises(TypeError, match="smoothing must be str"):
        metrics.sentence_bleu(["a"], ["a"], smoothing=1)


def test_nlp_arguments_are_checked(nlp):
    with pytest.raises(TypeError, match=r"text must be str, not bytes \(decode it first\)"):
        nlp(b"Returns the value.")
    with pytest.raises(TypeError, match="texts must be an iterable of strings, not a single str"):
        list(nlp.pipe("Returns the value."))
    with pytest.raises(TypeError, match=r"texts\[2\] must be str, not NoneType"):
        list(nlp.pipe(["a", "b", None], batch_size=2))
    with pytest.raises(TypeError, match="batch_size must be an integer, not float"):
        list(nlp.pipe(["a"], batch_size=float("nan")))
    assert [d.text for d in nlp.pipe(["a", "b"], batch_size=10**30)] == ["a", "b"]
    with pytest.raises(TypeError, match="model_dir must be a path"):
        quarry_code.nlp.load(None)


def test_codeqa_pairs_arguments_are_checked(nlp):
    with pytest.raises(quarry_code.QuarryValueError, match="max_pairs must be at least 0, not -1"):
        codeqa.pairs("Returns the value.", nlp, -1)
    with pytest.raises(TypeError, match="comment must be str, not bytes"):
        codeqa.pairs(b"Returns the value.", nlp)
    assert codeqa.pairs("Returns the value.", nlp, 10**30) == codeqa.pairs("Returns the value.", nlp)
