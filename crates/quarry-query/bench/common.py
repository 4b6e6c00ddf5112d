"""Shared helpers for the query benchmarks and cross-checks: corpus file list
and locating the quarry binary."""

import os
import subprocess
import sys
import sysconfig

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def stdlib_files(lib=None):
    """The .py files of a CPython standard library, without installed packages."""
    if lib is None:
        lib = os.environ.get("QUARRY_STDLIB") or sysconfig.get_paths()["stdlib"]
        if not os.path.isdir(lib):
            sys.exit("no CPython standard library found; pass a directory or set QUARRY_STDLIB")
    files = []
    for dirpath, dirnames, filenames in os.walk(lib):
        dirnames[:] = sorted(d for d in dirnames if not d.endswith("-packages") and d != "__pycache__")
        files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".py"))
    return lib, files


def quarry_binary():
    """Builds quarry in release mode and returns the binary's path."""
    subprocess.run(["cargo", "build", "--release", "-q", "-p", "quarry-cli"], cwd=ROOT, check=True)
    return os.path.join(ROOT, "target", "release", "quarry")
