//! English text analysis for quarry: the inference of spaCy's small English
//! pipeline run from its model directory, with no Python at run time.
//!
//! [`Doc`] is the analysed text every caller sees: tokens with their
//! whitespace, tag, coarse part of speech, morphology, lemma, syntactic head,
//! dependency label and sentence starts, plus tree navigation (children,
//! subtree, edges). It knows nothing of code.

#![warn(missing_docs)]

pub mod doc;

pub use doc::{Doc, Token};
