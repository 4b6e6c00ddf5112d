"""Compares the merged build's findings with the judged samples.

`quarry query --format jsonl` output of each package (PKG.jsonl, run as
`quarry query --format jsonl --exit-zero PKG_DIR` from the directory that
holds PKG_DIR; also once with `--ignore-noqa`) is read from two folders.

usage:
  python3 merged.py mark JSONL_DIR NOQA_DIR dev.tsv heldout.tsv heldout2.tsv
      rewrites each judgement file with a `merged` column: `kept` (still
      reported), `suppressed` (reported only with --ignore-noqa: a `# noqa`
      comment on the line hides it) or `gone` (not reported at all)
  python3 merged.py new NOQA_DIR OLD_DIR
      lists findings (with --ignore-noqa) absent from the previous build's
      digests OLD_DIR/PKG.final.tsv (else PKG.after4.tsv): query, 0-based
      line (the findings_digest format)
  python3 merged.py summarize dev.tsv heldout.tsv heldout2.tsv merged_new.tsv
      precision of the merged build per set, package and query
"""
import collections
import glob
import json
import os
import sys

SETS = {
    "dev": ["requests", "attrs", "click", "jinja2", "flask"],
    "held out": ["urllib3", "packaging", "pyparsing", "six", "markdown"],
    "held out 2": ["werkzeug", "tqdm", "itsdangerous"],
}
FILE_SET = {"dev.tsv": "dev", "heldout.tsv": "held out", "heldout2.tsv": "held out 2"}


def set_of(location):
    name = location.split("/")[0].rsplit("-", 1)[0]
    return next(s for s, pkgs in SETS.items() if name in pkgs)


def findings(folder):
    """(query, package/path, 1-based line) of every answer in folder/*.jsonl."""
    keys = collections.Counter()
    for path in glob.glob(os.path.join(folder, "*.jsonl")):
        for line in open(path):
            d = json.loads(line)
            keys[(d["query_id"], d["file"], d["answer_spans"][0]["start_line"] + 1)] += 1
    return keys


def load(path):
    with open(path) as f:
        header = f.readline().rstrip("\n").split("\t")
        return header, [dict(zip(header, l.rstrip("\n").split("\t"))) for l in f if l.strip()]


def mark(folder, noqa_folder, paths):
    shown, everything = findings(folder), findings(noqa_folder)
    for path in paths:
        header, rows = load(path)
        if "merged" not in header:
            header.append("merged")
        for r in rows:
            file, line = r["location"].rsplit(":", 1)
            key = (r["query"], file, int(line))
            r["merged"] = "kept" if key in shown else "suppressed" if key in everything else "gone"
        with open(path, "w") as f:
            f.write("\t".join(header) + "\n")
            for r in rows:
                f.write("\t".join(r[h] for h in header) + "\n")


def new(noqa_folder, old_folder):
    now = findings(noqa_folder)
    before = collections.Counter()
    for path in glob.glob(os.path.join(noqa_folder, "*.jsonl")):
        pkg = os.path.basename(path)[: -len(".jsonl")]
        old = os.path.join(old_folder, pkg + ".final.tsv")
        if not os.path.exists(old):
            old = os.path.join(old_folder, pkg + ".after4.tsv")
        for line in open(old):
            query, _, file, span = line.rstrip("\n").split("\t")[:4]
            before[(query, f"{pkg}/{file}", int(span.split(":")[0]) + 1)] += 1
    for key in sorted(now - before):
        print(f"+ {key[0]}\t{key[1]}:{key[2]}")
    for key in sorted(before - now):
        print(f"- {key[0]}\t{key[1]}:{key[2]}")


def precision(tp, fp):
    return f"{100 * tp / (tp + fp):.1f}%" if tp + fp else "-"


def summarize(paths):
    judged, added = [], []
    for path in paths:
        _, rows = load(path)
        for r in rows:
            r["set"] = FILE_SET.get(os.path.basename(path)) or set_of(r["location"])
        (added if "merged" not in rows[0] else judged).extend(rows)

    def count(rows):
        c = collections.Counter(r["verdict"] for r in rows)
        return len(rows), c["TP"], c["FP"], c["debatable"]

    def line(name, old, before, now, ignore_noqa):
        n, tp, fp, deb = count(old)
        _, tp1, fp1, _ = count(before)
        m, tp2, fp2, deb2 = count(now)
        _, tp3, fp3, _ = count(ignore_noqa)
        print(f"| {name} | {n} | {precision(tp1, fp1)} | {m} | {tp2} | {fp2} | {deb2} | {precision(tp2, fp2)} | {precision(tp3, fp3)} |")

    def table(key, title):
        print(f"| {title} | judged | precision before (after fixes) | judged, merged build | TP | FP | debatable | precision, merged build | precision, merged build, --ignore-noqa |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
        names = sorted({key(r) for r in judged + added}, key=lambda s: list(SETS).index(s) if s in SETS else s)
        for name in names + ["all"]:
            sel = (lambda r: True) if name == "all" else (lambda r: key(r) == name)
            old = [r for r in judged if sel(r)]
            before = [r for r in old if r["after_fixes"] != "gone"]
            new_rows = [r for r in added if sel(r)]
            now = [r for r in old if r["merged"] == "kept"] + new_rows
            ignore_noqa = [r for r in old if r["merged"] != "gone"] + new_rows
            line(f"**{name}**" if name == "all" else name, old, before, now, ignore_noqa)
        print()

    table(lambda r: r["set"], "set")
    table(lambda r: r["location"].split("/")[0], "package")
    table(lambda r: r["query"], "query")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "mark":
        mark(args[0], args[1], args[2:])
    elif command == "new":
        new(args[0], args[1])
    else:
        summarize(args)
