//! `quarry nlp parse --format json` without the rest of the binary: one
//! JSON `Doc` per input line (`null` for a line that fails), for the
//! parity script when only this crate is built:
//! `cargo run --release -p quarry-nlp --example nlp-parse -- MODEL_DIR FILE`.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: nlp-parse MODEL_DIR FILE");
        std::process::exit(2);
    }
    let pipeline = match quarry_nlp::Pipeline::load(std::path::Path::new(&args[1])) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let bytes = match std::fs::read(&args[2]) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {}: {e}", args[2]);
            std::process::exit(2);
        }
    };
    let text = String::from_utf8_lossy(&bytes);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for line in text.lines() {
        let json = match pipeline.parse(line) {
            Ok(doc) => serde_json::to_string(&doc).unwrap_or_else(|_| "null".into()),
            Err(e) => {
                eprintln!("error: {e}");
                "null".into()
            }
        };
        if writeln!(out, "{json}").is_err() {
            std::process::exit(2);
        }
    }
}
