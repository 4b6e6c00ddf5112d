//! `quarry_code.nlp`: quarry-nlp's English pipeline, and its docs as
//! objects with spaCy's attribute names (`Doc`, `Token`, `Span`). A doc's
//! tokens are made on access from the shared analysis, so `pipe` costs one
//! Python object per text.

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PySlice};
use quarry_nlp::spacy_json::{char_offsets, to_spacy_json};
use quarry_nlp::NlpError;

use crate::errors::{cancelled, detached, detached_cancellable, Failure, Kind};
use crate::nlp_index::{pick, Pick};

/// A loaded pipeline (spaCy's `en_core_web_sm` 3.8 model directory).
#[pyclass(frozen, module = "quarry_code._native")]
pub struct Pipeline {
    pub(crate) inner: Arc<quarry_nlp::Pipeline>,
}

/// A failure of the pipeline as an exception's kind and message.
pub(crate) fn nlp_failure(error: NlpError) -> Failure {
    match error {
        NlpError::Io(io) => crate::errors::io_failure(&io.path, &io.source),
        NlpError::Missing { .. } => (Kind::Os, error.to_string()),
        other => (Kind::Value, other.to_string()),
    }
}

#[pymethods]
impl Pipeline {
    /// Loads the model in `model_dir` (the folder with `config.cfg` or the package folder above it).
    #[staticmethod]
    fn load(py: Python<'_>, model_dir: PathBuf) -> PyResult<Pipeline> {
        let inner = detached(py, move || quarry_nlp::Pipeline::load(&model_dir).map_err(nlp_failure))?;
        Ok(Pipeline { inner: Arc::new(inner) })
    }

    /// The model directory.
    #[getter]
    fn path(&self) -> PathBuf {
        self.inner.dir().to_path_buf()
    }

    /// Analyses `texts`, one doc each, in order, without the GIL; an interrupted call
    /// stops its work before the pipeline's next component.
    fn parse_batch(&self, py: Python<'_>, texts: Vec<String>) -> PyResult<Vec<Doc>> {
        let pipeline = Arc::clone(&self.inner);
        let docs = detached_cancellable(py, move |cancel| {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let mut docs = Vec::with_capacity(refs.len());
            let results = pipeline.pipe_cancellable(&refs, cancel).ok_or_else(cancelled)?;
            for (k, result) in results.into_iter().enumerate() {
                let doc = result.map_err(|e| {
                    let (kind, message) = nlp_failure(e);
                    (kind, format!("text {k} of the batch: {message}"))
                })?;
                docs.push(Doc::new(doc));
            }
            Ok(docs)
        })?;
        Ok(docs)
    }
}

/// A doc and its tokens' character offsets (made on first need).
pub struct DocData {
    doc: quarry_nlp::Doc,
    offsets: OnceLock<Vec<usize>>,
}

impl DocData {
    fn offsets(&self) -> &[usize] {
        self.offsets.get_or_init(|| char_offsets(&self.doc))
    }

    /// The character offset of token `i`, or of the text's end for `i` past the last token.
    fn char_offset(&self, i: usize) -> usize {
        self.offsets().get(i).copied().unwrap_or_else(|| self.doc.text.chars().count())
    }

    fn token(&self, i: usize) -> &quarry_nlp::Token {
        &self.doc.tokens[i]
    }
}

/// An analysed text: a sequence of tokens.
#[pyclass(frozen, module = "quarry_code._native")]
pub struct Doc {
    data: Arc<DocData>,
}

impl Doc {
    /// The Python doc of an analysis.
    pub(crate) fn new(doc: quarry_nlp::Doc) -> Doc {
        Doc { data: Arc::new(DocData { doc, offsets: OnceLock::new() }) }
    }
}

/// One token of a doc.
#[pyclass(frozen, module = "quarry_code._native")]
pub struct Token {
    data: Arc<DocData>,
    i: usize,
}

/// A slice of a doc's tokens (a sentence).
#[pyclass(frozen, module = "quarry_code._native")]
pub struct Span {
    data: Arc<DocData>,
    start: usize,
    end: usize,
}

/// What `__reduce__` gives pickle: a callable and its arguments.
type Reduced<'py, A> = (Bound<'py, PyAny>, A);

fn token(data: &Arc<DocData>, i: usize) -> Token {
    Token { data: Arc::clone(data), i }
}

fn tokens(data: &Arc<DocData>, indices: impl IntoIterator<Item = usize>) -> Vec<Token> {
    indices.into_iter().map(|i| token(data, i)).collect()
}

/// `seq[index]` of a sequence of tokens from `start` to `start + len` of `data`'s doc.
fn item(
    py: Python<'_>,
    data: &Arc<DocData>,
    start: usize,
    len: usize,
    index: &Bound<'_, PyAny>,
) -> PyResult<Py<PyAny>> {
    Ok(match pick(index, len)? {
        Pick::Token(i) => Py::new(py, token(data, start + i))?.into_any(),
        Pick::Span(from, to) => {
            Py::new(py, Span { data: Arc::clone(data), start: start + from, end: start + to })?.into_any()
        }
    })
}

#[pymethods]
impl Doc {
    /// The text the doc was made from.
    #[getter]
    fn text(&self) -> &str {
        &self.data.doc.text
    }

    fn __len__(&self) -> usize {
        self.data.doc.len()
    }

    /// A token by its index (negative from the end), or a span by a slice.
    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        item(py, &self.data, 0, self.data.doc.len(), index)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, tokens(&self.data, 0..self.data.doc.len()))?.try_iter()?.into_any())
    }

    fn __str__(&self) -> &str {
        &self.data.doc.text
    }

    fn __repr__(&self) -> String {
        self.data.doc.text.clone()
    }

    /// The sentences, as spans.
    #[getter]
    fn sents(&self) -> Vec<Span> {
        self.data
            .doc
            .sents()
            .into_iter()
            .map(|r| Span { data: Arc::clone(&self.data), start: r.start, end: r.end })
            .collect()
    }

    /// Pickles the doc as its analysis ([`doc_state`]).
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py, (String,)>> {
        let rebuild = py.import("quarry_code._native")?.getattr("_doc_from_state")?;
        Ok((rebuild, (doc_state(&self.data.doc)?,)))
    }

    /// The doc as spaCy's `Doc.to_json()` gives it: `text`, `sents`
    /// (character offsets) and `tokens` (`id`, `start`, `end`, `tag`, `pos`,
    /// `morph`, `lemma`, `dep`, `head`).
    fn to_json<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        py.import("json")?.call_method1("loads", (to_spacy_json(&self.data.doc).to_string(),))
    }
}

#[pymethods]
impl Token {
    /// The token's text, exactly as in the input.
    #[getter]
    fn text(&self) -> &str {
        &self.data.token(self.i).text
    }

    /// The whitespace after the token ("" or the spaces).
    #[getter]
    fn whitespace_(&self) -> &str {
        &self.data.token(self.i).whitespace
    }

    /// The text with the whitespace after it.
    #[getter]
    fn text_with_ws(&self) -> String {
        let t = self.data.token(self.i);
        format!("{}{}", t.text, t.whitespace)
    }

    /// The token's index in the doc.
    #[getter]
    fn i(&self) -> usize {
        self.i
    }

    /// The character offset of the token in the doc's text.
    #[getter]
    fn idx(&self) -> usize {
        self.data.offsets()[self.i]
    }

    /// Fine-grained tag (Penn Treebank).
    #[getter]
    fn tag_(&self) -> &str {
        &self.data.token(self.i).tag
    }

    /// Coarse Universal Dependencies part of speech.
    #[getter]
    fn pos_(&self) -> &str {
        &self.data.token(self.i).pos
    }

    /// Morphological features, `Key=Value|...` (spaCy's `str(token.morph)`).
    #[getter]
    fn morph(&self) -> &str {
        &self.data.token(self.i).morph
    }

    /// The lemma.
    #[getter]
    fn lemma_(&self) -> &str {
        &self.data.token(self.i).lemma
    }

    /// The dependency label.
    #[getter]
    fn dep_(&self) -> &str {
        &self.data.token(self.i).dep
    }

    /// The syntactic head (the token itself for a sentence root).
    #[getter]
    fn head(&self) -> Token {
        token(&self.data, self.data.doc.head(self.i))
    }

    /// True when the token starts a sentence.
    #[getter]
    fn is_sent_start(&self) -> bool {
        self.data.token(self.i).sent_start
    }

    /// The immediate dependents, in order.
    #[getter]
    fn children(&self) -> Vec<Token> {
        tokens(&self.data, self.data.doc.children(self.i))
    }

    /// The dependents before the token.
    #[getter]
    fn lefts(&self) -> Vec<Token> {
        tokens(&self.data, self.data.doc.lefts(self.i))
    }

    /// The dependents after the token.
    #[getter]
    fn rights(&self) -> Vec<Token> {
        tokens(&self.data, self.data.doc.rights(self.i))
    }

    /// The token and everything it dominates, in order.
    #[getter]
    fn subtree(&self) -> Vec<Token> {
        tokens(&self.data, self.data.doc.subtree(self.i))
    }

    /// The leftmost token of the subtree.
    #[getter]
    fn left_edge(&self) -> Token {
        token(&self.data, self.data.doc.left_edge(self.i))
    }

    /// The rightmost token of the subtree.
    #[getter]
    fn right_edge(&self) -> Token {
        token(&self.data, self.data.doc.right_edge(self.i))
    }

    /// The doc the token belongs to.
    #[getter]
    fn doc(&self) -> Doc {
        Doc { data: Arc::clone(&self.data) }
    }

    /// The sentence the token belongs to.
    #[getter]
    fn sent(&self) -> PyResult<Span> {
        let range = self.data.doc.sents().into_iter().find(|r| r.contains(&self.i));
        let range = range.ok_or_else(|| PyIndexError::new_err("token outside every sentence"))?;
        Ok(Span { data: Arc::clone(&self.data), start: range.start, end: range.end })
    }

    fn __len__(&self) -> usize {
        self.data.token(self.i).text.chars().count()
    }

    fn __str__(&self) -> &str {
        self.text()
    }

    fn __repr__(&self) -> &str {
        self.text()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Token>().is_ok_and(|o| {
            let o = o.get();
            Arc::ptr_eq(&o.data, &self.data) && o.i == self.i
        })
    }

    fn __hash__(&self) -> u64 {
        (Arc::as_ptr(&self.data) as u64).wrapping_mul(31).wrapping_add(self.i as u64)
    }

    /// Pickles the token as `doc[i]`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py, (Doc, usize)>> {
        Ok((py.import("operator")?.getattr("getitem")?, (self.doc(), self.i)))
    }
}

#[pymethods]
impl Span {
    /// The span's text (no whitespace after its last token).
    #[getter]
    fn text(&self) -> String {
        self.data.doc.span_text(self.start..self.end)
    }

    /// Index of the first token.
    #[getter]
    fn start(&self) -> usize {
        self.start
    }

    /// Index after the last token.
    #[getter]
    fn end(&self) -> usize {
        self.end
    }

    /// Character offset of the span's start in the doc's text.
    #[getter]
    fn start_char(&self) -> usize {
        self.data.char_offset(self.start)
    }

    /// Character offset of the span's end in the doc's text.
    #[getter]
    fn end_char(&self) -> usize {
        match self.end.checked_sub(1).filter(|&last| last >= self.start) {
            Some(last) => self.data.char_offset(last) + self.data.token(last).text.chars().count(),
            None => self.start_char(),
        }
    }

    /// The token of the span whose head lies outside it (a sentence's root).
    #[getter]
    fn root(&self) -> PyResult<Token> {
        if self.start == self.end {
            return Err(PyIndexError::new_err("an empty span has no root"));
        }
        let inside = |h: usize| (self.start..self.end).contains(&h);
        let root = (self.start..self.end).find(|&i| self.data.doc.is_root(i) || !inside(self.data.doc.head(i)));
        Ok(token(&self.data, root.unwrap_or(self.start)))
    }

    fn __len__(&self) -> usize {
        self.end - self.start
    }

    /// A token by its index in the span (negative from the end), or a span by a slice.
    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        item(py, &self.data, self.start, self.end - self.start, index)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyList::new(py, tokens(&self.data, self.start..self.end))?.try_iter()?.into_any())
    }

    fn __str__(&self) -> String {
        self.text()
    }

    fn __repr__(&self) -> String {
        self.text()
    }

    /// Spans are equal when they cover the same tokens of the same doc.
    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<Span>().is_ok_and(|o| {
            let o = o.get();
            Arc::ptr_eq(&o.data, &self.data) && (o.start, o.end) == (self.start, self.end)
        })
    }

    fn __hash__(&self) -> u64 {
        let at = (Arc::as_ptr(&self.data) as u64).wrapping_mul(31).wrapping_add(self.start as u64);
        at.wrapping_mul(31).wrapping_add(self.end as u64)
    }

    /// Pickles the span as `doc[start:end]`.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Reduced<'py, (Doc, Bound<'py, PySlice>)>> {
        let doc = Doc { data: Arc::clone(&self.data) };
        let range = PySlice::new(py, self.start as isize, self.end as isize, 1);
        Ok((py.import("operator")?.getattr("getitem")?, (doc, range)))
    }
}

/// The state `_doc_from_state` reads back: the doc's analysis as JSON.
fn doc_state(doc: &quarry_nlp::Doc) -> PyResult<String> {
    serde_json::to_string(doc).map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("cannot save a doc: {e}")))
}
