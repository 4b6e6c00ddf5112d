//! English text analysis for quarry: the inference of spaCy's small English
//! pipeline run from its model directory, with no Python at run time.
//!
//! [`Pipeline::load`] reads a spaCy model directory (`config.cfg`, the
//! tokenizer rules, the tok2vec, tagger and parser weights, the attribute
//! ruler's patterns and the lemmatizer's tables) and [`Pipeline::parse`]
//! turns text into a [`Doc`]: tokens with their whitespace, tag, coarse part
//! of speech, morphology, lemma, syntactic head, dependency label and
//! sentence starts, plus tree navigation (children, subtree, edges). It
//! knows nothing of code. Named entities are left out.

#![warn(missing_docs)]

pub mod arc_eager;
pub mod attribute_ruler;
pub mod config;
pub mod conllu;
pub mod doc;
mod error;
pub mod hash;
pub mod layers;
pub mod lemmatizer;
pub mod lexeme;
pub mod msgpack;
pub mod parser;
pub mod pipeline;
pub mod pyregex;
pub mod spacy_json;
pub mod tagger;
pub mod tok2vec;
pub mod tokenizer;

pub use doc::{Doc, Token};
pub use error::NlpError;
pub use pipeline::Pipeline;
