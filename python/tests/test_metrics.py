"""quarry_code.metrics against `quarry metrics NAME --format json` on the same lines."""

from __future__ import annotations

import json

import pytest

import quarry_code
from quarry_code import metrics

HYPS = ["the cat sat on the mat", "a quick brown fox", "returns the value", "Yes", "open the file"]
REFS = ["the cat is on the mat", "the quick brown fox jumps", "return the value", "No", "opens a file"]
REFS2 = ["a cat sat on a mat", "quick brown foxes", "the value", "yes", "open file"]
LABELS = (["a", "b", "a", "c", "b"], ["a", "b", "b", "c", "a"])
LINES = (["3,5-7", "1", "2-4", "", "9"], ["3,5-6", "1", "2-4", "1", "8,9"])
SPANS = (["10-14 20-31", "0-3", "5-9", "1-2", "7-8"], ["10-14 20-31", "0-4", "5-9", "1-2", "8-9"])

CASES = {
    "bleu": (HYPS, [REFS, REFS2]),
    "sentence-bleu": (HYPS, [REFS, REFS2]),
    "codeqa-bleu": (HYPS, [REFS]),
    "rouge-l": (HYPS, [REFS, REFS2]),
    "codeqa-rouge-l": (HYPS, [REFS]),
    "meteor": (HYPS, [REFS]),
    "em": (HYPS, [REFS, REFS2]),
    "f1": (HYPS, [REFS, REFS2]),
    "codeqa-em": (HYPS, [REFS]),
    "codeqa-f1": (HYPS, [REFS]),
    "accuracy": (LABELS[0], [LABELS[1]]),
    "macro-f1": (LABELS[0], [LABELS[1]]),
    "line-em": (LINES[0], [LINES[1]]),
    "line-f1": (LINES[0], [LINES[1]]),
    "span-em": (SPANS[0], [SPANS[1]]),
}


def write(path, lines):
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_every_metric_has_a_function():
    for name, _help in metrics.names():
        assert callable(getattr(metrics, name.replace("-", "_"))), name
        assert name in metrics.__all__ or name.replace("-", "_") in metrics.__all__
    # Every metric is checked against the CLI below, but the METEOR 1.5 jar's.
    assert {n for n, _ in metrics.names()} - set(CASES) == {"codeqa-meteor"}


@pytest.mark.parametrize("name", sorted(CASES))
def test_scores_equal_the_cli(name, run_cli, tmp_path):
    hyps, refs = CASES[name]
    args = ["metrics", name, "--format", "json", "--per-line", "--hyp", write(tmp_path / "hyp", hyps)]
    for k, stream in enumerate(refs):
        args += ["--ref", write(tmp_path / f"ref{k}", stream)]
    cli = json.loads(run_cli(*args))
    result = metrics.score(name, hyps, refs)
    assert result.score == cli["score"]
    assert result.per_line == cli["per_line"]
    assert {"metric": name, "score": result.score, **result.details, "per_line": result.per_line} == cli
    function = getattr(metrics, name.replace("-", "_"))
    assert function(hyps, refs) == cli["score"]
    if len(refs) == 1:
        assert function(hyps, refs[0]) == cli["score"]  # one stream as a plain list


def test_options_reach_the_scorer(run_cli, tmp_path):
    hyp, ref = write(tmp_path / "h", HYPS), write(tmp_path / "r", REFS)
    cli = json.loads(run_cli("metrics", "sentence-bleu", "--format", "json", "--hyp", hyp, "--ref", ref,
                             "--weights", "1,0,0,0", "--smoothing", "method4"))
    assert metrics.sentence_bleu(HYPS, REFS, weights=[1, 0, 0, 0], smoothing="method4") == cli["score"]
    cli = json.loads(run_cli("metrics", "rouge-l", "--format", "json", "--stem", "--hyp", hyp, "--ref", ref))
    assert metrics.rouge_l(HYPS, REFS, stem=True) == cli["score"]
    cli = json.loads(run_cli("metrics", "meteor", "--format", "json", "--no-wordnet", "--hyp", hyp, "--ref", ref))
    assert metrics.meteor(HYPS, REFS, use_wordnet=False) == cli["score"]


def test_bad_input_is_a_value_error():
    with pytest.raises(quarry_code.QuarryValueError, match="unknown metric `bleu4`"):
        metrics.score("bleu4", HYPS, REFS)
    with pytest.raises(ValueError, match="5 hypotheses but 4 references"):
        metrics.bleu(HYPS, REFS[:4])
    with pytest.raises(quarry_code.QuarryValueError, match="refs\\[0\\] line 1"):
        metrics.span_em(["1-2"], ["not a span"])
    with pytest.raises(quarry_code.QuarryValueError, match="method9"):
        metrics.sentence_bleu(HYPS, REFS, smoothing="method9")
    for weights in ([float("nan"), 0, 0, 0], [float("inf")], [-1, 1], [0, 0, 0, 0]):
        with pytest.raises(quarry_code.QuarryValueError, match="weights"):
            metrics.sentence_bleu(["a b"], ["a b"], weights=weights)
    with pytest.raises(quarry_code.QuarryOSError, match="WordNet"):
        metrics.meteor(HYPS, REFS, wordnet="/nonexistent/wordnet")
