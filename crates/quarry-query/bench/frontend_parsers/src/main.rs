//! Parses every `.py` file of a directory (installed packages left out) with
//! ruff's parser and with tree-sitter-python, one thread, three rounds, and
//! prints the time and the number of files with syntax errors for each.

use std::time::Instant;

fn main() {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: frontend-parsers DIR");
        std::process::exit(2);
    };
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(&dir).sort_by_file_name().into_iter().flatten() {
        let path = entry.path();
        let is_source = path.extension().is_some_and(|x| x == "py") && entry.file_type().is_file();
        if is_source && !path.to_string_lossy().contains("-packages") {
            if let Ok(text) = std::fs::read_to_string(path) {
                files.push(text);
            }
        }
    }
    let bytes: usize = files.iter().map(|f| f.len()).sum();
    println!("{dir}: {} files, {:.1} MB", files.len(), bytes as f64 / 1e6);
    let mut parser = tree_sitter::Parser::new();
    parser.set_language(&tree_sitter_python::LANGUAGE.into()).expect("grammar loads");
    for round in 0..3 {
        let start = Instant::now();
        let errors = files
            .iter()
            .filter(|f| match ruff_python_parser::parse_module(f) {
                Ok(parsed) => !parsed.errors().is_empty(),
                Err(_) => true,
            })
            .count();
        println!("round {round} ruff_python_parser 0.0.10: {:.2} s, files with errors {errors}", start.elapsed().as_secs_f64());
        let start = Instant::now();
        let errors = files
            .iter()
            .filter(|f| parser.parse(f, None).is_none_or(|tree| tree.root_node().has_error()))
            .count();
        println!("round {round} tree-sitter-python 0.25: {:.2} s, files with errors {errors}", start.elapsed().as_secs_f64());
    }
}
