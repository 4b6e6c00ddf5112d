"""PyTorch counterpart of examples/bench.rs: MiniLM forward (batch 32 x 256) and one
full fine-tuning step of a token classifier (batch 8 x 256) with AdamW.

Usage: python3 scripts/bench_torch.py MODEL_DIR THREADS [ITERS [forward|train|both]]
Prints one JSON object with the phase's time, the least CPU time of a training step (all
threads), and the process's peak resident memory.
"""

import json
import resource
import sys
import time

import torch
from transformers import AutoModel, AutoModelForTokenClassification


def batch(gen, b, s, vocab):
    ids = torch.randint(1000, vocab, (b, s), generator=gen)
    ids[:, 0] = 101
    labels = torch.randint(0, 4, (b, s), generator=gen)
    labels[:, 0] = -100
    return ids, torch.ones(b, s, dtype=torch.long), labels


def main():
    model_dir, threads = sys.argv[1], int(sys.argv[2])
    iters = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    phase = sys.argv[4] if len(sys.argv) > 4 else "both"
    torch.set_num_threads(threads)
    gen = torch.Generator().manual_seed(1)

    fwd = train = train_cpu = None
    if phase != "train":
        fwd = forward(model_dir, gen, iters)
    if phase != "forward":
        train, train_cpu = train_step(model_dir, gen, iters)
    print(
        json.dumps(
            {
                "impl": f"pytorch {torch.__version__}",
                "phase": phase,
                "threads": torch.get_num_threads(),
                "forward_s": None if fwd is None else round(fwd, 4),
                "forward_tokens_per_s": None if fwd is None else round(32 * 256 / fwd, 1),
                "train_step_s": None if train is None else round(train, 4),
                "train_step_cpu_s": None if train_cpu is None else round(train_cpu, 4),
                "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
            }
        )
    )


def forward(model_dir, gen, iters):
    enc = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    ids, mask, _ = batch(gen, 32, 256, enc.config.vocab_size)
    with torch.no_grad():
        enc(input_ids=ids, attention_mask=mask)
        # The fastest of `iters` runs: the least disturbed by other load on the machine.
        fwd = float("inf")
        for _ in range(iters):
            start = time.perf_counter()
            enc(input_ids=ids, attention_mask=mask).last_hidden_state.sum().item()
            fwd = min(fwd, time.perf_counter() - start)
    return fwd


def train_step(model_dir, gen, iters):
    model = AutoModelForTokenClassification.from_pretrained(
        model_dir, num_labels=4, attn_implementation="eager"
    ).train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, weight_decay=0.01)
    ids, mask, labels = batch(gen, 8, 256, model.config.vocab_size)

    def step():
        start, cpu_start = time.perf_counter(), time.process_time()
        opt.zero_grad()
        loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss.backward()
        opt.step()
        return time.perf_counter() - start, time.process_time() - cpu_start

    step()
    runs = [step() for _ in range(iters)]
    return min(r[0] for r in runs), min(r[1] for r in runs)


if __name__ == "__main__":
    main()
