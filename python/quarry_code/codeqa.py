"""CodeQA question–answer pairs generated from a code comment, as ``quarry
codeqa qa`` makes them, with the English pipeline of :mod:`quarry_code.nlp`.

>>> from quarry_code import codeqa, nlp
>>> parser = nlp.load("en_core_web_sm/en_core_web_sm-3.8.0")  # doctest: +SKIP
>>> codeqa.pairs("Returns the number of lines in the file.", parser)  # doctest: +SKIP
[{'question': 'What does the code return ?', 'answer': 'the number of lines in the file', ...}]
"""

from __future__ import annotations

import json
from typing import Dict, List

from . import _args, _native
from .nlp import Language

__all__ = ["pairs", "DEFAULT_MAX_PAIRS"]

DEFAULT_MAX_PAIRS = 6
"""The most pairs kept per comment by default (as ``quarry codeqa qa``)."""


def pairs(comment: str, nlp: Language, max_pairs: int = DEFAULT_MAX_PAIRS) -> List[Dict[str, str]]:
    """The question–answer pairs of ``comment`` (a docstring or comment), each
    ``{"question", "answer", "kind", "rule"}``: ``kind`` is ``"wh"`` or
    ``"yesno"`` and ``rule`` names the rule that made the pair.

    Raises:
        TypeError: ``comment`` is not a ``str``, ``nlp`` not a
            :class:`~quarry_code.nlp.Language` (from :func:`quarry_code.nlp.load`)
            or ``max_pairs`` not an integer.
        QuarryValueError: ``max_pairs`` is negative, or the parser failed on
            the comment's text.
    """
    if not isinstance(nlp, Language):
        kind = type(nlp).__name__
        raise TypeError(f"nlp must be a quarry_code.nlp.Language (from quarry_code.nlp.load), not {kind}")
    text = _args.text("comment", comment)
    most = _args.count("max_pairs", max_pairs, 0)
    return [json.loads(p) for p in _native.codeqa_pairs(text, nlp._pipeline, most)]
