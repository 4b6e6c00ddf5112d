//! The native part of the Python package `quarry_code` (imported as
//! `quarry_code._native`): thin wrappers over the library crates. Each long
//! call runs without the GIL, and every error or panic comes back as an
//! exception of `quarry_code.errors` ([`errors`]). The Python package puts
//! the user-facing API (docstrings, spaCy-style names, type stubs) on top.

mod codeqa;
mod errors;
mod metrics;
mod nlp;
mod nlp_index;
mod nlp_state;
mod pool;
mod query;

use pyo3::prelude::*;

/// mimalloc for the module's allocations, tree-sitter's included, as in the
/// `quarry` binary ([`quarry_query::allocator`]).
#[global_allocator]
static GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;

/// Panics with `message`, so the tests can check that a panic becomes a
/// `QuarryError` and leaves the interpreter running.
#[pyfunction]
fn _panic_for_test(py: Python<'_>, message: String) -> PyResult<()> {
    errors::detached(py, move || -> Result<(), errors::Failure> { panic!("{message}") })
}

/// Sleeps `seconds` as a call's work does (off the interpreter, without the
/// GIL, watching its cancel flag), so the tests can check that a signal
/// interrupts a long call and that the interrupted work stops.
#[pyfunction]
fn _sleep_for_test(py: Python<'_>, seconds: f64) -> PyResult<()> {
    let pause = std::time::Duration::try_from_secs_f64(seconds)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(format!("seconds: {e}")))?;
    errors::detached_cancellable(py, move |cancel| -> Result<(), errors::Failure> {
        let started = std::time::Instant::now();
        while started.elapsed() < pause && !cancel.load(std::sync::atomic::Ordering::Relaxed) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        Ok(())
    })
}

/// The module `quarry_code._native`.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    // SAFETY: module initialisation runs once per process, before this
    // module has made any tree-sitter parser or tree.
    unsafe { quarry_query::allocator::route_tree_sitter_allocations() };
    module.add_function(wrap_pyfunction!(_panic_for_test, module)?)?;
    module.add_function(wrap_pyfunction!(_sleep_for_test, module)?)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    module.add_function(wrap_pyfunction!(query::query_jsonl, module)?)?;
    module.add_function(wrap_pyfunction!(metrics::metric_names, module)?)?;
    module.add_function(wrap_pyfunction!(metrics::score, module)?)?;
    module.add_function(wrap_pyfunction!(metrics::corpus_bleu, module)?)?;
    module.add_function(wrap_pyfunction!(codeqa::codeqa_pairs, module)?)?;
    module.add_function(wrap_pyfunction!(nlp_state::_doc_from_state, module)?)?;
    module.add_class::<nlp::Pipeline>()?;
    module.add_class::<nlp::Doc>()?;
    module.add_class::<nlp::Token>()?;
    module.add_class::<nlp::Span>()?;
    Ok(())
}
