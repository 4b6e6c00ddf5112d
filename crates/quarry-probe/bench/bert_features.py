#!/usr/bin/env python3
"""Per-layer features of a BERT checkpoint (Hugging Face layout: config.json,
model.safetensors, tokenizer.json) for every sample of an INSPECT dataset,
written in quarry's feature-cache format (layer_NN.bin) so that
`quarry probe --features DIR` can probe them.

A plain numpy forward pass (no torch): embeddings, then each encoder layer.
Layer 0 is the embedding output, layer i the output of encoder layer i. The
vector of a sample is its [CLS] state; for KTX and IDN, whose samples are a
single token, it is the mean of that token's word pieces, as INSPECT probes
the token itself.

This is a reference tool for benchmarks until quarry's own encoder lands.

Usage:
  python3 bert_features.py --model DIR --data KTX_ORIG_1k.txt --task KTX --out FEATURES_DIR
"""

import argparse
import json
import math
import pathlib
import struct

import numpy as np
from safetensors.numpy import load_file
from scipy.special import erf
from tokenizers import Tokenizer


def layer_norm(x, weight, bias, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * weight + bias


def gelu(x):
    return 0.5 * x * (1.0 + erf(x / math.sqrt(2.0)))


class Bert:
    def __init__(self, model_dir):
        model_dir = pathlib.Path(model_dir)
        self.config = json.loads((model_dir / "config.json").read_text())
        weights = load_file(str(model_dir / "model.safetensors"))
        prefix = "bert." if any(k.startswith("bert.") for k in weights) else ""
        self.w = {k[len(prefix):]: v for k, v in weights.items()}
        self.tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.eps = self.config.get("layer_norm_eps", 1e-12)
        self.heads = self.config["num_attention_heads"]
        self.max_len = self.config.get("max_position_embeddings", 512)

    def hidden_states(self, ids):
        w = self.w
        n = len(ids)
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:n] \
            + w["embeddings.token_type_embeddings.weight"][0]
        x = layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        states = [x]
        dim = x.shape[-1]
        head = dim // self.heads
        for i in range(self.config["num_hidden_layers"]):
            p = f"encoder.layer.{i}."
            lin = lambda name, v: v @ w[p + name + ".weight"].T + w[p + name + ".bias"]
            q = lin("attention.self.query", x).reshape(n, self.heads, head).transpose(1, 0, 2)
            k = lin("attention.self.key", x).reshape(n, self.heads, head).transpose(1, 0, 2)
            v = lin("attention.self.value", x).reshape(n, self.heads, head).transpose(1, 0, 2)
            scores = q @ k.transpose(0, 2, 1) / math.sqrt(head)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, dim)
            x = layer_norm(lin("attention.output.dense", context) + x,
                           w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"], self.eps)
            inner = gelu(lin("intermediate.dense", x))
            x = layer_norm(lin("output.dense", inner) + x,
                           w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"], self.eps)
            states.append(x)
        return states


def read_samples(path):
    samples = []
    for raw in pathlib.Path(path).read_bytes().split(b"\n"):
        line = raw.rstrip(b"\r").decode("utf-8", "replace")
        if not line.strip():
            continue
        parts = line.split("\t", 2)
        if len(parts) == 3 and parts[0] in ("tr", "va", "te") and parts[1]:
            samples.append(parts[2].replace("\\\\", "\\"))
        elif samples:
            samples[-1] += "\n" + line
    return samples


def write_layer(path, layer, rows, model, dataset):
    header = json.dumps({"rows": rows.shape[0], "dim": rows.shape[1], "layer": layer,
                         "model": model, "dataset": dataset}, separators=(",", ":")).encode()
    tmp = path.with_name("." + path.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(b"QPFEAT1\n" + struct.pack("<I", len(header)) + header)
        f.write(rows.astype("<f4").tobytes())
    tmp.replace(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--data", required=True)
    ap.add_argument("--task", required=True)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    bert = Bert(args.model)
    token_task = args.task.upper() in ("KTX", "IDN")
    samples = read_samples(args.data)
    per_layer = None
    for i, text in enumerate(samples):
        ids = bert.tokenizer.encode(text).ids[: bert.max_len]
        if len(ids) == bert.max_len:
            ids[-1] = ids[-1] if ids[-1] == bert.tokenizer.token_to_id("[SEP]") else bert.tokenizer.token_to_id("[SEP]")
        states = bert.hidden_states(np.array(ids))
        vectors = [s[1:-1].mean(0) if token_task and len(ids) > 2 else s[0] for s in states]
        if per_layer is None:
            per_layer = [np.zeros((len(samples), v.shape[0]), dtype=np.float32) for v in vectors]
        for layer, v in enumerate(vectors):
            per_layer[layer][i] = v
        if (i + 1) % 100 == 0:
            print(f"{i + 1}/{len(samples)}", flush=True)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    model_name = pathlib.Path(args.model).name
    for layer, rows in enumerate(per_layer):
        write_layer(out / f"layer_{layer:02d}.bin", layer, rows, model_name, pathlib.Path(args.data).name)
    print(f"wrote {len(per_layer)} layers x {len(samples)} samples to {out}")


if __name__ == "__main__":
    main()
