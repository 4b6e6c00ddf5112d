"""Writes the T5 / BART / PLBART parity fixtures of quarry-model's `seq2seq_parity` test.

For each family, transformers builds a tiny random-weight model (CodeT5-small's structure
at toy sizes), saves it as a Hugging Face directory (config.json, model.safetensors) with
a byte-level BPE tokenizer.json trained here on a few code lines, and records every
encoder layer's hidden states (embedding output, then each layer, as
`output_hidden_states=True` gives them) on real Java and Python snippets, batched with
right padding. quarry loads each directory and must reproduce the states within 1e-4.

Weights are rounded to float16 and saved as float16 (the fixtures stay small); the reference
runs in float32 on exactly those rounded values, and quarry reads them into float32 too.
Layer-norm scales and shifts are drawn at random (transformers initializes them to 1 and 0)
so that a norm applied without its parameters fails the test.

The fixtures:
- `t5/`: T5EncoderModel with CodeT5's choices (ReLU feed-forward, pad 0, `<s>` 1, `</s>` 2),
  d_model 32, 2 layers, 4 heads of 8, 32 relative buckets (max distance 128).
- `t5_gated/`: T5EncoderModel, T5 v1.1's gated-gelu feed-forward (`wi_0`, `wi_1`), d_kv 12
  (inner width 48, not d_model).
- `bart/`: BartForConditionalGeneration (`model.` prefix, the decoder's embeddings and
  `final_logits_bias`, which the encoder must ignore; no decoder layers, to keep it small),
  no embedding scale.
- `plbart/`: PLBartForConditionalGeneration with `scale_embedding` true.
Each has `reference.json` (the snippets and their ids, special tokens included) and
`reference.safetensors` (`hidden.N`: layers x tokens x d_model of snippet N, real tokens only).

Usage (from the workspace root; CPU only, about a minute once the packages are installed):
    python3 -m venv target/parity-venv
    target/parity-venv/bin/pip install torch transformers
    target/parity-venv/bin/python crates/quarry-model/parity/seq2seq_fixtures.py \
        [--out crates/quarry-model/tests/fixtures/seq2seq]
"""

import argparse
import json
import os

import torch
from safetensors.torch import save_file
from tokenizers import ByteLevelBPETokenizer
from tokenizers.processors import RobertaProcessing
from transformers import (
    BartConfig,
    BartForConditionalGeneration,
    PLBartConfig,
    PLBartForConditionalGeneration,
    T5Config,
    T5EncoderModel,
)

# Real methods: two Java methods of INSPECT's LEN dataset (as it tokenizes them) and a
# Python function in its source form.
SNIPPETS = [
    "public String makeKey ( ) { String retstr = testgroupid + \"|\" + testid ; return ( retstr ) ; }",
    "public void setDbUrl ( String aurl ) { if ( ! dbUrl . equals ( aurl ) ) { shutDown ( ) ; dbUrl = aurl ; } }",
    "def flatten(items):\n    return [y for x in items for y in x]\n",
]

# The tokenizer's training text: the snippets and a few more code lines.
CORPUS = SNIPPETS + [
    "def read_lines(path):\n    with open(path) as f:\n        return f.read().split()\n",
    "@ Override protected void dead ( ) { super . dead ( ) ; for ( int i = 0 ; i < 5 ; i ++ ) { } }",
    "public static String padInt ( int aval , int alen , String apad ) { String buf = Integer . toString ( aval ) ; }",
    "public Ball launch ( Point point , int size ) { p2 = point ; return new BallGravity ( size ) ; }",
    "import os\nimport sys\n\nclass Reader(object):\n    def __init__(self, name):\n        self.name = name\n",
    "if __name__ == '__main__':\n    main(sys.argv[1:])\n",
    "for (int i = 0; i < n; i++) { sum += values[i]; } return sum;",
]

VOCAB = 320


def train_tokenizer(specials):
    """A byte-level BPE tokenizer with RoBERTa's `<s> ... </s>` template; `specials` in id order."""
    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(CORPUS, vocab_size=VOCAB, min_frequency=2, special_tokens=specials, show_progress=False)
    tok.post_processor = RobertaProcessing(("</s>", tok.token_to_id("</s>")), ("<s>", tok.token_to_id("<s>")))
    return tok


def randomize_norms(model, generator):
    """Draws every layer norm's scale around 1 and shift around 0 (transformers sets 1 and 0)."""
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.2 * torch.randn(p.shape, generator=generator))
            elif "norm" in name and name.endswith("bias"):
                p.copy_(0.2 * torch.randn(p.shape, generator=generator))


def write_fixture(out, name, model, encoder, tok):
    """Saves `model` (weights rounded to float16) and `tok`, and the states of `encoder`."""
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    model.half()
    model.save_pretrained(d, safe_serialization=True)
    generation = os.path.join(d, "generation_config.json")
    if os.path.exists(generation):
        os.remove(generation)  # decoding settings, which an encoder does not read
    model.float().eval()
    tok.save(os.path.join(d, "tokenizer.json"))
    pad = model.config.pad_token_id
    ids = [tok.encode(s).ids for s in SNIPPETS]
    width = max(len(x) for x in ids)
    batch = torch.tensor([x + [pad] * (width - len(x)) for x in ids])
    mask = torch.tensor([[1] * len(x) + [0] * (width - len(x)) for x in ids])
    with torch.no_grad():
        states = encoder(input_ids=batch, attention_mask=mask, output_hidden_states=True).hidden_states
    tensors = {}
    for i, x in enumerate(ids):
        tensors[f"hidden.{i}"] = torch.stack([h[i, : len(x)] for h in states]).contiguous()
    save_file(tensors, os.path.join(d, "reference.safetensors"))
    with open(os.path.join(d, "reference.json"), "w") as f:
        json.dump({"snippets": SNIPPETS, "ids": ids, "layers": len(states)}, f, indent=1)
    print(f"{name}: {len(states)} hidden states, {sum(len(x) for x in ids)} tokens")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="crates/quarry-model/tests/fixtures/seq2seq")
    args = ap.parse_args()
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)

    # CodeT5's special-token order: <pad> 0, <s> 1, </s> 2, <unk> 3, <mask> 4.
    t5_tok = train_tokenizer(["<pad>", "<s>", "</s>", "<unk>", "<mask>"])
    t5_common = {
        "vocab_size": t5_tok.get_vocab_size(), "d_model": 32, "num_heads": 4, "num_layers": 2, "num_decoder_layers": 1,
        "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128, "dropout_rate": 0.1,
        "layer_norm_epsilon": 1e-6, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2, "decoder_start_token_id": 0,
    }
    t5 = T5EncoderModel(T5Config(d_kv=8, d_ff=64, feed_forward_proj="relu", **t5_common))
    randomize_norms(t5, g)
    write_fixture(args.out, "t5", t5, t5, t5_tok)

    gated = T5EncoderModel(T5Config(d_kv=12, d_ff=40, feed_forward_proj="gated-gelu", **t5_common))
    randomize_norms(gated, g)
    write_fixture(args.out, "t5_gated", gated, gated, t5_tok)

    # BART's special-token order: <s> 0, <pad> 1, </s> 2, <unk> 3, <mask> 4.
    bart_tok = train_tokenizer(["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bart_common = {
        "vocab_size": bart_tok.get_vocab_size(), "d_model": 32, "encoder_layers": 2, "decoder_layers": 0,
        "encoder_attention_heads": 4, "decoder_attention_heads": 4, "encoder_ffn_dim": 64, "decoder_ffn_dim": 16,
        "max_position_embeddings": 128, "activation_function": "gelu", "pad_token_id": 1, "bos_token_id": 0,
        "eos_token_id": 2, "decoder_start_token_id": 2,
    }
    bart = BartForConditionalGeneration(BartConfig(scale_embedding=False, **bart_common))
    randomize_norms(bart, g)
    write_fixture(args.out, "bart", bart, bart.model.encoder, bart_tok)

    plbart = PLBartForConditionalGeneration(PLBartConfig(scale_embedding=True, **bart_common))
    randomize_norms(plbart, g)
    write_fixture(args.out, "plbart", plbart, plbart.model.encoder, bart_tok)


if __name__ == "__main__":
    main()
