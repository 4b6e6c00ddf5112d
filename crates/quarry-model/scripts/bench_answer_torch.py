"""PyTorch counterpart of examples/answer_bench.rs: CodeQA's Seq2Seq (the authors'
codeBERT/code/model.py: a transformers BertModel encoder, nn.TransformerDecoder, tanh dense
layer, output tied to the word embeddings, their Beam class) on the CPU, loaded with the
same initial weights as the Rust run, on the same token ids: beam-search generation (as
model.py does it: one input at a time, the whole prefix re-run every step), then one
training step (forward, backward, AdamW), the fastest of ITERS.

Usage: python3 scripts/bench_answer_torch.py MODEL_DIR IDS_JSON THREADS
Prints one JSON object.
"""

import json
import sys
import time
from pathlib import Path

import torch
import torch.nn as nn
from safetensors.torch import load_file
from transformers import BertModel


class Beam:
    """model.py's Beam with CPU tensors."""

    def __init__(self, size, sos, eos):
        self.size = size
        self.scores = torch.zeros(size)
        self.prevKs = []
        self.nextYs = [torch.zeros(size, dtype=torch.long)]
        self.nextYs[0][0] = sos
        self._eos = eos
        self.eosTop = False
        self.finished = []

    def getCurrentState(self):
        return self.nextYs[-1].clone().view(-1, 1)

    def getCurrentOrigin(self):
        return self.prevKs[-1]

    def advance(self, wordLk):
        numWords = wordLk.size(1)
        if len(self.prevKs) > 0:
            beamLk = wordLk + self.scores.unsqueeze(1).expand_as(wordLk)
            for i in range(self.nextYs[-1].size(0)):
                if self.nextYs[-1][i] == self._eos:
                    beamLk[i] = -1e20
        else:
            beamLk = wordLk[0]
        flatBeamLk = beamLk.view(-1)
        bestScores, bestScoresId = flatBeamLk.topk(self.size, 0, True, True)
        self.scores = bestScores
        prevK = bestScoresId // numWords
        self.prevKs.append(prevK)
        self.nextYs.append((bestScoresId - prevK * numWords))
        for i in range(self.nextYs[-1].size(0)):
            if self.nextYs[-1][i] == self._eos:
                self.finished.append((self.scores[i], len(self.nextYs) - 1, i))
        if self.nextYs[-1][0] == self._eos:
            self.eosTop = True

    def done(self):
        return self.eosTop and len(self.finished) >= self.size

    def getFinal(self):
        if len(self.finished) == 0:
            self.finished.append((self.scores[0], len(self.nextYs) - 1, 0))
        self.finished.sort(key=lambda a: -a[0])
        if len(self.finished) != self.size:
            unfinished = []
            for i in range(self.nextYs[-1].size(0)):
                if self.nextYs[-1][i] != self._eos:
                    unfinished.append((self.scores[i], len(self.nextYs) - 1, i))
            unfinished.sort(key=lambda a: -a[0])
            self.finished += unfinished[: self.size - len(self.finished)]
        return self.finished[: self.size]

    def getHyp(self, beam_res):
        hyps = []
        for _, timestep, k in beam_res:
            hyp = []
            for j in range(len(self.prevKs[:timestep]) - 1, -1, -1):
                hyp.append(self.nextYs[j + 1][k])
                k = self.prevKs[j][k]
            hyps.append(hyp[::-1])
        return hyps

    def buildTargetTokens(self, preds):
        sentence = []
        for pred in preds:
            tokens = []
            for tok in pred:
                if tok == self._eos:
                    break
                tokens.append(int(tok))
            sentence.append(tokens)
        return sentence


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, config, beam_size, max_length, sos_id, eos_id):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder
        self.register_buffer("bias", torch.tril(torch.ones(2048, 2048)))
        self.dense = nn.Linear(config.hidden_size, config.hidden_size)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.lm_head.weight = self.encoder.embeddings.word_embeddings.weight
        self.lsm = nn.LogSoftmax(dim=-1)
        self.beam_size, self.max_length, self.sos_id, self.eos_id = beam_size, max_length, sos_id, eos_id

    def forward(self, source_ids, source_mask, target_ids=None, target_mask=None):
        outputs = self.encoder(source_ids, attention_mask=source_mask)
        encoder_output = outputs[0].permute([1, 0, 2]).contiguous()
        if target_ids is not None:
            attn_mask = -1e4 * (1 - self.bias[: target_ids.shape[1], : target_ids.shape[1]])
            tgt_embeddings = self.encoder.embeddings(target_ids).permute([1, 0, 2]).contiguous()
            out = self.decoder(tgt_embeddings, encoder_output, tgt_mask=attn_mask,
                               memory_key_padding_mask=(1 - source_mask).bool())
            hidden_states = torch.tanh(self.dense(out)).permute([1, 0, 2]).contiguous()
            lm_logits = self.lm_head(hidden_states)
            active_loss = target_mask[..., 1:].ne(0).view(-1) == 1
            shift_logits = lm_logits[..., :-1, :].contiguous()
            shift_labels = target_ids[..., 1:].contiguous()
            loss_fct = nn.CrossEntropyLoss(ignore_index=-1)
            return loss_fct(shift_logits.view(-1, shift_logits.size(-1))[active_loss],
                            shift_labels.view(-1)[active_loss])
        preds = []
        for i in range(source_ids.shape[0]):
            context = encoder_output[:, i: i + 1]
            context_mask = source_mask[i: i + 1, :]
            beam = Beam(self.beam_size, self.sos_id, self.eos_id)
            input_ids = beam.getCurrentState()
            context = context.repeat(1, self.beam_size, 1)
            context_mask = context_mask.repeat(self.beam_size, 1)
            for _ in range(self.max_length):
                if beam.done():
                    break
                attn_mask = -1e4 * (1 - self.bias[: input_ids.shape[1], : input_ids.shape[1]])
                tgt_embeddings = self.encoder.embeddings(input_ids).permute([1, 0, 2]).contiguous()
                out = self.decoder(tgt_embeddings, context, tgt_mask=attn_mask,
                                   memory_key_padding_mask=(1 - context_mask).bool())
                out = torch.tanh(self.dense(out))
                hidden_states = out.permute([1, 0, 2]).contiguous()[:, -1, :]
                out = self.lsm(self.lm_head(hidden_states)).data
                beam.advance(out)
                input_ids.data.copy_(input_ids.data.index_select(0, beam.getCurrentOrigin()))
                input_ids = torch.cat((input_ids, beam.getCurrentState()), -1)
            hyp = beam.getHyp(beam.getFinal())
            preds.append(beam.buildTargetTokens(hyp)[0])
        return preds


def pad(seqs):
    n = max(len(s) for s in seqs)
    ids = torch.tensor([s + [0] * (n - len(s)) for s in seqs])
    mask = torch.tensor([[1] * len(s) + [0] * (n - len(s)) for s in seqs])
    return ids, mask


def load_weights(model, path, layers):
    w = {k.removeprefix("bert."): v for k, v in load_file(str(path)).items()}
    enc = {k: v for k, v in w.items() if k.startswith(("embeddings.", "encoder."))}
    missing, _ = model.encoder.load_state_dict(enc, strict=False)
    assert not [m for m in missing if not m.startswith("pooler")], missing
    sd = {"dense.weight": w["decoder.dense.weight"], "dense.bias": w["decoder.dense.bias"]}
    for i in range(layers):
        p = f"decoder.layers.{i}"
        for ours, theirs in (("self_attn", "self_attn"), ("cross_attn", "multihead_attn")):
            q, k, v = (w[f"{p}.{ours}.{x}_proj.weight"] for x in "qkv")
            qb, kb, vb = (w[f"{p}.{ours}.{x}_proj.bias"] for x in "qkv")
            sd[f"{p}.{theirs}.in_proj_weight"] = torch.cat([q, k, v])
            sd[f"{p}.{theirs}.in_proj_bias"] = torch.cat([qb, kb, vb])
            sd[f"{p}.{theirs}.out_proj.weight"] = w[f"{p}.{ours}.out_proj.weight"]
            sd[f"{p}.{theirs}.out_proj.bias"] = w[f"{p}.{ours}.out_proj.bias"]
        for name in ("linear1", "linear2", "norm1", "norm2", "norm3"):
            for x in ("weight", "bias"):
                sd[f"{p}.{name}.{x}"] = w[f"{p}.{name}.{x}"]
    missing, unexpected = model.load_state_dict(sd, strict=False)
    assert not unexpected, unexpected
    assert all(m.startswith(("encoder.", "lm_head", "bias")) for m in missing), missing


def main():
    model_dir, ids_json, threads = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(threads)
    d = json.loads(ids_json.read_text())
    c = d["config"]
    encoder = BertModel.from_pretrained(model_dir, attn_implementation="eager")
    cfg = encoder.config
    layer = nn.TransformerDecoderLayer(d_model=cfg.hidden_size, nhead=cfg.num_attention_heads,
                                       dim_feedforward=c["decoder_ffn"])
    decoder = nn.TransformerDecoder(layer, num_layers=c["decoder_layers"])
    model = Seq2Seq(encoder, decoder, cfg, d["beam"], c["max_target_len"], 101, 102)
    load_weights(model, ids_json.with_suffix(".model") / "model.safetensors", c["decoder_layers"])

    model.eval()
    sources = d["sources"][: d["gen_n"]]
    answers = []
    start = time.perf_counter()
    with torch.no_grad():
        for i in range(0, len(sources), d["gen_batch"]):
            ids, mask = pad(sources[i: i + d["gen_batch"]])
            answers += model(ids, mask)
    gen = time.perf_counter() - start

    model.train()
    opt = torch.optim.AdamW(model.parameters(), lr=5e-5, eps=1e-8, weight_decay=0.0)
    ids, mask = pad(d["sources"][: d["batch"]])
    tids, tmask = pad(d["targets"][: d["batch"]])

    def step():
        start = time.perf_counter()
        opt.zero_grad()
        model(ids, mask, tids, tmask).backward()
        opt.step()
        return time.perf_counter() - start

    step()
    train = min(step() for _ in range(d["iters"]))
    print(json.dumps({
        "impl": f"pytorch {torch.__version__}", "threads": torch.get_num_threads(),
        "train_step_s": train, "generate_s": gen, "answers_per_s": len(sources) / gen,
        "answers": answers,
    }))


if __name__ == "__main__":
    main()
