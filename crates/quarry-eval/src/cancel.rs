//! Stopping a long metric early from another thread (a Ctrl-C in Python).
//!
//! [`within`] runs a computation on the calling thread with a cancel flag; the
//! metrics' loops over lines check it before each line and stop with
//! [`EvalError::Cancelled`] once it is set. The flag is the thread's, so that
//! no metric's signature carries it (the metrics run on the thread that calls
//! them); outside [`within`] nothing stops. A check changes no number: a
//! computation that is not cancelled gives the same result bit for bit.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::EvalError;

thread_local! {
    /// The flag of the [`within`] this thread is running, if any.
    static FLAG: RefCell<Option<Arc<AtomicBool>>> = const { RefCell::new(None) };
}

/// Runs `work` on this thread with `cancel` as its cancel flag: once another
/// thread sets it, the metric that `work` computes stops at its next line with
/// [`EvalError::Cancelled`]. The thread's previous flag (of an enclosing
/// `within`) is restored afterwards, a panic included.
pub fn within<T>(cancel: Arc<AtomicBool>, work: impl FnOnce() -> T) -> T {
    /// Puts the previous flag back when dropped.
    struct Restore(Option<Arc<AtomicBool>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            FLAG.with(|flag| *flag.borrow_mut() = previous);
        }
    }
    let _restore = Restore(FLAG.with(|flag| flag.replace(Some(cancel))));
    work()
}

/// [`EvalError::Cancelled`] when this thread runs inside a [`within`] whose flag is set.
pub(crate) fn check() -> Result<(), EvalError> {
    let cancelled = FLAG.with(|flag| flag.borrow().as_ref().is_some_and(|f| f.load(Ordering::Relaxed)));
    if cancelled {
        Err(EvalError::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_set_flag_of_an_enclosing_within_stops() {
        assert!(check().is_ok(), "no flag outside `within`");
        let set = Arc::new(AtomicBool::new(true));
        let clear = Arc::new(AtomicBool::new(false));
        assert!(matches!(within(set.clone(), check), Err(EvalError::Cancelled)));
        within(clear, || {
            assert!(check().is_ok());
            assert!(within(set, check).is_err());
            assert!(check().is_ok(), "the enclosing flag is restored");
        });
        assert!(check().is_ok());
    }

    #[test]
    fn a_cancelled_metric_stops_and_an_uncancelled_one_is_unchanged() {
        use crate::metric::{score, Input, Metric, Options};
        let lines: Vec<String> = (0..500).map(|i| format!("the cat {i} sat on the mat {}", i % 7)).collect();
        let hyps = Input { name: "h", lines: lines.iter().map(String::as_str).collect() };
        let refs = [Input { name: "r", lines: lines.iter().rev().map(String::as_str).collect() }];
        for metric in Metric::all().filter(|m| *m != Metric::CodeqaMeteor) {
            let plain = score(metric, &hyps, &refs, &Options::default());
            let watched = within(Arc::new(AtomicBool::new(false)), || score(metric, &hyps, &refs, &Options::default()));
            match (plain, watched) {
                (Ok(a), Ok(b)) => {
                    assert_eq!(a.score.to_bits(), b.score.to_bits(), "{}", metric.name());
                    assert_eq!(a.per_line, b.per_line, "{}", metric.name());
                }
                (a, b) => assert_eq!(a.is_err(), b.is_err(), "{}", metric.name()),
            }
        }
        let per_line = [
            Metric::Bleu,
            Metric::SentenceBleu,
            Metric::CodeqaBleu,
            Metric::RougeL,
            Metric::CodeqaRougeL,
            Metric::Meteor,
            Metric::CodeqaEm,
            Metric::F1,
        ];
        for metric in per_line {
            let stopped = within(Arc::new(AtomicBool::new(true)), || score(metric, &hyps, &refs, &Options::default()));
            assert!(matches!(stopped, Err(EvalError::Cancelled)), "{}", metric.name());
        }
    }
}
