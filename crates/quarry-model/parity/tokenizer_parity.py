"""Tokenizers in the formats of INSPECT's model families, trained on real code, and the ids
transformers gives for held-out code: the fixtures of quarry-model's `tokenizer_parity` test.

CodeT5's, BART's and T5's released vocabularies cannot be downloaded here, so tokenizers in
each family's format are trained with the `tokenizers` package on real code: Java methods of
the JDK's `src.zip` and Python functions of CPython's standard library. A snippet is held out
(never trained on) when a hash of its file and position says so. transformers builds each
family's tokenizer from the trained vocabulary and saves it as that family's model directory
would hold it:
- `codet5/`: CodeT5's byte-level BPE (`<pad>` 0, `<s>` 1, `</s>` 2, `<unk>` 3, `<mask>`),
  `RobertaTokenizer`, saved as `tokenizer.json`;
- `codet5_bpe/`: the same vocabulary as `vocab.json` + `merges.txt` only (what CodeT5's hub
  directory holds), which quarry assembles itself;
- `bart/`: BART's byte-level BPE (`<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3, `<mask>` last),
  `BartTokenizer`, `tokenizer.json`;
- `t5/`: T5's SentencePiece unigram (`<pad>` 0, `</s>` 1, `<unk>` 2, eight `<extra_id_N>`),
  `T5Tokenizer` (Metaspace, `$A </s>`), `tokenizer.json`.

Two more are SentencePiece model files, trained with the `sentencepiece` package (its default
`nmt_nfkc` normalization, so a `precompiled_charsmap`), in a directory holding only that file,
as T5's and PLBART's released directories hold them:
- `t5_spm/`: a unigram `spiece.model` (`<pad>` 0, `</s>` 1, `<unk>` 2), read by `T5Tokenizer`
  (100 `<extra_id_N>` after the pieces, `$A </s>`);
- `plbart/`: a BPE `sentencepiece.bpe.model` (`<unk>` 0, `<s>` 1, `</s>` 2, as fairseq's),
  read by `PLBartTokenizer` (fairseq's ids: `<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3, pieces
  shifted by one, then `__java__`, `__python__`, `__en_XX__`, `<mask>`; `$A </s>`);
  `plbart_java` is the same directory with `src_lang` `java` (`$A </s> __java__`).
For these two the script also counts the snippets whose transformers ids (without special
tokens) equal the `sentencepiece` package's own `encode` (PLBART's mapped to fairseq's ids).
With `--stress N` it also writes `stress.jsonl`: per SentencePiece family, N texts glued from
3 to 12 random pieces of at most 3 characters (where merge orders compete most) with
transformers' ids, which it counts against `sentencepiece`'s too.

`reference.jsonl` holds, for each held-out snippet and seven edge texts (`EDGE_TEXTS`), its `text` and per family `ids` (the tokenizer called on
the text: special tokens included) and `plain` (`convert_tokens_to_ids(tokenize(text))`, what
INSPECT's extractor tokenizes) as AutoTokenizer.from_pretrained(DIR) gives them.

Usage (from the workspace root; a venv with `pip install transformers tokenizers sentencepiece`):
    PY=target/parity-venv/bin/python
    $PY crates/quarry-model/parity/tokenizer_parity.py \
        crates/quarry-model/tests/fixtures/tokenizers --snippets 16 --vocab 1000 --spm-vocab 1000
    $PY crates/quarry-model/parity/tokenizer_parity.py target/tokenizer-parity \
        --snippets 1000 --vocab 32000 --spm-vocab 8000 --stress 100000
    QUARRY_TOKENIZER_PARITY=target/tokenizer-parity \
        cargo test -p quarry-model --test tokenizer_parity -- --nocapture
The first writes the committed fixture (16 snippets), the second the 1,000-snippet
check (500 Java methods, 500 Python functions; tokenizers of 32,000 entries, SentencePiece
models of 8,000, not committed).
"""

import argparse
import ast
import glob
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import zipfile

import sentencepiece

from tokenizers import ByteLevelBPETokenizer, Tokenizer, models, normalizers, pre_tokenizers, trainers
from transformers import AutoTokenizer, BartTokenizer, PLBartTokenizer, RobertaTokenizer, T5Tokenizer

FAMILIES = ["codet5", "codet5_bpe", "bart", "t5", "t5_spm", "plbart", "plbart_java"]
MAX_SNIPPET = 4000
# After the snippets: texts at the edges of normalization and special-token splitting.
EDGE_TEXTS = [
    "",
    "   ",
    "  leading and trailing  ",
    "a\tb\n\nc\r\nd  \t e",
    "x </s> y <s>z<pad> <unk> <mask> __java__ <extra_id_0> w",
    "naïve café ＡＢＣ ﬁ \u00a0 \u200b \U0001F600 你好",
    "▁already ▁▁prefixed",
]
SIGNATURE = re.compile(
    r"^[ \t]*(?:(?:public|protected|private|static|final|synchronized|abstract|native|default)\s+)*"
    r"(?:<[^>]*>\s+)?[\w.<>\[\], ?]+\s+\w+\s*\([^;{}]*\)\s*(?:throws\s+[\w., ]+)?\s*\{",
    re.MULTILINE,
)


def held_out(key):
    """One snippet in five is held out, by a hash of where it comes from."""
    return hashlib.sha256(key.encode()).digest()[0] % 5 == 0


def java_methods():
    """Methods of the first readable JDK src.zip: a signature, then balanced braces."""
    for path in sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip")):
        try:
            archive = zipfile.ZipFile(path)
        except OSError:
            continue
        names = sorted(n for n in archive.namelist() if n.startswith("java.base/java/util/") and n.endswith(".java"))
        for name in names:
            text = archive.read(name).decode("utf-8", "replace")
            for match in SIGNATURE.finditer(text):
                depth, end = 0, None
                for i in range(match.end() - 1, min(len(text), match.start() + MAX_SNIPPET)):
                    depth += {"{": 1, "}": -1}.get(text[i], 0)
                    if depth == 0:
                        end = i + 1
                        break
                if end is not None:
                    yield f"{name}:{match.start()}", text[match.start() : end].strip("\n")
        return
    sys.exit("no readable /usr/lib/jvm/*/lib/src.zip")


def python_functions():
    """Functions of CPython's standard library (pyenv's newest 3.x), as `ast` finds them."""
    root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, check=True).stdout.strip()
    libs = sorted(
        glob.glob(f"{root}/versions/3.*/lib/python3.*"),
        key=lambda p: [int(x) for x in re.findall(r"\d+", p.rsplit("/", 1)[1])],
    )
    lib = libs[-1]
    for path in sorted(glob.glob(f"{lib}/*.py")):
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            tree = ast.parse(text)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        lines = text.splitlines(keepends=True)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                code = "".join(lines[node.lineno - 1 : node.end_lineno])
                if len(code) <= MAX_SNIPPET:
                    yield f"{os.path.basename(path)}:{node.lineno}", code


def corpus():
    """(training texts, held-out Java methods, held-out Python functions)."""
    train, java, python = [], [], []
    for source, held in ((java_methods(), java), (python_functions(), python)):
        for key, code in source:
            (held if held_out(key) else train).append(code)
    return train, java, python


def byte_level(texts, vocab_size, specials):
    tok = ByteLevelBPETokenizer()
    tok.train_from_iterator(texts, vocab_size=vocab_size, min_frequency=2, special_tokens=specials, show_progress=False)
    vocab = tok.get_vocab()
    merges = json.loads(tok.to_str())["model"]["merges"]
    return vocab, [tuple(m) if isinstance(m, list) else tuple(m.split(" ")) for m in merges]


def unigram(texts, vocab_size):
    tok = Tokenizer(models.Unigram())
    tok.normalizer = normalizers.Replace(" ", " ")
    tok.pre_tokenizer = pre_tokenizers.Metaspace()
    trainer = trainers.UnigramTrainer(
        vocab_size=vocab_size, special_tokens=["<pad>", "</s>", "<unk>"], unk_token="<unk>", show_progress=False
    )
    tok.train_from_iterator(texts, trainer=trainer)
    return [tuple(p) for p in json.loads(tok.to_str())["model"]["vocab"]]


def write_sentencepiece(out, texts, vocab_size):
    """T5's unigram `spiece.model` and PLBART's BPE `sentencepiece.bpe.model`, trained on the
    lines of the training snippets."""
    lines = [line for text in texts for line in text.splitlines() if line.strip()]
    layouts = {
        "t5_spm/spiece.model": dict(model_type="unigram", pad_id=0, eos_id=1, unk_id=2, bos_id=-1),
        "plbart/sentencepiece.bpe.model": dict(model_type="bpe", unk_id=0, bos_id=1, eos_id=2, pad_id=-1),
    }
    for path, layout in layouts.items():
        os.makedirs(os.path.dirname(f"{out}/{path}"), exist_ok=True)
        with open(f"{out}/{path}", "wb") as f:
            sentencepiece.SentencePieceTrainer.train(
                sentence_iterator=iter(lines),
                model_writer=f,
                vocab_size=vocab_size,
                hard_vocab_limit=False,
                input_sentence_size=300000,
                shuffle_input_sentence=True,
                seed_sentencepiece_size=200000,
                minloglevel=2,
                **layout,
            )


SENTENCEPIECE_FAMILIES = (
    ("t5_spm", "t5_spm/spiece.model", lambda ids: ids),
    ("plbart", "plbart/sentencepiece.bpe.model", lambda ids: [i + 1 if i else 3 for i in ids]),
)


def sentencepiece_agreement(out, tokenizers, snippets):
    """How many snippets' ids (no special tokens) from transformers equal sentencepiece's own."""
    for family, path, to_ids in SENTENCEPIECE_FAMILIES:
        sp = sentencepiece.SentencePieceProcessor(model_file=f"{out}/{path}")
        tok = tokenizers[family]
        same = sum(to_ids(sp.encode(text)) == tok(text, add_special_tokens=False)["input_ids"] for text in snippets)
        print(f"{family}: transformers equals sentencepiece on {same} of {len(snippets)} snippets", file=sys.stderr)


def stress(out, tokenizers, n):
    """`stress.jsonl`: n random concatenations of short pieces per SentencePiece family."""
    rng = random.Random(0)
    with open(f"{out}/stress.jsonl", "w") as f:
        for family, path, to_ids in SENTENCEPIECE_FAMILIES:
            sp = sentencepiece.SentencePieceProcessor(model_file=f"{out}/{path}")
            ids = [i for i in range(sp.get_piece_size()) if not (sp.is_unknown(i) or sp.is_control(i))]
            pieces = [sp.id_to_piece(i).replace("▁", " ") for i in ids if len(sp.id_to_piece(i)) <= 3]
            same = 0
            for _ in range(n):
                text = "".join(rng.choice(pieces) for _ in range(rng.randint(3, 12)))
                ids = tokenizers[family](text, add_special_tokens=False)["input_ids"]
                same += ids == to_ids(sp.encode(text))
                f.write(json.dumps({"family": family, "text": text, "plain": ids}, ensure_ascii=False) + "\n")
            print(f"{family}: transformers equals sentencepiece on {same} of {n} stress texts", file=sys.stderr)


def load(out, family):
    """The tokenizer transformers builds for one family's directory."""
    if family == "t5_spm":
        return T5Tokenizer.from_pretrained(f"{out}/t5_spm")
    if family in ("plbart", "plbart_java"):
        return PLBartTokenizer.from_pretrained(f"{out}/plbart", src_lang="java" if family == "plbart_java" else None)
    return AutoTokenizer.from_pretrained(f"{out}/{family}")


def write_tokenizers(out, texts, vocab_size):
    vocab, merges = byte_level(texts, vocab_size, ["<pad>", "<s>", "</s>", "<unk>", "<mask>"])
    RobertaTokenizer(vocab=vocab, merges=merges).save_pretrained(f"{out}/codet5")
    os.makedirs(f"{out}/codet5_bpe", exist_ok=True)
    with open(f"{out}/codet5_bpe/vocab.json", "w") as f:
        json.dump(dict(sorted(vocab.items(), key=lambda item: item[1])), f, ensure_ascii=False)
    with open(f"{out}/codet5_bpe/merges.txt", "w") as f:
        f.write("#version: 0.2\n" + "\n".join(" ".join(m) for m in merges) + "\n")
    with open(f"{out}/codet5_bpe/tokenizer_config.json", "w") as f:
        json.dump({"tokenizer_class": "RobertaTokenizer"}, f)
    vocab, merges = byte_level(texts, vocab_size, ["<s>", "<pad>", "</s>", "<unk>"])
    vocab["<mask>"] = len(vocab)
    BartTokenizer(vocab=vocab, merges=merges).save_pretrained(f"{out}/bart")
    T5Tokenizer(vocab=unigram(texts, vocab_size), extra_ids=8).save_pretrained(f"{out}/t5")
    for family in ("codet5", "bart", "t5"):
        # quarry reads tokenizer.json; the rest transformers writes is not needed.
        for name in os.listdir(f"{out}/{family}"):
            if name not in ("tokenizer.json", "tokenizer_config.json"):
                os.remove(f"{out}/{family}/{name}")
        # Written without indentation, to keep the fixture small; the content is unchanged.
        with open(f"{out}/{family}/tokenizer.json") as f:
            content = json.load(f)
        with open(f"{out}/{family}/tokenizer.json", "w") as f:
            json.dump(content, f, ensure_ascii=False, separators=(",", ":"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--snippets", type=int, default=16, help="held-out snippets per family, half Java, half Python")
    parser.add_argument("--vocab", type=int, default=1000)
    parser.add_argument("--spm-vocab", type=int, default=1000, help="entries of the SentencePiece models")
    parser.add_argument("--stress", type=int, default=0, help="random texts of short pieces per SentencePiece model")
    args = parser.parse_args()
    train, java, python = corpus()
    half = args.snippets // 2
    if len(java) < half or len(python) < args.snippets - half:
        sys.exit(f"only {len(java)} Java and {len(python)} Python held-out snippets")
    # Spread the chosen snippets over the corpus, in a fixed order.
    pick = lambda items, n: [items[i * len(items) // n] for i in range(n)]
    snippets = pick(java, half) + pick(python, args.snippets - half) + EDGE_TEXTS
    print(f"{len(train)} training snippets; {len(java)} Java and {len(python)} Python held out", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    write_tokenizers(args.out, train, args.vocab)
    write_sentencepiece(args.out, train, args.spm_vocab)
    tokenizers = {family: load(args.out, family) for family in FAMILIES}
    sentencepiece_agreement(args.out, tokenizers, snippets)
    if args.stress:
        stress(args.out, tokenizers, args.stress)
    with open(f"{args.out}/reference.jsonl", "w") as f:
        for text in snippets:
            row = {"text": text, "ids": {}, "plain": {}}
            for family, tok in tokenizers.items():
                row["ids"][family] = tok(text)["input_ids"]
                row["plain"][family] = tok.convert_tokens_to_ids(tok.tokenize(text))
            f.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
