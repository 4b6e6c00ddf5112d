//! The parsers of `quarry`'s numeric options on any text: they never panic, and what
//! they accept is within the bounds they promise (finite reals, counts in range), so no
//! option value reaches a command that could hang or exhaust memory on it.
#![no_main]

use libfuzzer_sys::fuzz_target;

// The binary crate's own module, compiled into this target as it is.
#[path = "../../crates/quarry-cli/src/commands/numbers.rs"]
#[allow(dead_code)]
mod numbers;

fuzz_target!(|text: &str| {
    if let Ok(jobs) = numbers::jobs(text) {
        assert!((1..=numbers::MAX_JOBS).contains(&jobs));
    }
    for parse in [numbers::size, numbers::length, numbers::amount] {
        if let Ok(n) = parse(text) {
            assert!(n >= 1);
        }
    }
    for parse in [numbers::real, numbers::positive, numbers::non_negative] {
        if let Ok(x) = parse(text) {
            assert!(x.is_finite());
        }
    }
    if let Ok(x) = numbers::positive(text) {
        assert!(x > 0.0);
    }
    if let Ok(x) = numbers::positive_f32(text) {
        assert!(x.is_finite() && x > 0.0, "{x}");
    }
    // `--weights` as the command line splits it.
    let weights: Result<Vec<f64>, String> = text.split(',').map(numbers::non_negative).collect();
    if let Ok(weights) = weights {
        if numbers::ngram_weights(&weights).is_ok() {
            assert!((1..=numbers::MAX_NGRAM_ORDER).contains(&weights.len()));
            assert!(weights.iter().any(|&w| w > 0.0) && weights.iter().all(|w| w.is_finite() && *w >= 0.0));
        }
    }
});
