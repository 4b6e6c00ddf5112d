#!/usr/bin/env python3
"""Compare quarry's linear probe with scikit-learn's LogisticRegression on the
same cached features and the same train/validation/test split.

Both run in this one script, on the same input:

  1. `quarry probe` extracts (or reuses) the features of every layer into the
     cache folder and reports its test accuracy per layer;
  2. for each layer, LogisticRegression is fitted on the training split of the
     very same `layer_NN.bin` file (standardised on the training split, as
     quarry does by default), its regularisation chosen on validation from a
     grid, and scored on the test split.

Usage:
  python3 compare_sklearn.py --quarry target/release/quarry \
      --task LEN --data /path/LEN_ORIG_1k.txt --model hashed-tokens --out OUT_DIR
  python3 compare_sklearn.py --quarry target/release/quarry --task KTX \
      --data /path/KTX_ORIG_1k.txt --model all-MiniLM-L6-v2 --features FEATURES_DIR --out OUT_DIR
"""

import argparse
import json
import pathlib
import struct
import subprocess
import sys
import time

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler


def read_layer(path):
    data = pathlib.Path(path).read_bytes()
    if data[:8] != b"QPFEAT1\n":
        sys.exit(f"{path}: not a quarry feature file")
    (length,) = struct.unpack("<I", data[8:12])
    header = json.loads(data[12 : 12 + length])
    values = np.frombuffer(data[12 + length :], dtype="<f4")
    return header, values.reshape(header["rows"], header["dim"])


def read_dataset(path):
    """Splits and labels, read the way quarry reads them: a line without a
    split tag continues the sample above it."""
    splits, labels = [], []
    for raw in pathlib.Path(path).read_bytes().split(b"\n"):
        line = raw.rstrip(b"\r").decode("utf-8", "replace")
        if not line.strip():
            continue
        parts = line.split("\t", 2)
        if len(parts) == 3 and parts[0] in ("tr", "va", "te") and parts[1]:
            splits.append(parts[0])
            labels.append(parts[1])
    return np.array(splits), np.array(labels)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quarry", required=True)
    ap.add_argument("--task", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--model", default="hashed-tokens")
    ap.add_argument("--out", required=True)
    ap.add_argument("--features", help="precomputed layer_NN.bin folder (e.g. from bert_features.py)")
    ap.add_argument("--batch-size", default="1")
    args = ap.parse_args()

    command = [args.quarry, "probe", "--task", args.task, "--data", args.data, "--model", args.model,
               "--out", args.out, "--batch-size", args.batch_size, "--format", "json"]
    if args.features:
        command += ["--features", args.features]
    start = time.perf_counter()
    result = subprocess.run(command, check=True, capture_output=True, text=True)
    quarry_seconds = time.perf_counter() - start
    experiment = json.loads(result.stdout)

    if args.features:
        cache = sorted(pathlib.Path(args.features).glob("layer_*.bin"))
    else:
        cache = sorted(pathlib.Path(args.out, "features").glob(f"*/{args.task}_*/layer_*.bin"))
    if not cache:
        sys.exit("no cached features found under --out")
    splits, labels = read_dataset(args.data)

    print(f"task {args.task}, model {args.model}, {len(labels)} samples "
          f"({(splits == 'tr').sum()}/{(splits == 'va').sum()}/{(splits == 'te').sum()})")
    print(f"{'layer':>5}  {'quarry':>8}  {'sklearn':>8}  {'diff':>7}  sklearn C")
    start = time.perf_counter()
    rows = []
    for path in cache:
        header, x = read_layer(path)
        if header["rows"] != len(labels):
            sys.exit(f"{path}: {header['rows']} rows for {len(labels)} samples")
        train, valid, test = (splits == "tr"), (splits == "va"), (splits == "te")
        # quarry standardises each feature on the training split; so does this side.
        scaler = StandardScaler().fit(x[train])
        x = scaler.transform(x)
        best = None
        # quarry's L2 grid 1e-5..1e-2 on the mean loss is C = 1 / (l2 * n_train) for sklearn's summed loss.
        for l2 in (1e-5, 1e-4, 1e-3, 1e-2):
            c = 1.0 / (l2 * train.sum())
            clf = LogisticRegression(C=c, max_iter=2000)
            clf.fit(x[train], labels[train])
            score = clf.score(x[valid], labels[valid])
            if best is None or score > best[0]:
                best = (score, c, clf)
        sk = best[2].score(x[test], labels[test])
        layer = header["layer"]
        q = next(l["accuracy"] for l in experiment["layers"] if l["layer"] == layer)
        rows.append((layer, q, sk))
        print(f"{layer:>5}  {100 * q:>7.2f}%  {100 * sk:>7.2f}%  {100 * (q - sk):>+6.2f}  {best[1]:.3g}")
    sklearn_seconds = time.perf_counter() - start
    print(f"time: quarry {quarry_seconds:.2f} s (extraction, 4-value L2 grid, 20 epochs max, all layers); "
          f"sklearn {sklearn_seconds:.2f} s (4-value C grid, all layers); "
          f"quarry/sklearn time ratio {quarry_seconds / sklearn_seconds:.2f}")
    mean_gap = sum(abs(q - s) for _, q, s in rows) / len(rows)
    print(f"mean absolute accuracy gap: {100 * mean_gap:.2f} points")


if __name__ == "__main__":
    main()
