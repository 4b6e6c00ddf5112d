"""`quarry dataset codeqa --format parquet --shard I/N` as researchers load it:
`datasets.load_dataset(DIR)` reads every split from the dataset card, and the pairs
equal those of the released parallel files built in one process."""

from pathlib import Path

import pytest

datasets = pytest.importorskip(
    "datasets", reason="datasets is installed by scripts/test-python"
)

FIXTURES = (
    Path(__file__).resolve().parents[2]
    / "crates"
    / "quarry-data"
    / "tests"
    / "fixtures"
    / "codeqa"
)
SPLITS = ["train", "dev", "test"]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """The fixture module, one file per top-level definition (parses are found by text)."""
    root = tmp_path_factory.mktemp("codeqa-corpus")
    parts = []
    for line in (FIXTURES / "corpus" / "requests.py").read_text().splitlines(True):
        if not parts or line.startswith(("def ", "class ")):
            parts.append("")
        parts[-1] += line
    for i, part in enumerate(parts):
        (root / f"m{i}.py").write_text(part)
    return root


def build(run_cli, corpus, out, *extra):
    run_cli(
        "dataset", "codeqa", "--corpus", str(corpus), "--lang", "python",
        "--parses", str(FIXTURES / "parses.jsonl"), "--out", str(out), *extra,
    )


def test_sharded_parquet_loads_with_datasets_and_matches_the_released_files(
    corpus, run_cli, tmp_path
):
    flat = tmp_path / "flat"
    build(run_cli, corpus, flat)
    released = sorted(
        (split, q, a)
        for split in SPLITS
        for q, a in zip(
            (flat / f"{split}.question").read_text().splitlines(),
            (flat / f"{split}.answer").read_text().splitlines(),
        )
    )
    out = tmp_path / "parquet"
    for index in range(2):
        build(run_cli, corpus, out, "--format", "parquet", "--shard", f"{index}/2")
    run_cli("dataset", "finalize", str(out))
    loaded = datasets.load_dataset(str(out))
    # A split without pairs is left out of the card (datasets refuses empty splits).
    assert set(loaded) == {split for split, _, _ in released}
    rows = sorted(
        (split, r["question"], r["answer"]) for split in loaded for r in loaded[split]
    )
    assert rows == released and rows
    assert all(r["id"].count(":") == 2 for split in loaded for r in loaded[split])
