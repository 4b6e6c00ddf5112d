#!/usr/bin/env python3
"""Times `quarry metrics` against the Python reference implementations on the
same pairs, in one run, and prints the scores (which must agree) and the
speed ratios.

Usage (from the repository root):
    cargo build --release -p quarry-cli
    pip install sacrebleu nltk rouge-score
    python3 crates/quarry-eval/bench/bench_metrics.py [--pairs 100000] [--quarry target/release/quarry]

quarry is timed as a whole process (start-up, reading the files, scoring,
printing JSON). Python is timed in-process from reading the files to the
final score, so its interpreter start-up and imports are not counted.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "fixtures"))
import make_metrics_fixture as fixture  # noqa: E402


def read_lines(path):
    with open(path, encoding="utf-8", newline="\n") as f:
        text = f.read()
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def py_bleu(hyp_path, ref_path):
    import sacrebleu

    hyps, refs = read_lines(hyp_path), read_lines(ref_path)
    return sacrebleu.corpus_bleu(hyps, [refs]).score


def py_sentence_bleu(hyp_path, ref_path):
    from nltk.translate.bleu_score import sentence_bleu

    hyps, refs = read_lines(hyp_path), read_lines(ref_path)
    # CS1QA's get_bleu.py: BLEU-1 without smoothing, averaged over answers
    scores = [sentence_bleu([r.split()], h.split(), weights=(1, 0, 0, 0)) for h, r in zip(hyps, refs)]
    return sum(scores) / len(scores)


def py_rouge(stem):
    def run(hyp_path, ref_path):
        from rouge_score import rouge_scorer

        scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=stem)
        hyps, refs = read_lines(hyp_path), read_lines(ref_path)
        scores = [scorer.score(r, h)["rougeL"].fmeasure for h, r in zip(hyps, refs)]
        return sum(scores) / len(scores)

    return run


def py_meteor(hyp_path, ref_path):
    from nltk.translate.meteor_score import meteor_score

    wordnet = fixture.open_wordnet()
    hyps, refs = read_lines(hyp_path), read_lines(ref_path)
    scores = [meteor_score([r.split()], h.split(), wordnet=wordnet) for h, r in zip(hyps, refs)]
    return sum(scores) / len(scores)


def py_squad(metric):
    def run(hyp_path, ref_path):
        hyps, refs = read_lines(hyp_path), read_lines(ref_path)
        return fixture.squad_corpus(metric, hyps, [refs])[1]

    return run


CASES = [
    ("bleu", [], "sacrebleu corpus_bleu", py_bleu),
    ("sentence-bleu", ["--weights", "1,0,0,0"], "nltk sentence_bleu (1,0,0,0)", py_sentence_bleu),
    ("rouge-l", [], "rouge-score rougeL", py_rouge(False)),
    ("rouge-l", ["--stem"], "rouge-score rougeL stemmer", py_rouge(True)),
    ("meteor", [], "nltk meteor_score + WordNet", py_meteor),
    ("em", [], "SQuAD v1.1 exact match", py_squad(fixture.squad_em)),
    ("f1", [], "SQuAD v1.1 F1", py_squad(fixture.squad_f1)),
]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100_000)
    parser.add_argument("--quarry", default="target/release/quarry")
    args = parser.parse_args()
    warnings.simplefilter("ignore")

    with tempfile.TemporaryDirectory(prefix="quarry-bench-") as tmp:
        hyps, refs, _ = fixture.make_pairs(args.pairs)
        hyp_path, ref_path = os.path.join(tmp, "hyp.txt"), os.path.join(tmp, "ref.txt")
        for path, lines in ((hyp_path, hyps), (ref_path, refs)):
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write("".join(line + "\n" for line in lines))
        print(f"{args.pairs} pairs, quarry = {args.quarry}")
        print(f"{'metric':<28}{'quarry s':>10}{'python s':>10}{'speed-up':>10}  scores (quarry / python)")
        for name, flags, label, py in CASES:
            cmd = [args.quarry, "metrics", name, "--hyp", hyp_path, "--ref", ref_path, "--format", "json"] + flags
            start = time.perf_counter()
            out = subprocess.run(cmd, capture_output=True, text=True, check=True)
            q_time = time.perf_counter() - start
            q_score = json.loads(out.stdout)["score"]
            start = time.perf_counter()
            p_score = py(hyp_path, ref_path)
            p_time = time.perf_counter() - start
            same = "same" if abs(q_score - p_score) <= 1e-9 * max(1.0, abs(p_score)) else "DIFFERENT"
            title = f"{name} {' '.join(flags)}".strip()
            print(f"{title:<28}{q_time:>10.3f}{p_time:>10.3f}{p_time / q_time:>9.1f}x  "
                  f"{q_score!r} / {p_score!r} {same} [{label}]", flush=True)


if __name__ == "__main__":
    main()
