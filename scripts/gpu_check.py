"""The PyTorch side of `scripts/gpu-check`: a random-weight BERT of MiniLM's shape, and
quarry's CUDA binary checked against transformers on the same GPU (parity and speed).

Runs on the GPU machine (PyTorch, transformers); never in the normal test suite.

    python3 scripts/gpu_check.py make-model SHAPE_DIR OUT_MODEL_DIR
    python3 scripts/gpu_check.py parity QUARRY MODEL_DIR CORPUS OUT_JSON
    python3 scripts/gpu_check.py speed QUARRY MODEL_DIR OUT_JSON
    python3 scripts/gpu_check.py profile QUARRY MODEL_DIR OUT_JSON
"""

import collections
import csv
import glob
import io
import json
import math
import os
import shutil
import subprocess
import sys
import time

import torch

NUM_LABELS = 4  # quarry's span labels B, I, O, F
TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json")


def make_model(shape_dir, out_dir):
    """BERT for token classification with MiniLM's configuration and random weights, biases and
    layer norms perturbed (they start at 0 and 1), dropout off so both sides compute the same
    function; saved with the shape directory's tokenizer."""
    from transformers import BertConfig, BertForTokenClassification

    config = BertConfig.from_json_file(os.path.join(shape_dir, "config.json"))
    config.hidden_dropout_prob = 0.0
    config.attention_probs_dropout_prob = 0.0
    config.classifier_dropout = 0.0
    config.num_labels = NUM_LABELS
    torch.manual_seed(0)
    model = BertForTokenClassification(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("bias") or "LayerNorm" in name:
                p.add_(torch.randn_like(p) * 0.05)
    model.save_pretrained(out_dir)
    for f in TOKENIZER_FILES:
        src = os.path.join(shape_dir, f)
        if os.path.exists(src):
            shutil.copy(src, out_dir)


def run_json(cmd, env=None):
    """Runs a quarry command (with `env` added to the environment) and parses each stdout line
    as JSON."""
    out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**os.environ, **(env or {})})
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def code_snippets(corpus, count=8, lines=30):
    """The first lines of some real Python files of `corpus`."""
    names = sorted(f for f in os.listdir(corpus) if f.endswith(".py"))[:count]
    texts = []
    for name in names:
        with open(os.path.join(corpus, name), encoding="utf-8", errors="replace") as f:
            texts.append("".join(f.readlines()[:lines]))
    return texts


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def parity(quarry, model_dir, corpus, out_json):
    """(a) every layer's summary-token vector against transformers, and one training step's
    loss and gradient norm against PyTorch."""
    from tokenizers import Tokenizer
    from transformers import BertForTokenClassification

    dev = torch.device("cuda")
    model = BertForTokenClassification.from_pretrained(model_dir).to(dev).eval()
    tok = Tokenizer.from_file(os.path.join(model_dir, "tokenizer.json"))
    tok.no_truncation()  # MiniLM's tokenizer.json truncates at 128; quarry cuts at the model's 512
    tok.no_padding()
    texts = code_snippets(corpus)
    result = {"texts": len(texts)}
    for dtype in ("f32", "bf16"):
        attempt(result, f"encode_{dtype}", encode_parity, quarry, model_dir, model, tok, texts, dtype)
    # The composed attention too, so that one run tells a fused kernel's error from the rest's.
    composed = {"QUARRY_FUSED_ATTENTION": "0"}
    composed_residual = {"QUARRY_FUSED_RESIDUAL_NORM": "0"}
    attempt(result, "encode_f32_composed_attention", encode_parity, quarry, model_dir, model, tok, texts, "f32",
            composed)
    for key in ("encode_f32", "encode_f32_composed_attention"):
        if "max_abs_diff" in result[key]:
            result[key]["within_1e-4"] = result[key]["max_abs_diff"] <= 1e-4
    attempt(result, "train_step", train_step_parity, quarry, model_dir, out_json)
    attempt(result, "train_step_composed_attention", train_step_parity, quarry, model_dir, out_json, composed)
    write(out_json, result)


def attempt(result, key, f, *args):
    """`result[key] = f(*args)`, or the error it raised: one failing part does not hide the others."""
    try:
        result[key] = f(*args)
    except Exception as e:  # noqa: BLE001 - reported, not handled
        detail = getattr(e, "stderr", None)
        result[key] = {"error": f"{type(e).__name__}: {e}", "stderr": detail[-4000:] if detail else None}
        print(f"{key}: {result[key]}", file=sys.stderr, flush=True)


def encode_parity(quarry, model_dir, model, tok, texts, dtype, env=None):
    """Max abs difference of every hidden state's summary-token vector; token ids compared too.
    `env` is added to quarry's environment."""
    dev = torch.device("cuda")
    cmd = [quarry, "encode", "--model", model_dir, "--all-layers", "--device", "cuda", "--dtype", dtype, *texts]
    rows = run_json(cmd, env)
    worst, id_mismatches = 0.0, 0
    per_layer = None
    for row in rows:
        ids = row["ids"]
        hf_ids = tok.encode(row["text"]).ids[: len(ids)]
        id_mismatches += int(hf_ids != ids)
        with torch.no_grad():
            states = model.bert(input_ids=torch.tensor([ids], device=dev), output_hidden_states=True).hidden_states
        diffs = [
            (torch.tensor(q, device=dev) - h[0, 0].float()).abs().max().item() for q, h in zip(row["summary"], states)
        ]
        per_layer = diffs if per_layer is None else [max(a, b) for a, b in zip(per_layer, diffs)]
        worst = max(worst, max(diffs))
    return {
        "max_abs_diff": worst,
        "max_abs_diff_per_layer": per_layer,
        "layers": len(per_layer or []),
        "token_id_mismatches": id_mismatches,
    }


def train_step_parity(quarry, model_dir, out_json, env=None):
    """One training step: quarry's synthetic batch through PyTorch with the same weights. `env`
    is added to quarry's environment."""
    from transformers import BertForTokenClassification

    dev = torch.device("cuda")
    batch_path = os.path.join(os.path.dirname(out_json), "parity_batch.json")
    bench = run_json([
        quarry, "bench", "encoder", "--model", model_dir, "--device", "cuda", "--batch-size", "8", "--seq-len", "128",
        "--warmup", "0", "--steps", "2", "--lr", "5e-5", "--batch-out", batch_path,
    ], env)[0]["report"]
    with open(batch_path) as f:
        batch = json.load(f)
    torch_model = BertForTokenClassification.from_pretrained(model_dir).to(dev).train()
    decay = [p for n, p in torch_model.named_parameters() if not (n.endswith("bias") or "LayerNorm" in n)]
    no_decay = [p for n, p in torch_model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}], lr=5e-5, eps=1e-8
    )
    ids = torch.tensor(batch["ids"], device=dev)
    labels = torch.tensor(batch["labels"], device=dev)
    losses, norm = [], None
    for step in range(2):
        opt.zero_grad()
        loss = torch_model(input_ids=ids, attention_mask=torch.ones_like(ids), labels=labels).loss
        loss.backward()
        if step == 0:
            norm = math.sqrt(sum(p.grad.double().pow(2).sum().item() for p in torch_model.parameters() if p.grad is not None))
        opt.step()
        losses.append(loss.item())
    t = {
        "quarry_loss": bench["first_loss"],
        "torch_loss": losses[0],
        "loss_rel_diff": rel(bench["first_loss"], losses[0]),
        "quarry_grad_norm": bench["first_grad_norm"],
        "torch_grad_norm": norm,
        "grad_norm_rel_diff": rel(bench["first_grad_norm"], norm),
        "quarry_loss_after_one_update": bench["losses"][1],
        "torch_loss_after_one_update": losses[1],
        "loss_after_update_rel_diff": rel(bench["losses"][1], losses[1]),
    }
    t["within_1e-3"] = t["loss_rel_diff"] <= 1e-3 and t["grad_norm_rel_diff"] <= 1e-3
    return t


def torch_setup(model_dir, batch_size, seq_len, dtype):
    """transformers' model on the GPU, a random batch of the shape (ids, labels, mask) and the
    autocast context of `dtype`."""
    from transformers import BertForTokenClassification

    dev = torch.device("cuda")
    model = BertForTokenClassification.from_pretrained(model_dir).to(dev)
    gen = torch.Generator(device="cpu").manual_seed(0)
    ids = torch.randint(1000, model.config.vocab_size, (batch_size, seq_len), generator=gen).to(dev)
    labels = torch.randint(0, NUM_LABELS, (batch_size, seq_len), generator=gen).to(dev)
    mask = torch.ones_like(ids)
    autocast = torch.autocast("cuda", dtype=torch.bfloat16, enabled=dtype == "bf16")
    return model, ids, labels, mask, autocast


def torch_step(model, opt, ids, mask, labels, autocast):
    """One fine-tuning step, the loss read back and the device synchronised."""
    opt.zero_grad()
    with autocast:
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
    loss.backward()
    opt.step()
    loss.item()
    torch.cuda.synchronize()


def torch_speed(model_dir, batch_size, seq_len, dtype, warmup=3, steps=20):
    """Forward tokens/s and fine-tuning step time of transformers on a batch of the same shape."""
    model, ids, labels, mask, autocast = torch_setup(model_dir, batch_size, seq_len, dtype)
    model.eval()
    with torch.no_grad(), autocast:
        for _ in range(warmup):
            model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        start = time.perf_counter()
        for _ in range(steps):
            model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()
        forward_s = time.perf_counter() - start
    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)
    total = 0.0
    for step in range(warmup + steps):
        start = time.perf_counter()
        torch_step(model, opt, ids, mask, labels, autocast)
        if step >= warmup:
            total += time.perf_counter() - start
    return {
        "forward_tokens_per_s": batch_size * seq_len * steps / forward_s,
        "forward_ms": forward_s * 1e3 / steps,
        "step_ms": total * 1e3 / steps,
    }


SHAPES = ((32, 128), (8, 512))


def quarry_speed(quarry, model_dir, batch_size, seq_len, dtype, env=None):
    report = run_json([
        quarry, "bench", "encoder", "--model", model_dir, "--device", "cuda", "--dtype", dtype,
        "--batch-size", str(batch_size), "--seq-len", str(seq_len), "--warmup", "3", "--steps", "20",
    ], env)[0]["report"]
    keys = ("forward_tokens_per_s", "forward_ms", "forward_host_ms", "step_ms", "step_forward_host_ms",
            "step_backward_host_ms")
    return {k: report[k] for k in keys if k in report}


def with_dropout(model_dir, p=0.1):
    """A copy of `model_dir` (its other files linked) whose configuration has BERT's dropout,
    as real fine-tuning runs it."""
    out = model_dir.rstrip("/") + "-dropout"
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(model_dir):
        src, dst = os.path.join(model_dir, name), os.path.join(out, name)
        if name == "config.json":
            with open(src) as f:
                config = json.load(f)
            config.update(hidden_dropout_prob=p, attention_probs_dropout_prob=p, classifier_dropout=p)
            with open(dst, "w") as f:
                json.dump(config, f)
        elif not os.path.exists(dst):
            os.symlink(os.path.abspath(src), dst)
    return out


def speed(quarry, model_dir, out_json):
    """(b) the same shapes through quarry and PyTorch, f32 and bf16, and their ratios, with
    dropout off (both sides compute the same function); quarry also with its fused attention
    kernel turned off (`QUARRY_FUSED_ATTENTION=0`), and with its fused residual layer norm turned
    off (`QUARRY_FUSED_RESIDUAL_NORM=0`), each kernel's own before and after on the same machine; and the smaller shape again with dropout 0.1 on both sides, as fine-tuning
    runs (different masks, the same work)."""
    rows = []
    composed = {"QUARRY_FUSED_ATTENTION": "0"}
    composed_residual = {"QUARRY_FUSED_RESIDUAL_NORM": "0"}
    runs = [(model_dir, b, s, dtype, 0.0) for b, s in SHAPES for dtype in ("f32", "bf16")]
    dropout_dir = with_dropout(model_dir)
    runs += [(dropout_dir, *SHAPES[0], dtype, 0.1) for dtype in ("f32", "bf16")]
    for directory, batch_size, seq_len, dtype, dropout in runs:
        row = {"batch_size": batch_size, "seq_len": seq_len, "dtype": dtype, "dropout": dropout}
        attempt(row, "torch", torch_speed, directory, batch_size, seq_len, dtype)
        attempt(row, "quarry", quarry_speed, quarry, directory, batch_size, seq_len, dtype)
        if dropout == 0.0:
            attempt(row, "quarry_composed_attention", quarry_speed, quarry, directory, batch_size, seq_len, dtype,
                    composed)
            attempt(row, "quarry_composed_residual_norm", quarry_speed, quarry, directory, batch_size, seq_len,
                    dtype, composed_residual)
        t = row["torch"]
        sides = (("quarry", ""), ("quarry_composed_attention", "composed_attention_"),
                 ("quarry_composed_residual_norm", "composed_residual_norm_"))
        for side, prefix in sides:
            q = row.get(side, {})
            if "step_ms" in q and "step_ms" in t:
                row[f"{prefix}forward_throughput_ratio"] = q["forward_tokens_per_s"] / t["forward_tokens_per_s"]
                row[f"{prefix}step_time_ratio"] = q["step_ms"] / t["step_ms"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    write(out_json, {"torch": torch.__version__, "gpu": torch.cuda.get_device_name(0), "rows": rows})


def kernel_table(durations):
    """`(name, seconds)` pairs summed by kernel name: launches, total, and the heaviest names."""
    by_name = collections.defaultdict(lambda: [0, 0.0])
    for name, seconds in durations:
        by_name[name][0] += 1
        by_name[name][1] += seconds
    rows = sorted(by_name.items(), key=lambda kv: -kv[1][1])
    return {
        "kernels": sum(c for c, _ in by_name.values()),
        "kernel_ms": sum(t for _, t in by_name.values()) * 1e3,
        "by_name": [{"name": n[:120], "count": c, "ms": t * 1e3} for n, (c, t) in rows[:40]],
    }


def quarry_kernels(quarry, model_dir, batch_size, seq_len, dtype):
    """Every kernel of one inference pass and one training step of `quarry bench encoder`,
    timed by Nsight Compute (clocks left alone)."""
    found = glob.glob("/opt/nvidia/nsight-compute/*/ncu") + glob.glob("/usr/local/cuda*/bin/ncu")
    ncu = shutil.which("ncu") or (found or ["ncu"])[0]
    cmd = [ncu, "--clock-control", "none", "--metrics", "gpu__time_duration.sum", "--csv", "--page", "raw",
           quarry, "bench", "encoder", "--model", model_dir, "--device", "cuda", "--dtype", dtype,
           "--batch-size", str(batch_size), "--seq-len", str(seq_len), "--warmup", "0", "--steps", "1"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    lines = out[out.index('"ID"'):].splitlines()
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    units = rows[0]
    durations = []
    for row in rows[1:]:
        value = float(row["gpu__time_duration.sum"].replace(",", ""))
        scale = {"nsecond": 1e-9, "usecond": 1e-6, "msecond": 1e-3, "ns": 1e-9, "us": 1e-6}.get(
            units["gpu__time_duration.sum"], 1e-9)
        durations.append((row["Kernel Name"], value * scale))
    # The inference pass ends where the training step's embedding lookups begin: the fourth
    # `index_select` (word, position and token-type tables, once in each pass).
    lookups = [i for i, (name, _) in enumerate(durations) if name.startswith("is_u32")]
    split = lookups[3] if len(lookups) > 3 else len(durations)
    return {"forward": kernel_table(durations[:split]), "step": kernel_table(durations[split:])}


def torch_kernels(model_dir, batch_size, seq_len, dtype):
    """Every kernel of one inference pass and one training step of transformers, as
    `torch_speed` runs them, from PyTorch's profiler."""
    from torch.profiler import ProfilerActivity, profile

    model, ids, labels, mask, autocast = torch_setup(model_dir, batch_size, seq_len, dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5)

    def forward():
        model.eval()
        with torch.no_grad(), autocast:
            model(input_ids=ids, attention_mask=mask)
        torch.cuda.synchronize()

    def step():
        model.train()
        torch_step(model, opt, ids, mask, labels, autocast)

    result = {}
    for name, once in (("forward", forward), ("step", step)):
        for _ in range(3):
            once()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            once()
        events = [e for e in prof.events() if "CUDA" in str(e.device_type)]
        result[name] = kernel_table([(e.name, e.time_range.elapsed_us() / 1e6) for e in events])
    return result


def profile_kernels(quarry, model_dir, out_json):
    """Kernel counts and times of one inference pass and one training step on each side, in
    f32 at each of SHAPES."""
    result = {"dtype": "f32", "shapes": []}
    for b, s in SHAPES:
        row = {"shape": [b, s]}
        attempt(row, "torch", lambda: torch_kernels(model_dir, b, s, "f32"))
        attempt(row, "quarry", lambda: quarry_kernels(quarry, model_dir, b, s, "f32"))
        result["shapes"].append(row)
    write(out_json, result)


def write(path, value):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(value, f, indent=2)
    os.replace(tmp, path)
    print(json.dumps(value, indent=2), flush=True)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    {"make-model": make_model, "parity": parity, "speed": speed, "profile": profile_kernels}[command](*args)
