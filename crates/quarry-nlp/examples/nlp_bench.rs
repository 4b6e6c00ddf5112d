//! Throughput of quarry-nlp on a file of texts (one per line), one thread:
//! `cargo run --release -p quarry-nlp --example nlp-bench -- MODEL_DIR TEXTS [REPEAT]`.
//! Prints one JSON object: texts, tokens, seconds (loading excluded),
//! tokens per second and the process's peak resident memory. Driven by
//! `scripts/nlp-bench`, which runs spaCy on the same texts.

use std::time::Instant;

fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: nlp-bench MODEL_DIR TEXTS [REPEAT]");
        std::process::exit(2);
    }
    let repeat: usize = args.get(3).and_then(|r| r.parse().ok()).unwrap_or(1);
    let load = Instant::now();
    let pipeline = match quarry_nlp::Pipeline::load(std::path::Path::new(&args[1])) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let load_s = load.elapsed().as_secs_f64();
    let text = match std::fs::read_to_string(&args[2]) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {}: {e}", args[2]);
            std::process::exit(2);
        }
    };
    let texts: Vec<&str> = text.lines().collect();
    let start = Instant::now();
    let mut tokens = 0usize;
    for _ in 0..repeat {
        for doc in pipeline.pipe(&texts).into_iter().flatten() {
            tokens += doc.len();
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{{\"texts\": {}, \"tokens\": {}, \"seconds\": {:.4}, \"words_per_s\": {:.1}, \"load_seconds\": {:.3}, \"peak_rss_kb\": {}}}",
        texts.len() * repeat,
        tokens,
        secs,
        tokens as f64 / secs.max(1e-9),
        load_s,
        peak_rss_kb()
    );
}
