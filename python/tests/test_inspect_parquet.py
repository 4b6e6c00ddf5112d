"""`quarry inspect generate --format parquet` as researchers load it: each task is a
config of the dataset card, and its rows are the text format's samples."""

from pathlib import Path

import pytest

datasets = pytest.importorskip(
    "datasets", reason="datasets is installed by scripts/test-python"
)

FIXTURES = (
    Path(__file__).resolve().parents[2] / "crates" / "quarry-probe" / "tests" / "fixtures"
)
SPLITS = {"tr": "train", "va": "validation", "te": "test"}


def test_a_task_loads_as_a_config_and_equals_the_text_file(run_cli, tmp_path):
    common = ["inspect", "generate", "--corpus", str(FIXTURES), "--task", "JBL"]
    common += ["--size", "12", "--seed", "5"]
    run_cli(*common, "--out", str(tmp_path / "txt"))
    run_cli(*common, "--out", str(tmp_path / "hub"), "--format", "parquet")
    text = (tmp_path / "txt" / "datasets_JBL" / "JBL_ORIG_12.txt").read_text()
    expected = sorted(
        (SPLITS[split], label, sample)
        for split, label, sample in (line.split("\t", 2) for line in text.splitlines())
    )
    loaded = datasets.load_dataset(str(tmp_path / "hub"), "JBL")
    rows = sorted(
        (split, r["label"], r["text"]) for split in loaded for r in loaded[split]
    )
    assert rows == expected and len(rows) == 12
