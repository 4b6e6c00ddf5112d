//! The two floors of CodeQA answer generation (`quarry_experiment::codeqa::floors`) as
//! hypothesis files, to be scored with `quarry evaluate answer`; `quarry experiment codeqa`
//! computes and scores them itself.
//!
//! Usage: cargo run --release -p quarry-cli --example codeqa_floors -- TRAIN_PREFIX TEST_PREFIX OUT_DIR

use std::path::{Path, PathBuf};

use quarry_data::codeqa::read_split;
use quarry_experiment::codeqa::floors::{bm25_nearest, most_frequent};

fn write_lines(path: &Path, lines: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    quarry_stdx::write_atomically(path, text.as_bytes())?;
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, train, test, out] = args.as_slice() else {
        return Err("usage: codeqa_floors TRAIN_PREFIX TEST_PREFIX OUT_DIR".into());
    };
    let train = read_split(train.as_ref(), true, false)?;
    let test = read_split(test.as_ref(), false, false)?;
    let out = PathBuf::from(out);
    let (top, n) = most_frequent(&train).ok_or("empty train set")?;
    eprintln!("most frequent train answer: {top:?} ({n} of {})", train.len());
    write_lines(&out.join("most_frequent.hyp"), &vec![top; test.len()])?;
    write_lines(&out.join("bm25.hyp"), &bm25_nearest(&train, &test)?)?;
    eprintln!("wrote {} and {}", out.join("most_frequent.hyp").display(), out.join("bm25.hyp").display());
    Ok(())
}
