//! quarry-nlp's pipeline as the generator's parser: texts of a batch are
//! parsed in parallel (rayon), each with its own result; and [`load_parser`],
//! which opens either that pipeline or stored parses.

use std::path::Path;

use quarry_nlp::Pipeline;
use rayon::prelude::*;

use super::generate::CommentParser;
use super::stored::StoredParses;

/// The parser the generator uses: spaCy's English pipeline from `model_dir`, else the
/// stored parses of `parses` (JSON Lines of docs). Errors are messages for the user.
pub fn load_parser(model_dir: Option<&Path>, parses: Option<&Path>) -> Result<Box<dyn CommentParser>, String> {
    match (model_dir, parses) {
        (Some(dir), _) => Ok(Box::new(Pipeline::load(dir).map_err(|e| format!("cannot load the English model: {e}"))?)),
        (None, Some(path)) => Ok(Box::new(StoredParses::read(path).map_err(|e| e.to_string())?)),
        (None, None) => Err("no parser: give --parser MODEL_DIR (or --parses FILE)".into()),
    }
}

impl CommentParser for Pipeline {
    fn parse_many(&mut self, texts: &[&str]) -> Vec<Result<quarry_nlp::Doc, String>> {
        let mut shared: &Pipeline = self;
        shared.parse_many(texts)
    }
}

/// A shared pipeline parses as an owned one does (for callers that hold it
/// behind an `Arc`, such as the Python API).
impl CommentParser for &Pipeline {
    fn parse_many(&mut self, texts: &[&str]) -> Vec<Result<quarry_nlp::Doc, String>> {
        let pipeline: &Pipeline = self;
        texts.par_iter().map(|t| pipeline.parse(t).map_err(|e| e.to_string())).collect()
    }
}
