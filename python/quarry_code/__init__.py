"""quarry as a Python library: CodeQueries findings, spaCy's small English
pipeline run by quarry, CodeQA question–answer pairs and the papers' metrics.

>>> import quarry_code
>>> findings = quarry_code.query(["src"], select=["unused-import"])  # doctest: +SKIP

Submodules: :mod:`quarry_code.nlp`, :mod:`quarry_code.codeqa`,
:mod:`quarry_code.metrics`; errors in :mod:`quarry_code.errors`. The package
also installs the ``quarry`` command.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

from . import _args, _native, codeqa, errors, metrics, nlp
from .errors import QuarryError, QuarryOSError, QuarryValueError, QuarryWarning

__version__: str = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]


def query(
    paths: Union[PathLike, Sequence[PathLike]],
    select: Optional[Sequence[str]] = None,
    negative: bool = False,
    config: Optional[PathLike] = None,
    cache: bool = False,
    time_budget: Optional[float] = 5.0,
    on_error: str = "raise",
) -> List[Dict[str, Any]]:
    """Runs CodeQueries queries over Python files and directories.

    Returns the reported findings, each a dict in the CodeQueries span schema
    (``file``, ``query``, ``query_id``, ``example_type``, ``answer_spans``,
    ``supporting_fact_spans``, ``relevant_blocks``): the records ``quarry
    query --format jsonl`` prints for the same paths and options, in the same
    order. ``file`` is the path as :func:`os.fsdecode` gives it, so a name
    that is not UTF-8 round-trips (``os.fsencode(finding["file"])`` is its
    bytes) where the command's JSON shows U+FFFD.

    Args:
        paths: a file or directory (``str``, ``bytes`` or ``os.PathLike``),
            or several (directories are searched as
            ``quarry query`` does, honouring ``.gitignore`` and ``exclude``).
        select: queries by id, name, ``Q`` number, CodeQL id or ruff code;
            default: the configuration's ``select``, else all.
        negative: report the negative form (plausible but not actual answers).
        config: a ``quarry.toml`` or ``pyproject.toml`` with ``[tool.quarry]``;
            default: the nearest above the first path.
        cache: go through the analysis cache ``quarry query`` keeps for the
            project (``.quarry_cache/`` beside the configuration, or
            ``QUARRY_CACHE_DIR``): unchanged files are read from it, and the
            findings are the same. Off by default, so that a call writes
            nothing into the project; a cache that cannot be opened is not
            used, with a :class:`~quarry_code.errors.QuarryWarning`.
        time_budget: seconds each file may take before it is skipped as one
            that cannot be analysed (``--time-budget``); 0 or ``None``: no limit.
        on_error: what a path or file that cannot be analysed does:
            ``"raise"`` (the first one raises, naming how many more there
            are), ``"warn"`` (a :class:`~quarry_code.errors.QuarryWarning`
            naming each file and its problem, and the findings of the rest are
            returned, as ``quarry query`` prints them and reports the rest) or
            ``"ignore"`` (left out silently).

    Raises:
        TypeError: an argument of the wrong type (named in the message).
        QuarryValueError: an invalid configuration, unknown query or option,
            or (``on_error="raise"``) a file that cannot be analysed (binary,
            bad encoding, too deep, over its time budget).
        QuarryOSError: (``on_error="raise"``) a path that does not exist or
            cannot be read.
    """
    if isinstance(select, str):
        select = [select]
    selected = None if select is None else _args.strings("select", select)
    lines = _native.query_jsonl(
        _args.paths("paths", paths),
        select=selected or None,
        negative=_args.flag("negative", negative),
        config=None if config is None else _args.path("config", config),
        cache=_args.flag("cache", cache),
        time_budget=_args.seconds("time_budget", time_budget),
        on_error=_args.text("on_error", on_error),
    )
    return [_finding(line, file) for line, file in lines]


def _finding(line: str, file: str) -> Dict[str, Any]:
    """A finding from its JSON line, with ``file`` the path of its file as
    :func:`os.fsdecode` spells it (the JSON's is text, in which a name that is
    not UTF-8 loses its bytes), so that ``open(finding["file"])`` opens it."""
    finding = json.loads(line)
    finding["file"] = file
    return finding


__all__ = [
    "query",
    "nlp",
    "codeqa",
    "metrics",
    "errors",
    "QuarryError",
    "QuarryValueError",
    "QuarryOSError",
    "QuarryWarning",
    "__version__",
]
