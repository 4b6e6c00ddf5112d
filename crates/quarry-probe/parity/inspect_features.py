"""INSPECT's probe inputs and features computed with transformers, as INSPECT's extractor
(`probe_extractor.py` of github.com/giganticode/inspect) computes them, for quarry's checks.

The rule, for every model family: the last tab-separated field of each line, stripped;
`tokenize` without special tokens; sub-tokens cut to `L - 2`, `L` the longest tokenization in
the file (at most the model's input length); the strings `[CLS]` and `[SEP]` around them,
looked up with `convert_tokens_to_ids` (the unknown token where the vocabulary lacks them);
padded with id 0 to `L`. Encoder-only models get the attention mask; T5 and BART models get
none (INSPECT calls `model(input_ids=...)`), so their encoders attend to the padding. The
features are every hidden state at position 0 (quarry probes KTX at position 1).

Commands (from the workspace root, in a venv with `pip install torch transformers`):

  fixture OUT
      The per-family fixture of quarry-probe's `input_rules` test: six samples of the
      released LEN and IDN 1k files (`--data`, INSPECT's `datasets_*` folders), a WordPiece
      vocabulary trained on LEN's code (BERT), and for each family the ids above with, for the
      T5, BART and PLBART fixtures of quarry-model, every layer's position-0 features.

  model {t5,bart} OUT --tokenizer DIR
      A random-weight encoder–decoder of CodeT5-small's shape (d_model 512, 6 layers, 8 heads,
      d_ff 2048; vocabulary and special ids from DIR's tokenizer.json), written by
      transformers with that tokenizer.json. Not committed (about 240 MB).

  compare MODEL DATA NPY [--float64] [--cache DIR]
      INSPECT's features of MODEL on the dataset file DATA, against the `layer_NN.npy` that
      `quarry probe --npy NPY` wrote: per layer, the largest absolute difference; with
      `--float64`, also how far each float32 computation (quarry's, transformers') lies from
      transformers in float64, which tells rounding from a different computation.
      `--cache DIR` writes transformers' float32 features as quarry's feature cache
      (`layer_NN.bin`), for `quarry probe --features DIR` (the probes' accuracies on them),
      or reads them from there when it holds them already.

  experiment MODEL DATA QUARRY_OUT PY_OUT [--size 1k] [--threads N] [--float64 [--t5-variance-f64]]
      Every task `quarry experiment inspect --out QUARRY_OUT` extracted features for
      (`QUARRY_OUT/features/NAME/TASK_inspect_HASH_mMODEL/`): transformers' float32 features of MODEL
      on DATA's `datasets_TASK/TASK_ORIG_{size}.txt`, samples read as quarry reads them (a
      line continuing the sample above is not a sample), KTX at position 1, written into the
      same entry under PY_OUT, so `quarry experiment inspect --out PY_OUT` (same --name)
      probes transformers' features; per task and layer the largest absolute difference from
      quarry's, printed and written to PY_OUT/parity.json. A task already in PY_OUT is read,
      not recomputed. With `--float64` transformers computes in float64 (to compare with
      `quarry experiment inspect --dtype f64`); both sides' features are rounded to float32
      as the cache stores them. transformers' T5LayerNorm takes its variance in float32
      whatever the model's dtype; `--t5-variance-f64` takes it in the model's dtype, so both
      sides compute wholly in float64.

  accuracies QUARRY_OUT PY_OUT
      The probes' test accuracies per task and layer in the two outputs' `results.csv`
      (quarry's features; transformers' features, probed by `quarry experiment inspect
      --out PY_OUT`), as a Markdown table, and how many layers differ.
"""

import argparse
import json
import os
import sys

import numpy as np
import torch
from tokenizers import BertWordPieceTokenizer
from transformers import (
    AutoModel,
    AutoTokenizer,
    BartConfig,
    BartForConditionalGeneration,
    BertTokenizer,
    PreTrainedTokenizerFast,
    T5Config,
    T5ForConditionalGeneration,
)

torch.manual_seed(0)
torch.set_num_threads(1)
HERE = os.path.dirname(os.path.abspath(__file__))
SEQ2SEQ = os.path.join(HERE, "../../quarry-model/tests/fixtures/seq2seq")
TOKENIZERS = os.path.join(HERE, "../../quarry-model/tests/fixtures/tokenizers")


def read_texts(path):
    """INSPECT's `read_examples`: one example per line, its last tab-separated field."""
    with open(path, encoding="utf-8") as f:
        return [line.strip().split("\t")[-1] for line in f]


def inspect_inputs(tok, texts, max_len):
    """INSPECT's `convert_examples_to_features` with `get_max_seq_length`: (ids, mask) pairs."""
    cands = [tok.tokenize(t) for t in texts]
    length = min(max(len(c) for c in cands), max_len)
    out = []
    for cand in cands:
        if len(cand) > length - 2:
            cand = cand[0 : length - 2]
        ids = tok.convert_tokens_to_ids(["[CLS]"] + cand + ["[SEP]"])
        mask = [1] * len(ids)
        while len(ids) < length:
            ids.append(0)
            mask.append(0)
        out.append((ids, mask))
    return out


def max_len_of(config):
    if config.model_type == "t5":
        return config.to_dict().get("n_positions", 512)
    return config.max_position_embeddings


def features(model, pairs, batch=8, position=0):
    """Every hidden state at `position`: layers x samples x d_model."""
    seq2seq = model.config.model_type in ("t5", "bart", "plbart")
    encoder = model.get_encoder() if seq2seq and hasattr(model, "get_encoder") else model
    layers = None
    with torch.no_grad():
        for start in range(0, len(pairs), batch):
            chunk = pairs[start : start + batch]
            ids = torch.tensor([p[0] for p in chunk])
            if seq2seq:
                out = encoder(input_ids=ids, output_hidden_states=True)
            else:
                out = encoder(
                    input_ids=ids, attention_mask=torch.tensor([p[1] for p in chunk]), output_hidden_states=True
                )
            states = [h[:, position].float().numpy() for h in out.hidden_states]
            layers = states if layers is None else [np.concatenate([a, b]) for a, b in zip(layers, states)]
    return layers


def load(model_dir):
    model = AutoModel.from_pretrained(model_dir, dtype=torch.float32).eval()
    if os.path.exists(f"{model_dir}/tokenizer_config.json"):
        return model, AutoTokenizer.from_pretrained(model_dir)
    # quarry-model's fixtures hold a bare tokenizer.json (byte-level BPE, `<unk>`).
    return model, PreTrainedTokenizerFast(tokenizer_file=f"{model_dir}/tokenizer.json", unk_token="<unk>")


def fixture(args):
    os.makedirs(args.out, exist_ok=True)
    lines = []
    for task, count in (("LEN", 3), ("IDN", 3)):
        with open(f"{args.data}/datasets_{task}/{task}_ORIG_1k.txt", encoding="utf-8") as f:
            rows = [line for line in f if line.count("\t") == 2]
        rows.sort(key=lambda line: (len(line), line))
        lines += rows[:count]
    with open(f"{args.out}/samples.txt", "w", encoding="utf-8") as f:
        f.writelines(lines)
    texts = read_texts(f"{args.out}/samples.txt")
    # BERT: a lower-cased WordPiece vocabulary trained on LEN's code.
    wordpiece = BertWordPieceTokenizer(lowercase=True)
    wordpiece.train_from_iterator(
        read_texts(f"{args.data}/datasets_LEN/LEN_ORIG_1k.txt"), vocab_size=400, show_progress=False
    )
    os.makedirs(f"{args.out}/bert", exist_ok=True)
    wordpiece.save_model(f"{args.out}/bert")
    reference = {}
    bert = BertTokenizer(vocab=f"{args.out}/bert/vocab.txt", do_lower_case=True)
    reference["bert"] = {"ids": [ids for ids, _ in inspect_inputs(bert, texts, 512)]}
    roberta = AutoTokenizer.from_pretrained(f"{TOKENIZERS}/codet5_bpe")
    reference["roberta"] = {"ids": [ids for ids, _ in inspect_inputs(roberta, texts, 512)]}
    for family in ("t5", "bart", "plbart"):
        model, tok = load(f"{SEQ2SEQ}/{family}")
        pairs = inspect_inputs(tok, texts, max_len_of(model.config))
        layers = features(model, pairs)
        reference[family] = {
            "ids": [ids for ids, _ in pairs],
            "features": [[layer[i].tolist() for layer in layers] for i in range(len(texts))],
        }
    with open(f"{args.out}/reference.json", "w") as f:
        json.dump(reference, f, separators=(",", ":"))


def make_model(args):
    tok = AutoTokenizer.from_pretrained(args.tokenizer)
    vocab = len(tok)
    if args.kind == "t5":
        config = T5Config(
            vocab_size=vocab,
            d_model=512,
            d_kv=64,
            d_ff=2048,
            num_layers=6,
            num_decoder_layers=6,
            num_heads=8,
            feed_forward_proj="relu",
            pad_token_id=tok.pad_token_id,
            eos_token_id=tok.eos_token_id,
            decoder_start_token_id=tok.pad_token_id,
            n_positions=512,
        )
        model = T5ForConditionalGeneration(config)
    else:
        config = BartConfig(
            vocab_size=vocab,
            d_model=512,
            encoder_layers=6,
            decoder_layers=6,
            encoder_attention_heads=8,
            decoder_attention_heads=8,
            encoder_ffn_dim=2048,
            decoder_ffn_dim=2048,
            max_position_embeddings=512,
            pad_token_id=tok.pad_token_id,
            bos_token_id=tok.bos_token_id,
            eos_token_id=tok.eos_token_id,
        )
        model = BartForConditionalGeneration(config)
    model.eval().save_pretrained(args.out)
    tok.save_pretrained(args.out)


def write_cache(directory, layers, model, dataset):
    """Features in quarry-probe's cache format (`cache.rs`): magic, header length, JSON, f32."""
    os.makedirs(directory, exist_ok=True)
    for n, rows in enumerate(layers):
        rows = np.ascontiguousarray(rows, dtype="<f4")
        header = json.dumps(
            {"rows": rows.shape[0], "dim": rows.shape[1], "layer": n, "model": model, "dataset": dataset}
        ).encode()
        with open(f"{directory}/layer_{n:02}.bin", "wb") as f:
            f.write(b"QPFEAT1\n" + len(header).to_bytes(4, "little") + header + rows.tobytes())


def read_layer(path):
    """One cache file: its JSON header and its rows x dim float32 matrix."""
    with open(path, "rb") as f:
        data = f.read()
    size = int.from_bytes(data[8:12], "little")
    header = json.loads(data[12 : 12 + size])
    return header, np.frombuffer(data[12 + size :], dtype="<f4").reshape(header["rows"], header["dim"])


def read_cache(directory):
    """The layers of a cache `write_cache` wrote, or None where it holds none."""
    layers = []
    while os.path.exists(f"{directory}/layer_{len(layers):02}.bin"):
        layers.append(read_layer(f"{directory}/layer_{len(layers):02}.bin")[1])
    return layers or None


def compare(args):
    model, tok = load(args.model)
    texts = read_texts(args.data)
    pairs = inspect_inputs(tok, texts, max_len_of(model.config))
    layers = read_cache(args.cache) if args.cache else None
    if layers is None:
        layers = features(model, pairs)
        if args.cache:
            write_cache(args.cache, layers, "transformers", os.path.basename(args.data))
    exact = features(model.double(), pairs) if args.float64 else [None] * len(layers)
    worst = 0.0
    for n, (want, f64) in enumerate(zip(layers, exact)):
        got = np.load(f"{args.npy}/layer_{n:02}.npy")
        if got.shape != want.shape:
            sys.exit(f"layer {n}: quarry {got.shape}, transformers {want.shape}")
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        line = f"layer {n}: max |quarry - transformers| {diff.max():.3g} (max |value| {np.abs(want).max():.3g})"
        if f64 is not None:
            quarry64 = np.abs(got.astype(np.float64) - f64).max()
            torch64 = np.abs(want.astype(np.float64) - f64).max()
            line += f"; from float64: quarry {quarry64:.3g}, transformers float32 {torch64:.3g}"
        print(line)
        worst = max(worst, diff.max())
    print(f"worst: {worst:.3g}")


SPLITS = ("tr", "va", "te")


def read_samples(path):
    """The texts the extractor tokenizes, of the samples quarry reads (`dataset.rs`): lines
    `split<TAB>label<TAB>text` with a known split and a label; a line without a split code
    continues the sample above and is not one (the extractor would read it as a sample)."""
    texts = []
    with open(path, encoding="utf-8", errors="replace", newline="\n") as f:
        for line in f:
            line = line.rstrip("\n").removesuffix("\r")
            fields = line.split("\t", 2)
            if line.strip() and fields[0] in SPLITS and len(fields) == 3 and fields[1]:
                texts.append(line.rsplit("\t", 1)[-1].rstrip())
    return texts


def experiment(args):
    torch.set_num_threads(args.threads)
    model, tok = load(args.model)
    if args.float64:
        model = model.double()
    if args.t5_variance_f64:
        from transformers.models.t5 import modeling_t5

        def forward(self, hidden):
            variance = hidden.pow(2).mean(-1, keepdim=True)
            return self.weight * (hidden * torch.rsqrt(variance + self.variance_epsilon))

        modeling_t5.T5LayerNorm.forward = forward
    (name,) = os.listdir(f"{args.quarry_out}/features")
    report = {}
    for entry in sorted(os.listdir(f"{args.quarry_out}/features/{name}")):
        task = entry.split("_")[0]
        ours = read_cache(f"{args.quarry_out}/features/{name}/{entry}")
        if ours is None:
            continue
        target = f"{args.py_out}/features/{name}/{entry}"
        layers = read_cache(target)
        if layers is None:
            texts = read_samples(f"{args.data}/datasets_{task}/{task}_ORIG_{args.size}.txt")
            pairs = inspect_inputs(tok, texts, max_len_of(model.config))
            layers = features(model, pairs, position=1 if task == "KTX" else 0)
            dataset = read_layer(f"{args.quarry_out}/features/{name}/{entry}/layer_00.bin")[0]["dataset"]
            write_cache(target, layers, name, dataset)
        if [a.shape for a in ours] != [b.shape for b in layers]:
            sys.exit(f"{task}: quarry's features are {ours[0].shape} x {len(ours)}, transformers' {layers[0].shape} x {len(layers)}")
        diffs = [float(np.abs(a.astype(np.float64) - b).max()) for a, b in zip(ours, layers)]
        peaks = [float(np.abs(b).max()) for b in layers]
        differing = sum(int((a != b).sum()) for a, b in zip(ours, layers)) / sum(a.size for a in ours)
        report[task] = {
            "samples": len(layers[0]),
            "max_abs_difference": diffs,
            "max_abs_value": peaks,
            "fraction_differing": differing,
        }
        print(f"{task}: {len(layers[0])} samples, max |quarry - transformers| per layer "
              + " / ".join(f"{d:.2g}" for d in diffs)
              + f" (values up to {max(peaks):.3g}; {differing:.2%} of the values differ)", flush=True)
    with open(f"{args.py_out}/parity.json", "w") as f:
        json.dump(report, f, indent=1)


def read_accuracies(path):
    """task -> [test accuracy per layer] from a `results.csv`."""
    import csv

    rows = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            rows.setdefault(row["task"], {})[int(row["layer"])] = float(row["accuracy"])
    return {task: [layers[n] for n in sorted(layers)] for task, layers in rows.items()}


def accuracies(args):
    ours = read_accuracies(f"{args.quarry_out}/results.csv")
    theirs = read_accuracies(f"{args.py_out}/results.csv")
    differing = 0
    print("| task | test accuracy per layer, % | layers that differ |")
    print("| --- | --- | --- |")
    for task in sorted(ours):
        a, b = ours[task], theirs.get(task, [])
        diff = sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
        differing += diff
        shown = " / ".join(f"{100 * x:.1f}" for x in a)
        if diff:
            shown += " (transformers' features: " + " / ".join(f"{100 * y:.1f}" for y in b) + ")"
        print(f"| {task} | {shown} | {diff} of {len(a)} |")
    print(f"\n{differing} of {sum(map(len, ours.values()))} layer accuracies differ")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("fixture")
    p.add_argument("out")
    p.add_argument("--data", required=True)
    p = sub.add_parser("model")
    p.add_argument("kind", choices=["t5", "bart"])
    p.add_argument("out")
    p.add_argument("--tokenizer", required=True)
    p = sub.add_parser("compare")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("npy")
    p.add_argument("--cache")
    p.add_argument("--float64", action="store_true")
    p = sub.add_parser("experiment")
    p.add_argument("model")
    p.add_argument("data")
    p.add_argument("quarry_out")
    p.add_argument("py_out")
    p.add_argument("--size", default="1k")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--float64", action="store_true")
    p.add_argument("--t5-variance-f64", action="store_true")
    p = sub.add_parser("accuracies")
    p.add_argument("quarry_out")
    p.add_argument("py_out")
    args = parser.parse_args()
    commands = {
        "fixture": fixture,
        "model": make_model,
        "compare": compare,
        "experiment": experiment,
        "accuracies": accuracies,
    }
    commands[args.command](args)


if __name__ == "__main__":
    main()
