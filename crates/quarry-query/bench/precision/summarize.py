"""Summarises hand judgements (dev.tsv, heldout.tsv) as Markdown tables.

Each row of a judgement file is one sampled finding: query, location
(package/path:line, 1-based), the query's number of findings in that set,
verdict (TP, FP, debatable), whether the finding is still reported after
the fixes (`kept`, `gone`, `gone on branch project`) and a one-line reason.
Precision is TP / (TP + FP); debatable findings are counted apart.
usage: python3 summarize.py dev.tsv heldout.tsv
"""
import collections
import sys


def load(path):
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        return [dict(zip(header, line.rstrip("\n").split("\t"))) for line in f if line.strip()]


def precision(tp, fp):
    return f"{100 * tp / (tp + fp):.1f}%" if tp + fp else "-"


def table(rows, key, title):
    groups = collections.defaultdict(list)
    for row in rows:
        groups[key(row)].append(row)
    print(f"| {title} | judged | TP | FP | debatable | precision | FP left after fixes | precision after |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in sorted(groups) + ["all"]:
        group = rows if name == "all" else groups[name]
        count = collections.Counter(r["verdict"] for r in group)
        tp, fp, deb = count["TP"], count["FP"], count["debatable"]
        fp_left = sum(1 for r in group if r["verdict"] == "FP" and r["after_fixes"] != "gone")
        label = f"**{name}**" if name == "all" else name
        print(f"| {label} | {len(group)} | {tp} | {fp} | {deb} | {precision(tp, fp)} | {fp_left} | {precision(tp, fp_left)} |")
    print()


for path in sys.argv[1:]:
    rows = load(path)
    print(f"### {path}\n")
    table(rows, lambda r: r["location"].split("/")[0], "package")
    table(rows, lambda r: r["query"], "query")
