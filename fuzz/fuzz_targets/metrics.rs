//! Every text metric on arbitrary hypothesis/reference pairs: scores are
//! finite and in range, never a panic. Input: hypothesis, `\0`, references
//! separated by `\x01`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_eval::meteor::{Meteor, MeteorParams};
use quarry_eval::rouge::RougeL;
use quarry_eval::{bleu, codeqa_bleu, codeqa_rouge, lines, squad};

fuzz_target!(|text: &str| {
    let (hyp, refs) = text.split_once('\0').unwrap_or((text, text));
    let refs: Vec<&str> = refs.split('\x01').collect();
    let hyps = [hyp];
    let ref_sets = [refs.clone()];
    if let Ok(score) = bleu::corpus_bleu(&hyps, &ref_sets) {
        assert!(score.score.is_finite());
    }
    let _ = bleu::sentence_bleus(&hyps, &ref_sets);
    if let Ok((_, mean)) = codeqa_bleu::codeqa_bleu(&hyps, &ref_sets) {
        assert!((0.0..=1.0 + 1e-9).contains(&mean), "{mean}");
    }
    let _ = codeqa_rouge::codeqa_rouge_l(&hyps, &ref_sets);
    for stem in [false, true] {
        let score = RougeL::new(stem).score_multi(&refs, hyp);
        assert!(score.fmeasure.is_finite());
    }
    let meteor = Meteor::new(MeteorParams::default(), None);
    let _ = meteor.line_scores(&hyps, &ref_sets);
    let _ = squad::corpus(squad::exact_match, &hyps, &ref_sets);
    let _ = squad::corpus(squad::f1, &hyps, &ref_sets);
    let _ = lines::parse_line_set(hyp);
});
