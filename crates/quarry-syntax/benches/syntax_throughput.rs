//! Throughput of the syntax layer on real corpora: parse only, parse plus
//! code blocks, and tokenization, over the CPython standard library (and the
//! JDK sources for Java). Files are read into memory first, so only the work
//! itself is timed. Run: `cargo bench -p quarry-syntax --bench syntax_throughput [-- DIR_OR_ZIP...]`.

use std::path::PathBuf;
use std::time::Instant;

use quarry_syntax::corpus::{for_each_zip_member, source_files};
use quarry_syntax::{code_blocks, tokenize, Language, ParsedFile, SourceFile};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    let inputs: Vec<PathBuf> =
        if args.is_empty() { default_inputs() } else { args.iter().map(PathBuf::from).collect() };
    for input in inputs {
        let (language, sources) = load(&input);
        if sources.is_empty() {
            eprintln!("{}: no sources found, skipped", input.display());
            continue;
        }
        let bytes: usize = sources.iter().map(|s| s.text().len()).sum();
        println!("{} ({} {} files, {:.1} MB)", input.display(), sources.len(), language.name(), bytes as f64 / 1e6);
        measure("parse", &sources, bytes, |s| {
            let file = ParsedFile::parse(s.clone(), language).unwrap();
            usize::from(file.has_errors())
        });
        if language == Language::Python {
            measure("parse + blocks", &sources, bytes, |s| {
                let file = ParsedFile::parse(s.clone(), language).unwrap();
                code_blocks(&file).all().len()
            });
            let parsed: Vec<ParsedFile> =
                sources.iter().map(|s| ParsedFile::parse(s.clone(), language).unwrap()).collect();
            let start = Instant::now();
            let count: usize = parsed.iter().map(|f| code_blocks(f).all().len()).sum();
            let seconds = start.elapsed().as_secs_f64();
            println!(
                "  {:<16} {seconds:>7.2} s  {:>8.0} files/s  {:>6.1} MB/s  (checksum {count})",
                "blocks alone",
                parsed.len() as f64 / seconds,
                bytes as f64 / 1e6 / seconds
            );
        }
        measure("tokens", &sources, bytes, |s| tokenize(s.text(), language).len());
    }
}

fn measure(label: &str, sources: &[SourceFile], bytes: usize, work: impl Fn(&SourceFile) -> usize) {
    let start = Instant::now();
    let checksum: usize = sources.iter().map(&work).sum();
    let seconds = start.elapsed().as_secs_f64();
    println!(
        "  {label:<16} {seconds:>7.2} s  {:>8.0} files/s  {:>6.1} MB/s  (checksum {checksum})",
        sources.len() as f64 / seconds,
        bytes as f64 / 1e6 / seconds
    );
}

fn load(input: &std::path::Path) -> (Language, Vec<SourceFile>) {
    if input.extension().is_some_and(|e| e == "zip") {
        let mut sources = Vec::new();
        let _ = for_each_zip_member(input, "java", 64 << 20, |m| {
            if let Ok(source) =
                m.contents.map_err(|_| ()).and_then(|b| SourceFile::from_bytes(m.name, b).map_err(|_| ()))
            {
                sources.push(source);
            }
        });
        return (Language::Java, sources);
    }
    let (files, _) = source_files(&[input.to_path_buf()], Language::Python);
    let sources = files
        .iter()
        .filter(|p| !p.to_string_lossy().contains("-packages"))
        .filter_map(|p| SourceFile::load(p, &Default::default()).ok())
        .collect();
    (Language::Python, sources)
}

fn default_inputs() -> Vec<PathBuf> {
    let mut inputs = Vec::new();
    if let Some(python) = quarry_syntax::corpus::default_stdlib() {
        inputs.push(python);
    }
    if let Some(zip) = std::fs::read_dir("/usr/lib/jvm")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("lib/src.zip"))
        .find(|p| p.is_file())
    {
        inputs.push(zip);
    }
    inputs
}
