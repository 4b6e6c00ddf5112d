//! Develops and measures the CodeQA generator: scores it against the
//! authors' output showing what it misses, and times dataset builds, with
//! quarry-nlp's pipeline or stored parses (e.g. spaCy's).
//!
//! ```sh
//! cargo run -p quarry-data --example codeqa_gold -- texts GOLD.jsonl TEXTS.jsonl
//! scripts/codeqa/spacy_docs.py TEXTS.jsonl DOCS.jsonl
//! cargo run -p quarry-data --example codeqa_gold -- score GOLD.jsonl (--parses DOCS.jsonl | --parser MODEL_DIR) [--max 6] [--show]
//! cargo run --release -p quarry-data --example codeqa_gold -- dataset CORPUS_DIR OUT_DIR --parser MODEL_DIR
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};

use quarry_data::codeqa::dataset::BuildOptions;
use quarry_data::codeqa::score::{normalise, read_gold, score};
use quarry_data::codeqa::shards::build;
use quarry_data::codeqa::{generate, texts_to_parse, CommentParser, Outcome, StoredParses};

fn option(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn parser(args: &[String]) -> Result<Box<dyn CommentParser>, Box<dyn std::error::Error>> {
    if let Some(dir) = option(args, "--parser") {
        let start = std::time::Instant::now();
        let p = quarry_nlp::Pipeline::load(Path::new(&dir))?;
        eprintln!("model loaded in {:.2}s", start.elapsed().as_secs_f64());
        return Ok(Box::new(p));
    }
    let path = option(args, "--parses").ok_or("give --parser MODEL_DIR or --parses DOCS.jsonl")?;
    Ok(Box::new(StoredParses::read(Path::new(&path))?))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        Some("texts") => texts(&args),
        Some("score") => score_gold(&args),
        Some("dataset") => dataset(&args),
        _ => Err("usage: codeqa_gold texts|score|dataset ...".into()),
    }
}

fn texts(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let gold = read_gold(Path::new(&args[1]))?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(&args[2])?);
    for e in &gold {
        for t in texts_to_parse(&e.docstring) {
            writeln!(out, "{}", serde_json::json!({ "text": t }))?;
        }
    }
    Ok(())
}

fn score_gold(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let gold = read_gold(Path::new(&args[1]))?;
    let mut parser = parser(args)?;
    let max = option(args, "--max").and_then(|m| m.parse().ok()).unwrap_or(6);
    let show = args.iter().any(|a| a == "--show");
    let comments: Vec<&str> = gold.iter().map(|e| e.docstring.as_str()).collect();
    let start = std::time::Instant::now();
    let outcomes = generate(&comments, parser.as_mut(), max);
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
        "pairs {}/{} = {:.1}%  questions {:.1}%  answers {:.1}%  yes/no {}/{}  pairs/docstring {:.2}  ({} pairs in {:.3}s = {:.0} pairs/s)",
        r.pair_hits,
        r.gold_pairs,
        100.0 * r.pair_recall(),
        100.0 * r.question_recall(),
        100.0 * r.answer_recall(),
        r.yes_no_hits,
        r.yes_no_gold,
        r.pairs_per_docstring(),
        r.generated_pairs,
        secs,
        r.generated_pairs as f64 / secs.max(1e-9)
    );
    Ok(())
}

fn dataset(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let mut parser = parser(args)?;
    let options = BuildOptions {
        corpus: vec![PathBuf::from(&args[1])],
        language: quarry_syntax::Language::Python,
        out: PathBuf::from(&args[2]),
        seed: 0,
        max_pairs: 6,
        batch: 256,
        format: quarry_data::hub::Format::Jsonl,
        files_from: None,
        parser: String::from("model"),
        time_budget: Some(quarry_syntax::DEFAULT_TIME_BUDGET),
    };
    let start = std::time::Instant::now();
    let s = build(&options, parser.as_mut(), &|_, _| {})?;
    println!(
        "{} files ({} skipped), {} documented functions, {} pairs generated ({} Yes, {} No), written {:?} in {:.1}s",
        s.files,
        s.bad_files.len(),
        s.functions,
        s.pairs_generated,
        s.yes,
        s.no,
        s.split_sizes,
        start.elapsed().as_secs_f64()
    );
    Ok(())
}
