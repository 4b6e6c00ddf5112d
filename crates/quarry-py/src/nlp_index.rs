//! Indexing a doc or a span as spaCy does: an integer (negative from the
//! end) gives a token, a slice with step 1 gives a span.

use pyo3::exceptions::{PyIndexError, PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PySlice;

/// What `seq[index]` picks in a sequence of `len` tokens.
pub enum Pick {
    /// One token, by its position in the sequence.
    Token(usize),
    /// The tokens in `start..end` of the sequence (possibly empty).
    Span(usize, usize),
}

/// What `index` picks in a sequence of `len` tokens: an integer (negative
/// from the end) or a slice with step 1, as spaCy's `Doc` and `Span` take.
pub fn pick(index: &Bound<'_, PyAny>, len: usize) -> PyResult<Pick> {
    if let Ok(slice) = index.cast::<PySlice>() {
        let bounds = slice.indices(len as isize)?;
        if bounds.step != 1 {
            return Err(PyValueError::new_err(format!("a slice of tokens takes step 1, not {}", bounds.step)));
        }
        let start = bounds.start.max(0) as usize;
        return Ok(Pick::Span(start, (bounds.stop.max(0) as usize).max(start)));
    }
    match index.extract::<isize>() {
        Ok(at) => position(at, len).map(Pick::Token),
        // An integer too large for an index is out of range, as in a list.
        Err(error) if error.is_instance_of::<PyOverflowError>(index.py()) => {
            Err(PyIndexError::new_err(format!("index {index} out of range for {len} tokens")))
        }
        Err(_) => {
            let kind = index.get_type().name()?;
            Err(PyTypeError::new_err(format!("tokens are indexed by an integer or a slice, not {kind}")))
        }
    }
}

/// `index` (negative from the end) as a position in a sequence of `len`.
pub fn position(index: isize, len: usize) -> PyResult<usize> {
    let at = if index < 0 { index + len as isize } else { index };
    if at < 0 || at as usize >= len {
        return Err(PyIndexError::new_err(format!("index {index} out of range for {len} tokens")));
    }
    Ok(at as usize)
}
