"""Benchmark: `quarry query` without its analysis cache, cold (empty cache)
and warm (second run), beside `ruff check --select ALL` cold and warm (its
own cache) and without cache, in the same run, on a CPython standard
library folder. Each command runs in the folder with its output thrown
away; wall-clock times in seconds. Caches go to a temporary folder
(`QUARRY_CACHE_DIR`, `RUFF_CACHE_DIR`), so the library stays untouched.

Usage: python3 crates/quarry-query/bench/cache_vs_ruff.py [STDLIB_DIR] [--warm N] [--threads N]
Needs: pip install ruff (or RUFF=path/to/ruff)
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time

from common import quarry_binary, stdlib_files


def timed(command, cwd, env):
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib", nargs="?")
    parser.add_argument("--warm", type=int, default=3, help="warm runs of each tool")
    parser.add_argument("--threads", type=int, help="RAYON_NUM_THREADS for both tools")
    args = parser.parse_args()
    lib, files = stdlib_files(args.lib)
    quarry = quarry_binary()
    ruff = os.environ.get("RUFF", "ruff")
    ruff = os.path.abspath(ruff) if os.sep in ruff else ruff
    caches = tempfile.mkdtemp(prefix="quarry-cache-bench-")
    env = dict(os.environ, QUARRY_CACHE_DIR=os.path.join(caches, "quarry"), RUFF_CACHE_DIR=os.path.join(caches, "ruff"))
    if args.threads:
        env["RAYON_NUM_THREADS"] = str(args.threads)
    q = [quarry, "query", "-q", "--exit-zero", "."]
    r = [ruff, "check", "--select", "ALL", "--exit-zero", "-q", "."]
    try:
        rows = [("quarry --no-cache", [timed(q[:-1] + ["--no-cache", "."], lib, env)])]
        rows.append(("quarry cold", [timed(q, lib, env)]))
        rows.append(("quarry warm", [timed(q, lib, env) for _ in range(args.warm)]))
        rows.append(("ruff cold", [timed(r, lib, env)]))
        rows.append(("ruff warm", [timed(r, lib, env) for _ in range(args.warm)]))
        rows.append(("ruff --no-cache", [timed(r[:-1] + ["--no-cache", "."], lib, env)]))
    finally:
        shutil.rmtree(caches, ignore_errors=True)
    print(f"{lib} ({len(files)} .py files without installed packages)")
    for name, times in rows:
        print(f"{name:20} " + " ".join(f"{t:.2f}" for t in times))


if __name__ == "__main__":
    main()
