//! The two floors of CodeQA answer generation (`quarry_experiment::codeqa::floors`) as
//! hypothesis files, to be scored with `quarry evaluate answer`; `quarry experiment codeqa`
//! computes and scores them itself.
//!
//! Usage: cargo run --release -p quarry-cli --example codeqa_floors -- TRAIN_PREFIX TEST_PREFIX OUT_DIR

use std::path::PathBuf;

use quarry_data::codeqa::{read_split, write_answers};
use quarry_experiment::codeqa::floors::{bm25_nearest, most_frequent};

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
    write_answers(&out.join("most_frequent.hyp"), &vec![top; test.len()])?;
    write_answers(&out.join("bm25.hyp"), &bm25_nearest(&train, &test)?)?;
    eprintln!("wrote {} and {}", out.join("most_frequent.hyp").display(), out.join("bm25.hyp").display());
    Ok(())
}
