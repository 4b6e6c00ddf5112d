#!/usr/bin/env python3
"""Cross-checks quarry's BM25 against rank-bm25 on CS1QA's answer-retrieval files and
compares their speed in the same run.

For every question, the top-K corpus questions of rank-bm25's BM25Okapi (defaults) over
`text.lower().split()` tokens must equal quarry's: the same scores bit for bit, and the same
ids except where scores tie (rank-bm25's `np.argsort` order among ties is unspecified).
Timing: indexing the corpus and scoring/ranking every question, best of REPEAT passes, for
each side; the ratio is rank-bm25's time over quarry's.

    python3 crates/quarry-eval/bench/cs1qa_bm25.py [--data DIR] [--k 5] [--repeat 5]

Builds the release example `cs1qa_bm25` first. Exit status 1 on any disagreement.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
from rank_bm25 import BM25Okapi

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def texts(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l)["text"] for l in f if l.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=os.path.join(ROOT, "..", "..", "shared", "data", "cs1qa", "answer_retrieval"))
    ap.add_argument("--questions", default="q_test.jsonl")
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    corpus_path = os.path.join(args.data, "corpus.jsonl")
    questions_path = os.path.join(args.data, args.questions)
    corpus, questions = texts(corpus_path), texts(questions_path)

    subprocess.run(["cargo", "build", "--release", "-q", "-p", "quarry-eval", "--example", "cs1qa_bm25"], cwd=ROOT, check=True)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target"))
    exe = os.path.join(target, "release", "examples", "cs1qa_bm25")
    run = subprocess.run([exe, corpus_path, questions_path, str(args.k), str(args.repeat)], capture_output=True, text=True, check=True)
    quarry = [json.loads(l) for l in run.stdout.splitlines()]
    quarry_seconds = float(run.stderr.split()[-1])

    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        bm25 = BM25Okapi([t.lower().split() for t in corpus])
        ranked = []
        for q in questions:
            scores = bm25.get_scores(q.lower().split())
            top = np.argsort(scores)[::-1][: args.k]
            ranked.append((top, scores))
        best = min(best, time.perf_counter() - start)

    same_ids = tied = bad = 0
    for i, ((top, scores), q) in enumerate(zip(ranked, quarry)):
        ref_scores = [float(scores[j]) for j in top]
        if ref_scores != q["scores"]:
            bad += 1
            print(f"question {i}: scores differ: rank-bm25 {ref_scores} quarry {q['scores']}", file=sys.stderr)
            continue
        if [int(j) for j in top] == q["top"]:
            same_ids += 1
            continue
        # ids may differ only among equal scores: quarry's ids must score what rank-bm25's do
        if [float(scores[j]) for j in q["top"]] == ref_scores:
            tied += 1
        else:
            bad += 1
            print(f"question {i}: ids differ: rank-bm25 {list(top)} quarry {q['top']}", file=sys.stderr)

    n = len(questions)
    print(f"{n} questions against {len(corpus)} corpus questions, top {args.k}")
    print(f"identical top-{args.k}: {same_ids}; equal scores, tied ids in another order: {tied}; disagreements: {bad}")
    print(f"rank-bm25 {best:.4f} s, quarry {quarry_seconds:.6f} s (best of {args.repeat}): {best / quarry_seconds:.1f}x")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
