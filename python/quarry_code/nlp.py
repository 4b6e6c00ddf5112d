"""spaCy's small English pipeline (``en_core_web_sm`` 3.8) run by quarry.

:func:`load` opens the model directory pip installs (no spaCy needed);
the pipeline's :meth:`Language.pipe` yields :class:`Doc` objects whose
tokens have spaCy's attribute names (``text``, ``whitespace_``, ``i``,
``idx``, ``tag_``, ``pos_``, ``morph``, ``lemma_``, ``dep_``, ``head``,
``is_sent_start``, ``children``, ``subtree``, ...), ``doc.sents`` and
``doc.to_json()``. Tagger, parser, attribute ruler and lemmatizer run; named
entities are not recognised. ``token.morph`` is the string
``str(spacy_token.morph)``; ``children``, ``subtree`` and ``sents`` are lists.

>>> nlp = load("en_core_web_sm/en_core_web_sm-3.8.0")  # doctest: +SKIP
>>> for doc in nlp.pipe(["Returns the value.", "Opens a file."]):  # doctest: +SKIP
...     print([(t.text, t.dep_, t.head.text) for t in doc])
"""

from __future__ import annotations

import os
from itertools import islice
from typing import Iterable, Iterator, Union

from . import _native
from ._native import Doc, Span, Token
from .errors import QuarryValueError

__all__ = ["load", "Language", "Doc", "Token", "Span"]


class Language:
    """A loaded English pipeline; call it on a text or ``pipe`` many."""

    def __init__(self, pipeline: _native.Pipeline) -> None:
        self._pipeline = pipeline

    @property
    def path(self) -> str:
        """The model directory."""
        return os.fspath(self._pipeline.path)

    def __call__(self, text: str) -> Doc:
        """Analyses one text."""
        return self._pipeline.parse_batch([text])[0]

    def pipe(self, texts: Iterable[str], batch_size: int = 256) -> Iterator[Doc]:
        """Analyses texts in batches of ``batch_size``, yielding one doc per
        text in order (the GIL is released while a batch is analysed)."""
        if batch_size < 1:
            raise QuarryValueError(f"batch_size must be at least 1, not {batch_size}")
        iterator = iter(texts)
        while True:
            batch = list(islice(iterator, batch_size))
            if not batch:
                return
            yield from self._pipeline.parse_batch(batch)


def load(model_dir: Union[str, "os.PathLike[str]"]) -> Language:
    """Loads spaCy's ``en_core_web_sm`` 3.8 from its directory (the folder
    holding ``config.cfg``, or the package folder above it).

    Raises:
        QuarryOSError: a missing or unreadable model file.
        QuarryValueError: a model file quarry cannot use (corrupt, or a
            component or setting it does not implement), naming it.
    """
    return Language(_native.Pipeline.load(os.fspath(model_dir)))
