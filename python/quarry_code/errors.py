"""The exceptions quarry_code raises.

Every failure is a :class:`QuarryError`; bad input or options are also a
:class:`ValueError` (:class:`QuarryValueError`) and files or directories that
cannot be read an :class:`OSError` (:class:`QuarryOSError`; when a system
call on a path failed, with ``errno`` and ``filename`` set and of the subclass
Python's own ``OSError`` would be, such as :class:`FileNotFoundError`).
Messages name the file and the problem. A bug inside quarry (a Rust panic) is a bare
:class:`QuarryError` and never crashes the interpreter. Problems that do not
stop a call are :class:`QuarryWarning` warnings.
"""


class QuarryError(Exception):
    """Base class of every quarry_code error."""


class QuarryValueError(QuarryError, ValueError):
    """Bad input or options: an invalid configuration, an unknown query or
    metric, text or a file quarry cannot analyse."""


class QuarryOSError(QuarryError, OSError):
    """A file or directory that cannot be read (missing, unreadable, a model
    directory without its files)."""


class QuarryFileNotFoundError(QuarryOSError, FileNotFoundError):
    """A path that does not exist (``errno`` and ``filename`` set)."""


class QuarryPermissionError(QuarryOSError, PermissionError):
    """A path quarry may not read (``errno`` and ``filename`` set)."""


class QuarryIsADirectoryError(QuarryOSError, IsADirectoryError):
    """A directory where a file was expected (``errno`` and ``filename`` set)."""


class QuarryNotADirectoryError(QuarryOSError, NotADirectoryError):
    """A file where a directory was expected (``errno`` and ``filename`` set)."""


class QuarryWarning(UserWarning):
    """A problem that did not stop the call: a file :func:`quarry_code.query`
    could not analyse (with ``on_error="warn"``), an analysis cache that could
    not be opened. The message names the file and the problem."""


__all__ = [
    "QuarryError",
    "QuarryValueError",
    "QuarryOSError",
    "QuarryFileNotFoundError",
    "QuarryPermissionError",
    "QuarryIsADirectoryError",
    "QuarryNotADirectoryError",
    "QuarryWarning",
]
