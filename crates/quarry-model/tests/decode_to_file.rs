//! Gold labels decoded the way model predictions are (through token origins, block line runs
//! and the file's line index) give back exactly the gold answer and fact spans of every
//! file-level example built from a real corpus: the path `quarry predict` takes is exact.

use std::collections::BTreeSet;
use std::path::PathBuf;

use quarry_data::codequeries::examples::file_examples;
use quarry_data::codequeries::labels::{decode_spans, Subtokenizer, TokenCache};
use quarry_model::evaluation::predict::file_span;
use quarry_model::Tokenizer;
use quarry_query::report::analyze_parsed;
use quarry_query::{all_queries, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{code_blocks, Language, LoadOptions, ParsedFile, SpanRecord};

/// A character-level WordPiece tokenizer saved as tokenizer.json, so no model is needed.
fn char_tokenizer() -> Subtokenizer {
    let dir = std::env::temp_dir().join(format!("quarry-model-decode-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut vocab = vec!["[PAD]".to_string(), "[UNK]".into(), "[CLS]".into(), "[SEP]".into()];
    for c in (33u8..127).map(char::from).filter(|c| !c.is_ascii_uppercase()) {
        vocab.push(c.to_string());
        vocab.push(format!("##{c}"));
    }
    std::fs::write(dir.join("vocab.txt"), vocab.join("\n") + "\n").unwrap();
    Tokenizer::from_wordpiece_vocab(&dir.join("vocab.txt"), true).unwrap().save(&dir.join("tokenizer.json")).unwrap();
    Subtokenizer::load(&dir).unwrap()
}

fn key(s: &SpanRecord) -> (usize, usize, usize, usize, String) {
    (s.start_line, s.start_column, s.end_line, s.end_column, s.span.clone())
}

#[test]
fn decoded_gold_labels_are_the_gold_file_spans() {
    let tokenizer = char_tokenizer();
    let corpus = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/corpus");
    let (files, errors) = source_files(&[corpus], Language::Python);
    assert!(errors.is_empty() && !files.is_empty());
    let mut checked = 0;
    for path in files {
        let file = ParsedFile::load(&path, Some(Language::Python), &LoadOptions::default()).unwrap();
        let blocks = code_blocks(&file);
        let report = analyze_parsed(&file, &all_queries(), &[Polarity::Positive, Polarity::Negative]);
        let examples = file_examples(&file, &blocks, &path.display().to_string(), &report.findings);
        for example in examples.file_level.iter().filter(|e| e.example_type == 1) {
            let input = tokenizer.labeled_input(example, &mut TokenCache::default()).unwrap();
            let (mut answers, mut facts) = (BTreeSet::new(), BTreeSet::new());
            for span in decode_spans(&input.labels, &input.origins) {
                let record = file_span(&file, example, &span).expect("a decoded span lies in the file");
                if span.fact { &mut facts } else { &mut answers }.insert(key(&record));
            }
            let gold_answers: BTreeSet<_> = example.answer_spans.iter().map(key).collect();
            let gold_facts: BTreeSet<_> = example.supporting_fact_spans.iter().map(key).collect();
            assert_eq!(answers, gold_answers, "{} in {}", example.query_name, path.display());
            assert_eq!(facts, gold_facts, "{} in {}", example.query_name, path.display());
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} positive file-level examples");
}
