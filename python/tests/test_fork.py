"""A process that has queried can fork and query in the child
(multiprocessing's default start method on Linux, PyTorch's data loader
workers): the child used to wait forever on the parent's thread pool,
whose threads fork does not copy."""

from __future__ import annotations

import multiprocessing
import sys

import pytest

import quarry_code


def _count_findings(path: str) -> int:
    return len(quarry_code.query(path, select=["unused-import"]))


@pytest.mark.skipif(sys.platform == "win32", reason="no fork on Windows")
def test_a_forked_child_queries_after_its_parent_did(tmp_path):
    for i in range(4):
        (tmp_path / f"m{i}.py").write_text("import os\n")
    assert _count_findings(str(tmp_path)) == 4  # the parent's pool now exists
    pool = multiprocessing.get_context("fork").Pool(2)
    try:
        result = pool.map_async(_count_findings, [str(tmp_path)] * 2)
        assert result.get(timeout=120) == [4, 4]
    finally:
        pool.terminate()
        pool.join()
