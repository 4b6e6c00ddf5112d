//! The English pipeline's model loader on corrupted and truncated model files. Input: one byte
//! choosing a file of the model, then that file's new contents. The component reading the
//! file loads it or returns an error; when it loads, the whole pipeline is loaded from the
//! real model (`QUARRY_SPACY_MODEL_DIR`) with that one file replaced, and, when that loads
//! too, analyses a sentence.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use quarry_nlp::attribute_ruler::AttributeRuler;
use quarry_nlp::config::Config;
use quarry_nlp::lemmatizer::{read_lookups, Lemmatizer};
use quarry_nlp::msgpack::ThincModel;
use quarry_nlp::parser::Parser;
use quarry_nlp::tagger::Tagger;
use quarry_nlp::tok2vec::Tok2Vec;
use quarry_nlp::tokenizer::Tokenizer;
use quarry_nlp::Pipeline;

/// The files a corrupted input may replace, relative to the model directory (the seed
/// corpus names its files by the same index).
const FILES: [&str; 11] = [
    "config.cfg",
    "tokenizer",
    "tagger/model",
    "tagger/cfg",
    "parser/model",
    "parser/moves",
    "parser/cfg",
    "attribute_ruler/patterns",
    "lemmatizer/lookups/lookups.bin",
    "vocab/lookups.bin",
    "tok2vec/model",
];

fn model_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::var_os("QUARRY_SPACY_MODEL_DIR")
            .expect("set QUARRY_SPACY_MODEL_DIR to the spaCy model directory (scripts/fuzz does)");
        quarry_nlp::pipeline::find_model_dir(Path::new(&dir)).expect("the seed model directory")
    })
}

/// A copy of the model made of links to the real files, except `replaced`.
fn model_with(real: &Path, work: &Path, replaced: &str, bytes: &[u8]) {
    let _ = std::fs::remove_dir_all(work);
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        std::fs::create_dir_all(work.join(&rel)).unwrap();
        for entry in std::fs::read_dir(real.join(&rel)).unwrap() {
            let entry = entry.unwrap();
            let rel = rel.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push(rel);
            } else if rel != Path::new(replaced) {
                std::os::unix::fs::symlink(real.join(&rel), work.join(&rel)).unwrap();
            }
        }
    }
    std::fs::write(work.join(replaced), bytes).unwrap();
}

fuzz_target!(|data: &[u8]| {
    let Some((&which, bytes)) = data.split_first() else { return };
    let name = FILES[usize::from(which) % FILES.len()];
    let scratch = std::env::temp_dir().join(format!("quarry-fuzz-nlp-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let file = scratch.join("file");
    std::fs::write(&file, bytes).unwrap();
    // The loader of the component that reads the file, alone.
    let loads = match name {
        "config.cfg" => std::str::from_utf8(bytes).is_ok_and(|t| Config::parse(t, &file).is_ok()),
        "tokenizer" => Tokenizer::load(&file).map(|t| t.tokenize("Don't split U.S.A. (e.g. this)!")).is_ok(),
        "tagger/model" | "tagger/cfg" | "parser/model" | "parser/moves" | "parser/cfg" => {
            let (dir, leaf) = name.split_once('/').unwrap();
            let component = scratch.join(dir);
            let _ = std::fs::remove_dir_all(&component);
            std::fs::create_dir_all(&component).unwrap();
            let real = model_dir().join(dir);
            for entry in std::fs::read_dir(&real).unwrap() {
                let entry = entry.unwrap();
                std::fs::copy(entry.path(), component.join(entry.file_name())).unwrap();
            }
            std::fs::write(component.join(leaf), bytes).unwrap();
            if dir == "tagger" {
                Tagger::load(&component).is_ok()
            } else {
                Parser::load(&component).is_ok()
            }
        }
        "attribute_ruler/patterns" => AttributeRuler::load(&file).is_ok(),
        "lemmatizer/lookups/lookups.bin" => Lemmatizer::load(&file).is_ok(),
        "vocab/lookups.bin" => read_lookups(&file).is_ok(),
        _ => ThincModel::read(&file).and_then(|m| Tok2Vec::from_model(&m)).is_ok(),
    };
    if !loads {
        return;
    }
    let work = scratch.join("model");
    model_with(model_dir(), &work, name, bytes);
    if let Ok(nlp) = Pipeline::load(&work) {
        let _ = nlp.parse("The parser reads the file it was given, and answers.");
    }
});
