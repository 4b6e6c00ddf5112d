"""The PEP 517 build backend of quarry-code: maturin, plus the ``quarry``
binary.

maturin builds the ``quarry_code`` extension module (crates/quarry-py) but
cannot yet put a second Rust target in the same wheel (PyO3/maturin#368).
Before maturin builds a wheel, this backend builds the ``quarry`` binary
(crates/quarry-cli) with cargo, in the same target directory and profile,
and copies it to the wheel's data folder (``[tool.maturin] data``) as
``scripts/quarry`` (stripped, as maturin strips the module); pip installs
it on PATH, as ruff's wheel does. Every other hook is maturin's.

The profile follows ``MATURIN_PEP517_ARGS`` (``--profile NAME`` or
``--release``; default release), so ``MATURIN_PEP517_ARGS="--profile dev"``
gives a quick test wheel.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import maturin
from maturin import *  # noqa: F401,F403  (every other PEP 517 hook)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "target" / "quarry-wheel-data"
"""The wheel's data folder; keep in step with ``[tool.maturin] data``."""


def _profile() -> str:
    args = shlex.split(os.environ.get("MATURIN_PEP517_ARGS", ""))
    for i, arg in enumerate(args):
        if arg == "--profile" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--profile="):
            return arg.split("=", 1)[1]
    return "release"


def _stage_binary() -> None:
    profile = _profile()
    cargo = os.environ.get("CARGO", "cargo")
    command = [cargo, "build", "--package", "quarry-cli", "--bin", "quarry", "--profile", profile]
    print("quarry-code: building the quarry binary:", shlex.join(command), file=sys.stderr, flush=True)
    try:
        subprocess.run(command, cwd=ROOT, check=True)
    except FileNotFoundError:
        sys.exit("quarry-code: cargo not found; install a Rust toolchain (https://rustup.rs) to build from source")
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    name = "quarry.exe" if sys.platform == "win32" else "quarry"
    built = target / ("debug" if profile in ("dev", "test") else profile) / name
    scripts = DATA / "scripts"
    shutil.rmtree(DATA, ignore_errors=True)
    scripts.mkdir(parents=True)
    shutil.copy2(built, scripts / name)
    # Stripped, as maturin strips the module (`[tool.maturin] strip`).
    if shutil.which("strip") and sys.platform.startswith("linux"):
        subprocess.run(["strip", str(scripts / name)], check=True)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    """Builds the quarry binary, then maturin's wheel with it inside."""
    _stage_binary()
    return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    """maturin's, with the data folder it checks in place (filled by build_wheel)."""
    (DATA / "scripts").mkdir(parents=True, exist_ok=True)
    return maturin.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """maturin's editable wheel, with the quarry binary as in build_wheel."""
    _stage_binary()
    return maturin.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    """maturin's source distribution (the binary is built from it later)."""
    (DATA / "scripts").mkdir(parents=True, exist_ok=True)
    return maturin.build_sdist(sdist_directory, config_settings)
