//! Pickling the pipeline's docs: a doc's state is its analysis as JSON
//! (`quarry_nlp::Doc`'s serde form), checked when read back so that a
//! corrupt or hand-made state raises instead of breaking the doc's methods.
//! Tokens and spans pickle as their doc and `doc[i]` or `doc[start:end]`.

use pyo3::prelude::*;

use crate::errors::{to_exception, Kind};
use crate::nlp::Doc;

/// A doc from the state of a pickled one (`Doc.__reduce__`'s: its analysis as JSON).
#[pyfunction]
pub fn _doc_from_state(py: Python<'_>, state: &str) -> PyResult<Doc> {
    let doc: quarry_nlp::Doc = serde_json::from_str(state)
        .map_err(|e| to_exception(py, (Kind::Value, format!("not the state of a pickled doc: {e}"))))?;
    check(&doc)
        .map_err(|problem| to_exception(py, (Kind::Value, format!("not the state of a pickled doc: {problem}"))))?;
    Ok(Doc::new(doc))
}

/// Why `doc` is not one the pipeline could have made, if it is not: every
/// head a token of the doc, the text the tokens and their whitespace.
fn check(doc: &quarry_nlp::Doc) -> Result<(), String> {
    if let Some((i, t)) = doc.tokens.iter().enumerate().find(|(_, t)| t.head >= doc.len()) {
        return Err(format!("token {i} has head {} in a doc of {} tokens", t.head, doc.len()));
    }
    let joined: String = doc.tokens.iter().flat_map(|t| [t.text.as_str(), t.whitespace.as_str()]).collect();
    if joined != doc.text {
        return Err("its tokens do not make up its text".into());
    }
    Ok(())
}
