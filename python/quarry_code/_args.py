"""Checks of the public functions' arguments, so that a wrong type or value
raises a ``TypeError`` or ``ValueError`` naming the argument (and the item
of a sequence) rather than a bare conversion error from the native module,
and so that a lone string is never taken for a sequence of one-character
strings."""

from __future__ import annotations

import numbers
import operator
import os
import sys
from collections.abc import Iterable
from typing import Any

from .errors import QuarryValueError


def _kind(value: Any) -> str:
    return type(value).__name__


def path(name: str, value: Any) -> str:
    """``value`` (a ``str``, ``bytes`` or ``os.PathLike``) as a ``str`` path;
    bytes are decoded as the file system does (``os.fsdecode``)."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise TypeError(f"{name} must be a path (str, bytes or os.PathLike), not {_kind(value)}")
    return os.fsdecode(os.fspath(value))


def paths(name: str, value: Any) -> list[str]:
    """One path or an iterable of paths, as a list of ``str`` paths."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return [path(name, value)]
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a path or a sequence of paths, not {_kind(value)}")
    return [path(f"{name}[{i}]", item) for i, item in enumerate(value)]


def strings(name: str, value: Any) -> list[str]:
    """An iterable of ``str`` (not a lone ``str`` or ``bytes``) as a list."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of strings, not a single {_kind(value)}")
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a sequence of strings, not {_kind(value)}")
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{i}] must be str, not {_kind(item)}")
    return items


def text(name: str, value: Any) -> str:
    """``value``, which must be a ``str``."""
    if not isinstance(value, str):
        hint = " (decode it first)" if isinstance(value, (bytes, bytearray)) else ""
        raise TypeError(f"{name} must be str, not {_kind(value)}{hint}")
    return value


def count(name: str, value: Any, minimum: int) -> int:
    """An integer of at least ``minimum`` (else a ``QuarryValueError``) (anything with ``__index__``, not a
    bool), capped at ``sys.maxsize``: larger is as good as unlimited."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an integer, not bool")
    try:
        number = operator.index(value)
    except TypeError:
        raise TypeError(f"{name} must be an integer, not {_kind(value)}") from None
    if number < minimum:
        raise QuarryValueError(f"{name} must be at least {minimum}, not {number}")
    return min(number, sys.maxsize)


def flag(name: str, value: Any) -> bool:
    """A ``bool`` (NumPy's too)."""
    numpy_bool = type(value).__module__ == "numpy" and type(value).__name__ in ("bool", "bool_")
    if isinstance(value, bool) or numpy_bool:
        return bool(value)
    raise TypeError(f"{name} must be a bool, not {_kind(value)}")


def seconds(name: str, value: Any) -> float | None:
    """A number of seconds as a float, ``None`` kept (the range is checked
    where it is used)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number of seconds or None, not {_kind(value)}")
    return float(value)


def reals(name: str, value: Any) -> list[float]:
    """An iterable of real numbers as a list of floats (ranges are checked where they are used)."""
    if not isinstance(value, Iterable) or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of numbers, not {_kind(value)}")
    items = list(value)
    for i, item in enumerate(items):
        if isinstance(item, bool) or not isinstance(item, numbers.Real):
            raise TypeError(f"{name}[{i}] must be a number, not {_kind(item)}")
    return [float(item) for item in items]
