"""Benchmark: quarry's query engine (every query, positive and negative form)
against `ruff check --select ALL`, on the same CPython standard-library files
in the same run, with the same thread count. Prints files/s and the ratio.

Usage: python3 crates/quarry-query/bench/query_vs_ruff.py [STDLIB_DIR] [--repeat N]
Needs: pip install ruff
"""

import argparse
import os
import subprocess
import time

from common import quarry_binary, stdlib_files


def best_time(command, env, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib", nargs="?")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    lib, files = stdlib_files(args.lib)
    quarry = quarry_binary()
    ruff_version = subprocess.run(["ruff", "--version"], capture_output=True, text=True).stdout.strip()
    print(f"{lib}: {len(files)} files; {ruff_version}; best of {args.repeat}")
    for threads in ["1", str(os.cpu_count())]:
        env = dict(os.environ, RAYON_NUM_THREADS=threads)
        commands = {
            "quarry query (pos+neg, jsonl)": [quarry, "query", "--both", "--format", "jsonl", "--jobs", threads, *files],
            "quarry query (positive)": [quarry, "query", "--format", "jsonl", "--jobs", threads, *files],
            "ruff check --select ALL": ["ruff", "check", "--select", "ALL", "--no-cache", "--output-format", "json",
                                        "--exit-zero", *files],
        }
        times = {name: best_time(cmd, env, args.repeat) for name, cmd in commands.items()}
        ruff = times["ruff check --select ALL"]
        print(f"threads={threads}")
        for name, seconds in times.items():
            print(f"  {name:<32} {seconds:7.2f} s {len(files) / seconds:8.0f} files/s  ruff/this = {ruff / seconds:5.2f}")


if __name__ == "__main__":
    main()
