//! BM25 over CS1QA's answer-retrieval files, for the cross-check and speed comparison with
//! rank-bm25 (`bench/cs1qa_bm25.py` runs both): prints each question's top-k corpus indices
//! and scores as JSON lines, and on stderr the seconds one pass of indexing and scoring
//! every question took (best of `--repeat` passes).
//!
//! `cargo run --release -p quarry-eval --example cs1qa_bm25 -- CORPUS QUESTIONS [K] [REPEAT]`

use std::time::Instant;

use quarry_eval::bm25::{Bm25, Bm25Params};
use quarry_eval::cs1qa::bm25_tokens;

fn texts(path: &str) -> Vec<String> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap_or_else(|e| panic!("{path}:{}: {e}", i + 1));
            v["text"].as_str().unwrap_or_else(|| panic!("{path}:{}: no text", i + 1)).to_string()
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: cs1qa_bm25 CORPUS QUESTIONS [K] [REPEAT]");
        std::process::exit(2);
    }
    let corpus = texts(&args[1]);
    let questions = texts(&args[2]);
    let k: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(5);
    let repeat: usize = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(1).max(1);
    let mut best = f64::INFINITY;
    let mut results = Vec::new();
    for _ in 0..repeat {
        let start = Instant::now();
        let docs: Vec<Vec<String>> = corpus.iter().map(|t| bm25_tokens(t)).collect();
        let index = Bm25::new(&docs, Bm25Params::default()).expect("non-empty corpus");
        results = questions.iter().map(|q| index.top_n_scored(&bm25_tokens(q), k)).collect();
        best = best.min(start.elapsed().as_secs_f64());
    }
    for r in &results {
        let ids: Vec<usize> = r.iter().map(|x| x.0).collect();
        let scores: Vec<f64> = r.iter().map(|x| x.1).collect();
        println!("{}", serde_json::json!({"top": ids, "scores": scores}));
    }
    eprintln!("seconds {best:.9}");
}
