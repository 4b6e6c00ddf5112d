"""`quarry dataset codequeries --format parquet` as researchers load it: pyarrow reads
every file, `datasets.load_dataset(DIR)` every config and split from the dataset card,
and the rows equal the JSON Lines build's field for field, built in 1 or 3 shards."""

import json
import shutil
from pathlib import Path

import pytest

pq = pytest.importorskip(
    "pyarrow.parquet", reason="pyarrow is installed by scripts/test-python"
)
datasets = pytest.importorskip(
    "datasets", reason="datasets is installed by scripts/test-python"
)

FIXTURES = (
    Path(__file__).resolve().parents[2]
    / "crates"
    / "quarry-data"
    / "tests"
    / "fixtures"
    / "corpus"
)
SETTINGS = ["ideal", "file_ideal", "twostep"]
SPLITS = ["train", "valid", "test"]
OPTIONS = ["--split", "0.6,0.2,0.2", "--seed", "3", "--chunk-size", "2"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The three fixture files under eight directories: 24 files, rows in every split."""
    root = tmp_path_factory.mktemp("corpus")
    for copy in range(8):
        shutil.copytree(FIXTURES, root / f"copy{copy}")
    return root


def canonical(row: dict) -> str:
    """A row without its null fields (the JSON leaves them out), as sorted JSON."""
    return json.dumps({k: v for k, v in row.items() if v is not None}, sort_keys=True)


@pytest.fixture(scope="module")
def jsonl_rows(corpus, run_cli, tmp_path_factory):
    out = tmp_path_factory.mktemp("jsonl")
    run_cli(
        "dataset", "codequeries", "--corpus", str(corpus), "--out", str(out), *OPTIONS
    )
    rows = {}
    for setting in SETTINGS:
        for split in SPLITS:
            lines = (out / f"{setting}_{split}.jsonl").read_text().splitlines()
            rows[setting, split] = sorted(
                canonical(json.loads(line)) for line in lines if line.strip()
            )
    return rows


@pytest.mark.parametrize("shards", [1, 3])
def test_parquet_loads_with_pyarrow_and_datasets_and_matches_json_lines(
    corpus, jsonl_rows, run_cli, tmp_path, shards
):
    out = tmp_path / "parquet"
    for index in range(shards):
        run_cli(
            "dataset",
            "codequeries",
            "--corpus",
            str(corpus),
            "--out",
            str(out),
            "--format",
            "parquet",
            "--shard",
            f"{index}/{shards}",
            *OPTIONS,
        )
    run_cli("dataset", "finalize", str(out))
    for setting in SETTINGS:
        for split in SPLITS:
            files = sorted(
                (out / "data" / setting).glob(f"{split}-*-of-{shards:05d}.parquet")
            )
            assert len(files) == shards
            rows = [row for f in files for row in pq.read_table(f).to_pylist()]
            assert sorted(canonical(r) for r in rows) == jsonl_rows[setting, split], (
                setting,
                split,
            )
    ideal = datasets.load_dataset(str(out))
    assert set(ideal) == set(SPLITS)
    for split in SPLITS:
        assert ideal[split].num_rows == len(jsonl_rows["ideal", split])
        assert sorted(canonical(r) for r in ideal[split]) == jsonl_rows["ideal", split]
    twostep = datasets.load_dataset(str(out), "twostep", split="train")
    assert sorted(canonical(r) for r in twostep) == jsonl_rows["twostep", "train"]
