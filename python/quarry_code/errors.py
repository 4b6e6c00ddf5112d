"""The exceptions quarry_code raises.

Every failure is a :class:`QuarryError`; bad input or options are also a
:class:`ValueError` (:class:`QuarryValueError`) and files or directories that
cannot be read an :class:`OSError` (:class:`QuarryOSError`). Messages name the
file and the problem. A bug inside quarry (a Rust panic) is a bare
:class:`QuarryError` and never crashes the interpreter.
"""


class QuarryError(Exception):
    """Base class of every quarry_code error."""


class QuarryValueError(QuarryError, ValueError):
    """Bad input or options: an invalid configuration, an unknown query or
    metric, text or a file quarry cannot analyse."""


class QuarryOSError(QuarryError, OSError):
    """A file or directory that cannot be read (missing, unreadable, a model
    directory without its files)."""


__all__ = ["QuarryError", "QuarryValueError", "QuarryOSError"]
