"""Cross-check: quarry's answers against ruff and pyflakes where the rules
overlap, on the CPython standard library. Findings are matched by file and
line. Prints, per rule pair, how many locations both report, only quarry,
only the peer, and a sample of each kind of disagreement.

Usage: python3 crates/quarry-query/bench/crosscheck_ruff.py [STDLIB_DIR] [--samples N]
Needs: pip install ruff
"""

import argparse
import collections
import json
import subprocess

from common import quarry_binary, stdlib_files

# quarry query id -> ruff rule codes covering the same property.
PAIRS = {
    "catching-base-exception": ["E722", "BLE001"],
    "equals-none": ["E711"],
    "duplicate-key-in-dict-literal": ["F601"],
    "unused-local-variable": ["F841"],
    "polluting-import": ["F403"],
    "unnecessary-pass": ["PIE790"],
    "comparison-of-identical-expressions": ["PLR0124"],
    "comparison-of-constants": ["PLR0133"],
    "unnecessary-else-clause-in-loop": ["PLW0120"],
    "redundant-global-declaration": ["PLW0604"],
    "redundant-assignment": ["PLW0127"],
    "not-implemented-is-not-an-exception": ["F901"],
    "insecure-temporary-file": ["S306"],
    "nested-loops-with-same-variable": ["PLW2901"],
    "unreachable-statement": ["PLW0101"],
}


# Where the two tools put the same finding differently. `site`: which of
# quarry's spans ruff reports ("answer" or "fact": ruff flags the overwriting
# duplicate key, CodeQL the overwritten one). `ruff_line_must_contain`: keep
# only ruff hits whose line contains this text (BLE001 also flags
# `except Exception`, which is not BaseException).
ALIGN = {
    "duplicate-key-in-dict-literal": {"site": "fact"},
    "catching-base-exception": {"ruff_line_must_contain": {"BLE001": "BaseException"}},
}


def quarry_locations(quarry, files, query_ids):
    found = collections.defaultdict(set)
    listing = json.loads(subprocess.run([quarry, "queries", "--format", "json"], capture_output=True, text=True).stdout)
    available = {q["id"] for q in listing}
    selected = [q for q in query_ids if q in available]
    if not selected:
        return found, available
    args = [quarry, "query", "--format", "jsonl"]
    for q in selected:
        args += ["-q", q]
    out = subprocess.run(args + files, capture_output=True, text=True).stdout
    for line in out.splitlines():
        record = json.loads(line)
        site = ALIGN.get(record["query_id"], {}).get("site", "answer")
        spans = record["supporting_fact_spans"] if site == "fact" else record["answer_spans"][:1]
        for span in spans:
            found[record["query_id"]].add((record["file"], span["start_line"] + 1))
    return found, available


def line_text(file, line):
    with open(file, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def ruff_locations(files, codes):
    found = collections.defaultdict(set)
    out = subprocess.run(["ruff", "check", "--preview", "--no-cache", "--select", ",".join(codes), "--output-format",
                          "json", "--exit-zero", *files], capture_output=True, text=True).stdout
    for item in json.loads(out or "[]"):
        found[item["code"]].add((item["filename"], item["location"]["row"]))
    return found


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("lib", nargs="?")
    parser.add_argument("--samples", type=int, default=3)
    args = parser.parse_args()
    lib, files = stdlib_files(args.lib)
    quarry = quarry_binary()
    ours, available = quarry_locations(quarry, files, list(PAIRS))
    theirs = ruff_locations(files, sorted({c for codes in PAIRS.values() for c in codes}))
    print(f"{lib}: {len(files)} files")
    print(f"{'quarry query':<40} {'ruff':<14} {'both':>6} {'only quarry':>12} {'only ruff':>10}")
    for query_id, codes in PAIRS.items():
        if query_id not in available:
            continue
        q = ours[query_id]
        must = ALIGN.get(query_id, {}).get("ruff_line_must_contain", {})
        r = set()
        for c in codes:
            r |= {(f, l) for f, l in theirs[c] if c not in must or must[c] in line_text(f, l)}
        print(f"{query_id:<40} {'+'.join(codes):<14} {len(q & r):>6} {len(q - r):>12} {len(r - q):>10}")
        for label, sample in (("only quarry", sorted(q - r)), ("only ruff", sorted(r - q))):
            for file, line in sample[: args.samples]:
                text = line_text(file, line).strip()
                print(f"    {label}: {file.replace(lib + '/', '')}:{line}: {text[:90]}")


if __name__ == "__main__":
    main()
