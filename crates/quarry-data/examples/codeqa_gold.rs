//! Develops the CodeQA generator against the authors' output with stored
//! parses, showing what it misses.
//!
//! ```sh
//! cargo run -p quarry-data --example codeqa_gold -- texts GOLD.jsonl TEXTS.jsonl
//! scripts/codeqa/spacy_docs.py TEXTS.jsonl DOCS.jsonl
//! cargo run -p quarry-data --example codeqa_gold -- score GOLD.jsonl DOCS.jsonl [MAX] [--show]
//! ```

use std::io::Write;
use std::path::Path;

use quarry_data::codeqa::score::{normalise, read_gold, score};
use quarry_data::codeqa::{generate, texts_to_parse, Outcome, StoredParses};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let gold = read_gold(Path::new(&args[1]))?;
    if args[0] == "texts" {
        let mut out = std::io::BufWriter::new(std::fs::File::create(&args[2])?);
        for e in &gold {
            for t in texts_to_parse(&e.docstring) {
                writeln!(out, "{}", serde_json::json!({ "text": t }))?;
            }
        }
        return Ok(());
    }
    let mut parser = StoredParses::read(Path::new(&args[2]))?;
    let max = args.get(3).and_then(|m| m.parse().ok()).unwrap_or(6);
    let show = args.iter().any(|a| a == "--show");
    let comments: Vec<&str> = gold.iter().map(|e| e.docstring.as_str()).collect();
    let start = std::time::Instant::now();
    let outcomes = generate(&comments, &mut parser, max);
    let secs = start.elapsed().as_secs_f64();
    let mut generated = Vec::new();
    for (e, o) in gold.iter().zip(outcomes) {
        let pairs = match o {
            Outcome::Pairs(p) => p,
            Outcome::ParseError(err) => {
                eprintln!("parse error: {err}");
                Vec::new()
            }
        };
        if show {
            let got: Vec<(String, String)> =
                pairs.iter().map(|p| (normalise(&p.question), normalise(&p.answer))).collect();
            let missed: Vec<_> =
                e.pairs.iter().filter(|g| !got.contains(&(normalise(&g.question), normalise(&g.answer)))).collect();
            if !missed.is_empty() || e.pairs.is_empty() {
                println!("## {}", e.docstring.replace('\n', " | ").chars().take(200).collect::<String>());
                for g in &missed {
                    println!("   GOLD {} => {}", g.question, g.answer);
                }
                for p in &pairs {
                    println!("   GOT  {} => {}   [{}]", p.question, p.answer, p.rule);
                }
            }
        }
        generated.push(pairs);
    }
    let r = score(&gold, &generated);
    println!(
        "pairs {}/{} = {:.1}%  questions {:.1}%  answers {:.1}%  yes/no {}/{}  pairs/docstring {:.2}  ({} pairs in {:.3}s)",
        r.pair_hits,
        r.gold_pairs,
        100.0 * r.pair_recall(),
        100.0 * r.question_recall(),
        100.0 * r.answer_recall(),
        r.yes_no_hits,
        r.yes_no_gold,
        r.pairs_per_docstring(),
        r.generated_pairs,
        secs
    );
    Ok(())
}
