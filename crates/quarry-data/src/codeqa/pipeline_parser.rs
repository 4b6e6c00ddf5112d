//! quarry-nlp's pipeline as the generator's parser: texts of a batch are
//! parsed in parallel (rayon), each with its own result.

use quarry_nlp::Pipeline;
use rayon::prelude::*;

use super::generate::CommentParser;

impl CommentParser for Pipeline {
    fn parse_many(&mut self, texts: &[&str]) -> Vec<Result<quarry_nlp::Doc, String>> {
        let pipeline: &Pipeline = self;
        texts.par_iter().map(|t| pipeline.parse(t).map_err(|e| e.to_string())).collect()
    }
}
