//! Corpora of source files to build datasets from.
//!
//! [`archive`] reads the Python files out of a source archive safely; [`pypi`] assembles a
//! corpus from the source distributions of PyPI packages, reproducibly from its manifest.

pub mod archive;
pub mod pypi;
