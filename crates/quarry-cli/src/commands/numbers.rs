//! Parsers of the numeric command-line options, so that a value no run can use is refused
//! where it is typed, naming the option, instead of hanging, exhausting memory or printing
//! NaN later: counts that size memory or threads have an upper bound, real numbers must be
//! finite and in their range.

/// Threads: `--jobs`. More than this many is refused (each thread costs a stack, and the
/// work is bounded by the cores anyway).
pub const MAX_JOBS: usize = 1024;

fn count_within(text: &str, min: usize, max: usize) -> Result<usize, String> {
    let value: usize = text.trim().parse().map_err(|_| format!("`{text}` is not a whole number"))?;
    if value < min || value > max {
        return Err(format!("{value} is out of range: expected {min} to {max}"));
    }
    Ok(value)
}

/// `--jobs`: 1 to [`MAX_JOBS`] threads.
pub fn jobs(text: &str) -> Result<usize, String> {
    count_within(text, 1, MAX_JOBS)
}

/// A batch size, beam width, layer count or other size that memory grows with: 1 to 65,536.
pub fn size(text: &str) -> Result<usize, String> {
    count_within(text, 1, 1 << 16)
}

/// How many times to repeat something, zero included (warm-up passes): 0 to 1,000,000.
pub fn repeats(text: &str) -> Result<usize, String> {
    count_within(text, 0, 1_000_000)
}

/// A sequence length in tokens or a hidden width: 1 to 1,048,576.
pub fn length(text: &str) -> Result<usize, String> {
    count_within(text, 1, 1 << 20)
}

/// Passes over a training set: 1 to 100,000 (none would train nothing and write no model).
pub fn epochs(text: &str) -> Result<usize, String> {
    count_within(text, 1, 100_000)
}

/// How many items to make or return (examples, questions, hits): 1 to 100,000,000.
pub fn amount(text: &str) -> Result<usize, String> {
    count_within(text, 1, 100_000_000)
}

fn finite(text: &str) -> Result<f64, String> {
    let value: f64 = text.trim().parse().map_err(|_| format!("`{text}` is not a number"))?;
    if !value.is_finite() {
        return Err(format!("{value} is not a finite number"));
    }
    Ok(value)
}

/// Any finite real number.
pub fn real(text: &str) -> Result<f64, String> {
    finite(text)
}

/// A finite number above zero (a learning rate).
pub fn positive(text: &str) -> Result<f64, String> {
    let value = finite(text)?;
    if value <= 0.0 {
        return Err(format!("{value} must be above zero"));
    }
    Ok(value)
}

/// [`positive`] as an `f32` (a value beyond `f32`'s range is refused, not made infinite,
/// and one that rounds to zero is refused too).
pub fn positive_f32(text: &str) -> Result<f32, String> {
    let value = positive(text)? as f32;
    if !value.is_finite() || value <= 0.0 {
        return Err(format!("`{text}` is outside the range of a 32-bit number"));
    }
    Ok(value)
}

/// A finite number of zero or more (a weight decay, an n-gram weight).
pub fn non_negative(text: &str) -> Result<f64, String> {
    let value = finite(text)?;
    if value < 0.0 {
        return Err(format!("{value} must not be negative"));
    }
    Ok(value)
}

/// BLEU's n-gram weights, as [`quarry_eval::sentence_bleu::check_weights`] takes them.
pub fn ngram_weights(weights: &[f64]) -> Result<(), String> {
    quarry_eval::sentence_bleu::check_weights(weights).map_err(|e| format!("--weights: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_no_run_can_use_are_refused() {
        assert_eq!(jobs("4"), Ok(4));
        assert!(jobs("0").is_err() && jobs("100000").is_err() && jobs("-1").is_err());
        assert!(epochs("0").is_err() && epochs("1").is_ok());
        assert!(size("x").unwrap_err().contains("not a whole number"));
        assert_eq!(positive("5e-5"), Ok(5e-5));
        for bad in ["NaN", "inf", "-inf", "0", "-1"] {
            assert!(positive(bad).is_err(), "{bad}");
        }
        assert!(non_negative("-0.1").is_err() && non_negative("0").is_ok());
        assert!(positive_f32("1e300").is_err() && positive_f32("1e-300").is_err() && positive_f32("0.5").is_ok());
        assert!(ngram_weights(&[0.25; 4]).is_ok());
        assert!(
            ngram_weights(&[0.001; 1000]).is_err() && ngram_weights(&[]).is_err() && ngram_weights(&[0.0]).is_err()
        );
    }
}
