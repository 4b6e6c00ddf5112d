"""Opt-in (QUARRY_RAY_TEST=1, with `ray` installed): examples/ray/build_dataset.py fans a
CodeQueries build out as Ray tasks on a local cluster, and its dataset equals the
single-process build file for file."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if os.environ.get("QUARRY_RAY_TEST") != "1":
    pytest.skip(
        "set QUARRY_RAY_TEST=1 (and pip install ray) to build on a local Ray cluster",
        allow_module_level=True,
    )
pytest.importorskip("ray", reason="pip install ray to run the Ray build test")
pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is needed")

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "crates" / "quarry-data" / "tests" / "fixtures" / "corpus"
OPTIONS = ["--split", "0.6,0.2,0.2", "--seed", "3"]


def rows(out: Path) -> dict:
    """Every setting and split's rows, whatever the number of shards, sorted."""
    found = {}
    for f in sorted((out / "data").rglob("*.parquet")):
        key = f.relative_to(out).as_posix().split("-")[0]
        found.setdefault(key, []).extend(str(r) for r in pq.read_table(f).to_pylist())
    return {key: sorted(values) for key, values in found.items()}


def test_a_ray_build_equals_the_one_process_build(quarry_bin, run_cli, tmp_path):
    corpus = tmp_path / "corpus"
    for copy in range(6):
        shutil.copytree(FIXTURES, corpus / f"copy{copy}")
    one = tmp_path / "one"
    run_cli("dataset", "codequeries", "--corpus", str(corpus), "--out", str(one),
            "--format", "parquet", *OPTIONS)
    fanned = tmp_path / "ray"
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "ray" / "build_dataset.py"),
         "--corpus", str(corpus), "--out", str(fanned), "--shards", "3",
         "--num-cpus", "2", "--quarry", quarry_bin, "--", *OPTIONS],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert rows(fanned) == rows(one) and rows(one)
