"""Build a CodeQueries dataset on a Ray cluster: one Ray task per shard, each running
`quarry dataset codequeries --shard I/N`, then `quarry dataset finalize`.

    pip install "ray[default]"
    python examples/ray/build_dataset.py --corpus CORPUS --out OUT --shards 8 [-- EXTRA OPTIONS]

Every node needs the `quarry` binary on its PATH (`pip install quarry-code`) and the
corpus and OUT on a shared file system (the same paths everywhere). Options after `--`
go to every shard unchanged (for example `--tokenizer DIR --max-len 512`); the shards
must all get the same ones, which finalize checks. A shard that fails is retried by Ray;
a rerun of the script skips the shards that finished (their manifests say so) and
resumes the others from their finished chunks. `--address auto` joins a running cluster;
without it Ray starts a local one (`--num-cpus`).
"""

import argparse
import shutil
import subprocess
import sys
import time


def build_shard(quarry: str, corpus: str, out: str, shard: str, extra: list) -> dict:
    """Runs one shard; returns its shard name, seconds and the last line quarry printed."""
    started = time.monotonic()
    cmd = [
        quarry,
        "dataset",
        "codequeries",
        "--corpus",
        corpus,
        "--out",
        out,
        "--shard",
        shard,
        *extra,
    ]
    done = subprocess.run(cmd, check=False, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(
            f"shard {shard} failed (exit {done.returncode}):\n{done.stderr}"
        )
    lines = done.stderr.strip().splitlines()
    return {
        "shard": shard,
        "seconds": time.monotonic() - started,
        "said": lines[-1] if lines else "",
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=" ".join(__doc__.split("\n\n")[0].split()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--corpus", required=True, help="Python files, the same path on every node"
    )
    parser.add_argument(
        "--out", required=True, help="output directory on a shared file system"
    )
    parser.add_argument(
        "--shards", type=int, required=True, help="N: how many shards (Ray tasks)"
    )
    parser.add_argument("--format", default="parquet", choices=["parquet", "jsonl"])
    parser.add_argument(
        "--quarry", default=shutil.which("quarry") or "quarry", help="the quarry binary"
    )
    parser.add_argument(
        "--address",
        default=None,
        help="Ray cluster address (`auto` joins a running one)",
    )
    parser.add_argument(
        "--num-cpus", type=int, default=None, help="CPUs of a local Ray cluster"
    )
    parser.add_argument(
        "--cpus-per-shard", type=float, default=1.0, help="CPUs Ray reserves per task"
    )
    parser.add_argument(
        "extra", nargs="*", help="options after `--`, given to every shard"
    )
    args = parser.parse_args()

    # Imported here, so that --help works where Ray is not installed.
    import ray

    ray.init(address=args.address, num_cpus=args.num_cpus)
    extra = ["--format", args.format, *args.extra]
    remote = ray.remote(max_retries=2)(build_shard)
    task = remote.options(num_cpus=args.cpus_per_shard)
    pending = [
        task.remote(args.quarry, args.corpus, args.out, f"{i}/{args.shards}", extra)
        for i in range(args.shards)
    ]
    started = time.monotonic()
    while pending:
        finished, pending = ray.wait(pending)
        for result in ray.get(finished):
            print(
                f"shard {result['shard']}: {result['seconds']:.1f} s; {result['said']}",
                file=sys.stderr,
            )
    print(
        f"{args.shards} shards in {time.monotonic() - started:.1f} s; finalizing",
        file=sys.stderr,
    )
    finalize = [args.quarry, "dataset", "finalize", args.out]
    return subprocess.run(finalize, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
