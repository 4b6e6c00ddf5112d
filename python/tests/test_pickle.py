"""Pickling what the API returns, as multiprocessing and caches do: a
Language (as its model directory), docs, tokens and spans; doc slices are
spans, as in spaCy."""

from __future__ import annotations

import copy
import pickle

import pytest

import quarry_code
from quarry_code import nlp as quarry_nlp


def test_a_language_pickles_as_its_model_directory(nlp):
    again = pickle.loads(pickle.dumps(nlp))
    assert isinstance(again, quarry_nlp.Language)
    assert again.path == nlp.path
    assert again("Opens the file.").to_json() == nlp("Opens the file.").to_json()
    assert nlp.path in repr(nlp)


def test_docs_tokens_and_spans_pickle(nlp):
    doc = nlp("Returns the number of lines. Opens the file.")
    again = pickle.loads(pickle.dumps(doc))
    assert again.to_json() == doc.to_json()
    assert [t.head.i for t in again] == [t.head.i for t in doc]
    assert copy.deepcopy(doc).to_json() == doc.to_json()
    token = pickle.loads(pickle.dumps(doc[2]))
    assert (token.text, token.i, token.dep_, token.doc.text) == ("number", 2, doc[2].dep_, doc.text)
    sent = pickle.loads(pickle.dumps(doc.sents[1]))
    assert (sent.text, sent.start, sent.end) == ("Opens the file.", doc.sents[1].start, doc.sents[1].end)


def test_a_corrupt_doc_state_raises():
    with pytest.raises(quarry_code.QuarryValueError, match="pickled doc"):
        quarry_code._native._doc_from_state("{}")
    state = '{"text": "a", "tokens": [{"text": "a", "whitespace": "", "tag": "", "pos": "", "morph": "",'
    state += ' "lemma": "", "head": 5, "dep": "", "sent_start": true}]}'
    with pytest.raises(quarry_code.QuarryValueError, match="head 5"):
        quarry_code._native._doc_from_state(state)


def test_slices_are_spans_and_spans_compare_by_tokens(nlp):
    doc = nlp("Returns the number of lines.")
    span = doc[1:3]
    assert isinstance(span, quarry_nlp.Span)
    assert (span.text, span.start, span.end, span.start_char, span.end_char) == ("the number", 1, 3, 8, 18)
    assert span[1:].text == "number" and span[-1].text == "number"
    assert doc.sents[0] == doc[0 : len(doc)] and hash(doc.sents[0]) == hash(doc[0 : len(doc)])
    empty = doc[3:3]
    assert (len(empty), empty.text, empty.start_char, empty.end_char) == (0, "", 19, 19)
    assert doc[len(doc) :].start_char == len(doc.text)
    with pytest.raises(IndexError, match="empty span"):
        _ = empty.root
    with pytest.raises(ValueError, match="step 1"):
        doc[::2]
    with pytest.raises(IndexError, match="out of range"):
        doc[10**30]
    with pytest.raises(TypeError, match="integer or a slice"):
        doc["x"]
