"""Type stubs of quarry_code.metrics (see metrics.py for the documentation)."""

import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Protocol, Sequence, Tuple, Union

References = Union[Sequence[str], Sequence[Sequence[str]]]
_Path = Union[str, "os.PathLike[str]"]

@dataclass(frozen=True)
class Score:
    metric: str
    score: float
    description: str
    details: Dict[str, Any] = ...
    per_line: List[float] = ...

def names() -> List[Tuple[str, str]]: ...
def score(
    name: str,
    hyps: Sequence[str],
    refs: References,
    *,
    weights: Optional[Sequence[float]] = None,
    smoothing: str = "method0",
    auto_reweigh: bool = False,
    stem: bool = False,
    wordnet: Optional[_Path] = None,
    use_wordnet: bool = True,
    meteor_jar: Optional[_Path] = None,
) -> Score: ...

class _Scorer(Protocol):
    """A metric as a function: the headline score of ``score(NAME, ...)``."""

    def __call__(
        self,
        hyps: Sequence[str],
        refs: References,
        *,
        weights: Optional[Sequence[float]] = None,
        smoothing: str = "method0",
        auto_reweigh: bool = False,
        stem: bool = False,
        wordnet: Optional[_Path] = None,
        use_wordnet: bool = True,
        meteor_jar: Optional[_Path] = None,
    ) -> float: ...

bleu: _Scorer
sentence_bleu: _Scorer
codeqa_bleu: _Scorer
rouge_l: _Scorer
codeqa_rouge_l: _Scorer
meteor: _Scorer
codeqa_meteor: _Scorer
em: _Scorer
f1: _Scorer
codeqa_em: _Scorer
codeqa_f1: _Scorer
accuracy: _Scorer
macro_f1: _Scorer
line_em: _Scorer
line_f1: _Scorer
span_em: _Scorer
