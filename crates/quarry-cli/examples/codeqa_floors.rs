//! The two floors of CodeQA answer generation: answer every test question with the most
//! frequent training answer, and with the answer of the training question most similar to
//! it under BM25 (rank-bm25's `BM25Okapi` over lower-cased whitespace tokens of the
//! questions). Writes one hypothesis file per floor, to be scored with
//! `quarry evaluate answer`.
//!
//! Usage: cargo run --release -p quarry-cli --example codeqa_floors -- TRAIN_PREFIX TEST_PREFIX OUT_DIR

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use quarry_data::codeqa::read_split;
use quarry_eval::bm25::{Bm25, Bm25Params};
use quarry_stdx::AtomicFile;

fn tokens(text: &str) -> Vec<String> {
    text.to_lowercase().split_whitespace().map(str::to_string).collect()
}

fn write_lines(path: &Path, lines: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut out = AtomicFile::create(path)?;
    for l in lines {
        out.write_all(l.as_bytes())?;
        out.write_all(b"\n")?;
    }
    out.commit()?;
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

    // Most frequent answer; ties go to the one seen first.
    let mut counts: HashMap<&str, (usize, usize)> = HashMap::new();
    for (i, e) in train.iter().enumerate() {
        let a = e.answer.as_deref().unwrap_or_default();
        counts.entry(a).or_insert((0, i)).0 += 1;
    }
    let (top, (n, _)) =
        counts.iter().max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1))).ok_or("empty train set")?;
    eprintln!("most frequent train answer: {top:?} ({n} of {})", train.len());
    write_lines(&out.join("most_frequent.hyp"), &vec![top.to_string(); test.len()])?;

    let corpus: Vec<Vec<String>> = train.iter().map(|e| tokens(&e.question)).collect();
    let bm25 = Bm25::new(&corpus, Bm25Params::default())?;
    let answers: Vec<String> = test
        .iter()
        .map(|e| {
            let best = bm25.top_n(&tokens(&e.question), 1);
            train[best[0]].answer.clone().unwrap_or_default()
        })
        .collect();
    write_lines(&out.join("bm25.hyp"), &answers)?;
    eprintln!("wrote {} and {}", out.join("most_frequent.hyp").display(), out.join("bm25.hyp").display());
    Ok(())
}
