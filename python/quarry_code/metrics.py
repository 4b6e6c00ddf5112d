"""Every scorer of ``quarry metrics``, on lists of strings, with the numbers
of the reference implementations (sacrebleu, rouge-score, nltk, SQuAD,
CodeQA's scripts, scikit-learn).

By name, with the full result::

    >>> from quarry_code import metrics
    >>> metrics.score("bleu", ["the cat sat on the mat"], ["the cat sat on a mat"]).score  # doctest: +SKIP

or as a function returning the headline score::

    >>> metrics.rouge_l(["the cat sat"], ["the cat sat down"])  # doctest: +SKIP

``refs`` is one reference per hypothesis (a list of strings) or several
reference streams (a list of such lists), as ``--ref FILE`` given once or
repeated. Options (keyword-only) are those of ``quarry metrics``:
``weights``, ``smoothing`` and ``auto_reweigh`` (sentence-bleu), ``stem``
(rouge-l), ``wordnet`` (a WordNet 3.0 dict directory) and ``use_wordnet``
(meteor), ``meteor_jar`` (codeqa-meteor).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _args, _native

__all__ = [
    "Score",
    "score",
    "names",
    "bleu",
    "sentence_bleu",
    "codeqa_bleu",
    "rouge_l",
    "codeqa_rouge_l",
    "meteor",
    "codeqa_meteor",
    "em",
    "f1",
    "codeqa_em",
    "codeqa_f1",
    "accuracy",
    "macro_f1",
    "line_em",
    "line_f1",
    "span_em",
]

References = Union[Sequence[str], Sequence[Sequence[str]]]


@dataclass(frozen=True)
class Score:
    """A metric's result."""

    metric: str
    """The metric's name (``bleu``, ``rouge-l``, ...)."""
    score: float
    """The headline score, on the metric's own scale (see :func:`names`)."""
    description: str
    """One line in words, as ``quarry metrics`` prints it."""
    details: Dict[str, Any] = field(default_factory=dict)
    """Further numbers by name, as in ``quarry metrics --format json``."""
    per_line: List[float] = field(default_factory=list)
    """The score of every line."""


def names() -> List[Tuple[str, str]]:
    """Every metric's name and a line saying what it computes and on which scale."""
    return list(_native.metric_names())


def _streams(refs: References) -> List[List[str]]:
    """``refs`` as reference streams: one stream (strings) or several (lists of strings)."""
    if isinstance(refs, (str, bytes)):
        raise TypeError(f"refs must be a sequence of strings or of string sequences, not a single {type(refs).__name__}")
    refs = list(refs)
    if len(refs) == 0 or isinstance(refs[0], str):
        return [_args.strings("refs", refs)]
    return [_args.strings(f"refs[{i}]", stream) for i, stream in enumerate(refs)]


def score(
    name: str,
    hyps: Sequence[str],
    refs: References,
    *,
    weights: Optional[Sequence[float]] = None,
    smoothing: str = "method0",
    auto_reweigh: bool = False,
    stem: bool = False,
    wordnet: Optional[Union[str, "os.PathLike[str]"]] = None,
    use_wordnet: bool = True,
    meteor_jar: Optional[Union[str, "os.PathLike[str]"]] = None,
) -> Score:
    """Scores ``hyps`` against ``refs`` with the metric ``name`` (as
    ``quarry metrics NAME``; see :func:`names`).

    Raises:
        TypeError: ``hyps`` or ``refs`` not sequences of strings (a lone
            string included), naming the item.
        QuarryValueError: an unknown metric, streams of different lengths,
            a line the metric cannot read, an invalid option.
        QuarryOSError: a WordNet directory or METEOR jar that cannot be read.
    """
    value, description, details, per_line = _native.score(
        _args.text("name", name),
        _args.strings("hyps", hyps),
        _streams(refs),
        weights=None if weights is None else _args.reals("weights", weights),
        smoothing=_args.text("smoothing", smoothing),
        auto_reweigh=_args.flag("auto_reweigh", auto_reweigh),
        stem=_args.flag("stem", stem),
        wordnet=None if wordnet is None else _args.path("wordnet", wordnet),
        use_wordnet=_args.flag("use_wordnet", use_wordnet),
        meteor_jar=None if meteor_jar is None else _args.path("meteor_jar", meteor_jar),
    )
    return Score(name, value, description, json.loads(details), list(per_line))


def _scorer(name: str) -> Callable[..., float]:
    def scorer(hyps: Sequence[str], refs: References, **options: Any) -> float:
        return score(name, hyps, refs, **options).score

    help_line = dict(_native.metric_names())[name]
    scorer.__name__ = scorer.__qualname__ = name.replace("-", "_")
    scorer.__doc__ = f"``{name}``: {help_line} Returns the headline score; options as :func:`score`."
    return scorer


def bleu(hyps: Sequence[str], refs: References, **options: Any) -> float:
    """``bleu``: sacrebleu's corpus BLEU (13a tokens, exp smoothing). Returns the
    corpus score alone, without the per-line scores :func:`score` also computes;
    options as :func:`score`."""
    if options:
        return score("bleu", hyps, refs, **options).score
    return _native.corpus_bleu(_args.strings("hyps", hyps), _streams(refs))


sentence_bleu = _scorer("sentence-bleu")
codeqa_bleu = _scorer("codeqa-bleu")
rouge_l = _scorer("rouge-l")
codeqa_rouge_l = _scorer("codeqa-rouge-l")
meteor = _scorer("meteor")
codeqa_meteor = _scorer("codeqa-meteor")
em = _scorer("em")
f1 = _scorer("f1")
codeqa_em = _scorer("codeqa-em")
codeqa_f1 = _scorer("codeqa-f1")
accuracy = _scorer("accuracy")
macro_f1 = _scorer("macro-f1")
line_em = _scorer("line-em")
line_f1 = _scorer("line-f1")
span_em = _scorer("span-em")
