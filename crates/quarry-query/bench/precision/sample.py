"""Seeded, stratified sample of quarry findings for hand judgement.

Reads digests written by `examples/findings_digest` (one finding a line:
query id, polarity, path, answer spans, fact spans), one file per package
named `PKG.TAG.tsv`, and prints up to PER_QUERY findings of each query as
`query<TAB>PKG/path:line<TAB>findings of that query` (lines 1-based).
usage: python3 sample.py SEED PER_QUERY PKG.TAG.tsv...
"""
import collections
import os
import random
import sys

seed, per, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rows = []
for path in files:
    package = os.path.basename(path).rsplit(".", 2)[0]
    with open(path) as digest:
        for line in digest:
            query, _, file, spans, *_ = line.rstrip("\n").split("\t")
            rows.append((query, f"{package}/{file}", int(spans.split(":")[0]) + 1))
by_query = collections.defaultdict(list)
for row in rows:
    by_query[row[0]].append(row)
rng = random.Random(seed)
for query in sorted(by_query):
    found = sorted(by_query[query])
    picked = found if len(found) <= per else sorted(rng.sample(found, per))
    for _, location, line in picked:
        print(f"{query}\t{location}:{line}\t{len(found)}")
