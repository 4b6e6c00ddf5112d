"""Step parity of quarry's training loop with PyTorch + Hugging Face transformers.

Both sides start from the same MiniLM checkpoint and the same head weights (initialized here
by PyTorch and written as a Hugging Face model directory that quarry loads), dropout off.
quarry trains first with `train::fit` (examples/parity.rs) and logs every optimizer step:
the examples of its batch, learning rate, loss and gradient norm. PyTorch then replays the
same batches with torch.optim.AdamW (the same decay / no-decay groups) and
get_linear_schedule_with_warmup, and the two are compared step by step and, at the end,
weight by weight.

Usage (from the workspace root):
    python3 crates/quarry-model/parity/step_parity.py MINILM_DIR [--task span|relevance|both]
        [--work DIR] [--threads 2] [--quarry-bin target/release/examples/parity]

Exits 1 when a loss differs by more than 1e-4 or a weight tensor by more than 1e-3
(relative), and writes WORK/parity_TASK.md and .json with the table.

Attention key biases. A key bias adds q . b to every attention score of a query, which the
softmax cancels: the loss does not depend on it and its gradient is exactly zero. quarry
computes it as exactly zero (bert.rs, `Layer::key_bias`); PyTorch's autograd computes it
through the graph, as sums of terms that cancel, and gets rounding noise (order 1e-9 here),
which AdamW, dividing by the gradient's own magnitude, turns into steps of up to the
learning rate. The reference therefore gives PyTorch the exact key-bias gradient too (a
gradient hook sets it to zero, after recording the norm of what autograd computed), so
that every tensor, key biases included, is compared with the same tolerance; the table
reports the largest key-bias gradient norm autograd produced (the noise set aside).
`--autograd-key-bias` keeps PyTorch's own key-bias gradients instead, for comparison.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys

import torch
from safetensors.torch import load_file, save_file
from torch import nn
from transformers import BertModel, get_linear_schedule_with_warmup

LOSS_TOLERANCE = 1e-4
WEIGHT_TOLERANCE = 1e-3
TOKENIZER_FILES = ["tokenizer.json", "vocab.txt", "tokenizer_config.json", "special_tokens_map.json"]


def decays(name):
    """quarry's rule (optim::decays): no weight decay for biases and layer norms."""
    return not (name.endswith(".bias") or "LayerNorm" in name or "layer_norm" in name)


class SpanNet(nn.Module):
    """BertForTokenClassification's computation: encoder, dropout, linear over every token."""

    def __init__(self, minilm, overrides):
        super().__init__()
        self.bert = BertModel.from_pretrained(minilm, add_pooling_layer=False, attn_implementation="eager", **overrides)
        self.classifier = nn.Linear(self.bert.config.hidden_size, 4)

    def forward(self, ids, mask):
        return self.classifier(self.bert(input_ids=ids, attention_mask=mask).last_hidden_state)

    def loss(self, ids, mask, labels, class_weights):
        logits = self.forward(ids, mask)
        return nn.functional.cross_entropy(logits.reshape(-1, 4), labels.reshape(-1), ignore_index=-100)


class RelevanceNet(nn.Module):
    """The two-step relevance classifier: dense + tanh + output layer over the [CLS] state
    (RobertaClassificationHead's layout), class-weighted cross-entropy."""

    def __init__(self, minilm, overrides):
        super().__init__()
        self.bert = BertModel.from_pretrained(minilm, add_pooling_layer=False, attn_implementation="eager", **overrides)
        h = self.bert.config.hidden_size
        self.classifier = nn.Module()
        self.classifier.dense = nn.Linear(h, h)
        self.classifier.out_proj = nn.Linear(h, 2)

    def forward(self, ids, mask):
        cls = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state[:, 0, :]
        return self.classifier.out_proj(torch.tanh(self.classifier.dense(cls)))

    def loss(self, ids, mask, labels, class_weights):
        weight = torch.tensor(class_weights, dtype=torch.float32)
        return nn.functional.cross_entropy(self.forward(ids, mask), labels, weight=weight)


def make_examples(task, gen, n, vocab):
    out = []
    for _ in range(n):
        length = int(torch.randint(24, 97, (1,), generator=gen))
        ids = [101] + torch.randint(1000, vocab, (length - 2,), generator=gen).tolist() + [102]
        if task == "span":
            labels = torch.randint(0, 4, (length,), generator=gen).tolist()
            ignored = torch.rand(length, generator=gen) < 0.1
            labels = [-100 if (i in (0, length - 1) or ignored[i]) else l for i, l in enumerate(labels)]
            out.append({"ids": ids, "labels": labels})
        else:
            out.append({"ids": ids, "label": int(torch.rand(1, generator=gen) < 0.3)})
    return out


def balanced_weights(examples):
    """Inverse class frequencies, n / (classes * count) (data::class_weights_for)."""
    counts = [sum(1 for e in examples if e["label"] == c) for c in (0, 1)]
    return [len(examples) / (2 * c) for c in counts]


def pad(batch, task):
    seq = max(len(e["ids"]) for e in batch)
    ids = torch.zeros(len(batch), seq, dtype=torch.long)
    mask = torch.zeros(len(batch), seq, dtype=torch.long)
    labels = torch.full((len(batch), seq), -100, dtype=torch.long)
    for i, e in enumerate(batch):
        n = len(e["ids"])
        ids[i, :n] = torch.tensor(e["ids"])
        mask[i, :n] = 1
        if task == "span":
            labels[i, :n] = torch.tensor(e["labels"])
    if task != "span":
        labels = torch.tensor([e["label"] for e in batch])
    return ids, mask, labels


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-30)


def run_task(task, args):
    torch.manual_seed(0)
    work = os.path.join(args.work, task)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    overrides = {"hidden_dropout_prob": 0.0, "attention_probs_dropout_prob": 0.0}
    net = (SpanNet if task == "span" else RelevanceNet)(args.minilm, overrides)
    for module in net.classifier.modules():
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, std=0.02)
            nn.init.zeros_(module.bias)

    # The shared starting point, a Hugging Face model directory quarry loads.
    model_dir = os.path.join(work, "start")
    os.makedirs(model_dir)
    net.bert.config.to_json_file(os.path.join(model_dir, "config.json"))
    start = {k: v.detach().clone().contiguous() for k, v in net.state_dict().items()}
    save_file(start, os.path.join(model_dir, "model.safetensors"))
    for f in TOKENIZER_FILES:
        if os.path.exists(os.path.join(args.minilm, f)):
            shutil.copy(os.path.join(args.minilm, f), model_dir)

    gen = torch.Generator().manual_seed(7)
    examples = make_examples(task, gen, args.examples, net.bert.config.vocab_size)
    data = {
        "examples": examples,
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "lr": args.lr,
        "warmup_steps": args.warmup,
        "weight_decay": 0.01,
        "seed": 3,
        "class_weights": balanced_weights(examples) if task == "relevance" else None,
    }
    with open(os.path.join(work, "data.json"), "w") as f:
        json.dump(data, f)

    env = dict(os.environ, RAYON_NUM_THREADS=str(args.threads))
    cmd = [args.quarry_bin, task, model_dir, os.path.join(work, "data.json"), work]
    print("$", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, env=env)
    with open(os.path.join(work, "steps.json")) as f:
        quarry_steps = json.load(f)

    # PyTorch replays quarry's batches.
    torch.set_num_threads(args.threads)
    named = list(net.named_parameters())
    groups = [
        {"params": [p for n, p in named if decays(n)], "weight_decay": 0.01},
        {"params": [p for n, p in named if not decays(n)], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=args.lr, betas=(0.9, 0.999), eps=1e-8, foreach=False)
    total = args.epochs * math.ceil(args.examples / args.batch_size)
    sched = get_linear_schedule_with_warmup(opt, args.warmup, total)
    net.train()
    # The exact key-bias gradient (see the module docstring); what autograd computed is kept.
    key_bias_noise = [0.0]
    if not args.autograd_key_bias:

        def exact_key_bias_gradient(grad):
            key_bias_noise[0] = max(key_bias_noise[0], float(grad.double().norm()))
            return torch.zeros_like(grad)

        for n, p in named:
            if n.endswith("attention.self.key.bias"):
                p.register_hook(exact_key_bias_gradient)
    rows = []
    for s in quarry_steps:
        batch = [examples[i] for i in s["examples"]]
        ids, mask, labels = pad(batch, task)
        opt.zero_grad(set_to_none=True)
        loss = net.loss(ids, mask, labels, data["class_weights"])
        loss.backward()
        loss = loss.detach()
        norm = math.sqrt(sum(float(p.grad.double().pow(2).sum()) for _, p in named if p.grad is not None))
        lr = opt.param_groups[0]["lr"]
        opt.step()
        sched.step()
        rows.append(
            {
                "step": s["step"],
                "lr_quarry": s["lr"],
                "lr_torch": lr,
                "loss_quarry": s["loss"],
                "loss_torch": float(loss),
                "loss_rel": rel(s["loss"], float(loss)),
                "grad_norm_quarry": s["grad_norm"],
                "grad_norm_torch": norm,
                "grad_norm_rel": rel(s["grad_norm"], norm),
            }
        )

    final_q = load_file(os.path.join(work, "final", "model.safetensors"))
    weights = {}
    for name, t in net.state_dict().items():
        q = final_q[name]
        diff = float((q - t).double().norm())
        moved_t = float((t - start[name]).double().norm())
        weights[name] = {
            "rel": diff / max(float(t.double().norm()), 1e-30),
            "max_abs": float((q - t).abs().max()),
            "update_rel": diff / max(moved_t, 1e-30),
        }
    worst = max(weights, key=lambda k: weights[k]["rel"])
    moved = [k for k in weights if weights[k]["update_rel"] != 0.0 or float((final_q[k] - start[k]).abs().max()) > 0]
    worst_update = max(moved, key=lambda k: weights[k]["update_rel"]) if moved else worst
    key_biases = [k for k in weights if k.endswith("attention.self.key.bias")]
    key_bias_max = max((weights[k]["max_abs"] for k in key_biases), default=0.0)
    key_bias_unchanged = all(bool(torch.equal(final_q[k], start[k])) for k in key_biases)
    ok = all(r["loss_rel"] <= LOSS_TOLERANCE for r in rows) and weights[worst]["rel"] <= WEIGHT_TOLERANCE
    ok = ok and all(abs(r["lr_quarry"] - r["lr_torch"]) <= 1e-12 for r in rows)

    lines = [
        f"## {task}: {len(rows)} AdamW steps, batch {args.batch_size}, lr {args.lr}, warm-up {args.warmup}, "
        f"{args.threads} threads, torch {torch.__version__}",
        "",
        "| step | lr | loss quarry | loss torch | rel. diff | grad norm quarry | grad norm torch | rel. diff |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['step']} | {r['lr_torch']:.3e} | {r['loss_quarry']:.7f} | {r['loss_torch']:.7f} | "
            f"{r['loss_rel']:.1e} | {r['grad_norm_quarry']:.6f} | {r['grad_norm_torch']:.6f} | "
            f"{r['grad_norm_rel']:.1e} |"
        )
    lines += [
        "",
        f"Final weights, {len(weights)} tensors: largest relative difference ||q - t|| / ||t|| "
        f"{weights[worst]['rel']:.2e} ({worst}), largest absolute {max(w['max_abs'] for w in weights.values()):.2e}; "
        f"largest relative difference of the {len(rows)}-step update ||q - t|| / ||t - start|| "
        f"{weights[worst_update]['update_rel']:.2e} ({worst_update}).",
        (
            f"Attention key biases (exact gradient 0 on both sides; largest key-bias gradient norm PyTorch's "
            f"autograd computed, set aside as rounding noise: {key_bias_noise[0]:.1e}): largest absolute "
            f"difference {key_bias_max:.1e}, quarry's unchanged from the start: {key_bias_unchanged}."
            if not args.autograd_key_bias
            else f"Attention key biases with PyTorch's autograd gradients (rounding noise): largest absolute "
            f"difference {key_bias_max:.1e}, quarry's unchanged from the start: {key_bias_unchanged}."
        ),
        f"Max loss rel. diff {max(r['loss_rel'] for r in rows):.2e} (goal <= {LOSS_TOLERANCE:g}), "
        f"max grad-norm rel. diff {max(r['grad_norm_rel'] for r in rows):.2e}, "
        f"weights {weights[worst]['rel']:.2e} (goal <= {WEIGHT_TOLERANCE:g}): {'PASS' if ok else 'FAIL'}",
    ]
    text = "\n".join(lines)
    print(text)
    with open(os.path.join(args.work, f"parity_{task}.md"), "w") as f:
        f.write(text + "\n")
    with open(os.path.join(args.work, f"parity_{task}.json"), "w") as f:
        json.dump(
            {"steps": rows, "weights": weights, "key_bias_autograd_noise": key_bias_noise[0], "pass": ok}, f, indent=1
        )
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("minilm")
    p.add_argument("--task", default="both", choices=["span", "relevance", "both"])
    p.add_argument("--work", default="target/parity")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--quarry-bin", default="target/release/examples/parity")
    p.add_argument("--examples", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=5e-5)
    p.add_argument("--warmup", type=int, default=4)
    p.add_argument(
        "--autograd-key-bias",
        action="store_true",
        help="keep the key-bias gradients PyTorch's autograd computes (rounding noise) instead of their exact value 0",
    )
    args = p.parse_args()
    tasks = ["span", "relevance"] if args.task == "both" else [args.task]
    results = [run_task(t, args) for t in tasks]
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
