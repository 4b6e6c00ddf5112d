"""Stratified, seeded sample of quarry findings for hand judgement.
usage: sample.py SEED PER_QUERY DIGEST.tsv...  (DIGEST named PKG.<tag>.tsv, from findings_digest)"""
import collections, os, random, sys
seed, per, files = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
rows = []
for f in files:
    pkg = os.path.basename(f).split('.')[0] if False else os.path.basename(f).rsplit('.', 2)[0]
    for line in open(f):
        q, _, path, spans, *_ = line.rstrip('\n').split('\t')
        line0 = int(spans.split(':')[0])
        rows.append((q, f"{pkg}/{path}", line0 + 1))
by = collections.defaultdict(list)
for r in rows:
    by[r[0]].append(r)
rng = random.Random(seed)
for q in sorted(by):
    rs = sorted(by[q])
    pick = rs if len(rs) <= per else sorted(rng.sample(rs, per))
    for r in pick:
        print(f"{q}\t{r[1]}:{r[2]}\t{len(rs)}")
