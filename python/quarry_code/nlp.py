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
from typing import Any, Iterable, Iterator, Union

from . import _args, _native
from ._native import Doc, Span, Token

__all__ = ["load", "Language", "Doc", "Token", "Span"]


class Language:
    """A loaded English pipeline; call it on a text or ``pipe`` many."""

    def __init__(self, pipeline: _native.Pipeline) -> None:
        self._pipeline = pipeline

    @property
    def path(self) -> str:
        """The model directory."""
        return os.fspath(self._pipeline.path)

    def __repr__(self) -> str:
        return f"<quarry_code.nlp.Language en_core_web_sm from {self.path!r}>"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        """Pickles the pipeline as its model directory, loaded again on
        unpickling (so it can go to ``multiprocessing`` workers)."""
        return (load, (self.path,))

    def __call__(self, text: str) -> Doc:
        """Analyses one text.

        Raises:
            TypeError: ``text`` is not a ``str``.
        """
        return self._pipeline.parse_batch([_args.text("text", text)])[0]

    def pipe(self, texts: Iterable[str], batch_size: int = 256) -> Iterator[Doc]:
        """Analyses texts in batches of ``batch_size``, yielding one doc per
        text in order (the GIL is released while a batch is analysed).

        Raises:
            TypeError: ``texts`` is a lone string, or holds something else
                than strings (named by its position).
            QuarryValueError: ``batch_size`` is less than 1.
        """
        if isinstance(texts, (str, bytes)):
            raise TypeError(f"texts must be an iterable of strings, not a single {type(texts).__name__}")
        size = _args.count("batch_size", batch_size, 1)
        iterator = iter(texts)
        done = 0
        while True:
            batch = list(islice(iterator, size))
            if not batch:
                return
            for i, text in enumerate(batch):
                _args.text(f"texts[{done + i}]", text)
            done += len(batch)
            yield from self._pipeline.parse_batch(batch)


def load(model_dir: Union[str, "os.PathLike[str]"]) -> Language:
    """Loads spaCy's ``en_core_web_sm`` 3.8 from its directory (the folder
    holding ``config.cfg``, or the package folder above it).

    Raises:
        TypeError: ``model_dir`` is not a path.
        QuarryOSError: a missing or unreadable model file.
        QuarryValueError: a model file quarry cannot use (corrupt, or a
            component or setting it does not implement), naming it.
    """
    return Language(_native.Pipeline.load(_args.path("model_dir", model_dir)))
