//! All of CodeQA's answer scores at once, as `eval_accuracies` in the authors' `run.py`
//! reports them (0–100): BLEU ([`crate::codeqa_bleu`]), ROUGE-L ([`crate::codeqa_rouge`]),
//! METEOR ([`crate::codeqa_meteor`], when its jar is available), EM, precision, recall and
//! F1 ([`crate::codeqa_answer`]).

use std::path::Path;

use crate::{codeqa_answer, codeqa_bleu, codeqa_meteor, codeqa_rouge, EvalError};

/// CodeQA's scores of a set of answers, 0–100.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeQaScores {
    /// Averaged smoothed sentence BLEU-4.
    pub bleu: f64,
    /// coco-caption ROUGE-L.
    pub rouge_l: f64,
    /// METEOR 1.5, or why it could not be computed.
    pub meteor: Result<f64, String>,
    /// Exact match.
    pub em: f64,
    /// Token precision.
    pub precision: f64,
    /// Token recall.
    pub recall: f64,
    /// Token F1.
    pub f1: f64,
}

/// Scores `hyps` against `refs` (`refs[k][i]`: k-th reference of line `i`). METEOR runs the
/// jar at `meteor_jar` (or `$QUARRY_METEOR_JAR`); when there is none, or it fails, the other
/// scores are still returned and `meteor` holds the reason. A cancel
/// ([`crate::cancel::within`]) stops it all with [`EvalError::Cancelled`], METEOR included.
pub fn codeqa_scores(hyps: &[&str], refs: &[Vec<&str>], meteor_jar: Option<&Path>) -> Result<CodeQaScores, EvalError> {
    let (_, bleu) = codeqa_bleu::codeqa_bleu(hyps, refs)?;
    let (_, rouge_l) = codeqa_rouge::codeqa_rouge_l(hyps, refs)?;
    let (_, qa) = codeqa_answer::codeqa_answer_scores(hyps, refs)?;
    let meteor = match codeqa_meteor::codeqa_meteor(hyps, refs, meteor_jar) {
        Err(EvalError::Cancelled) => return Err(EvalError::Cancelled),
        scored => scored.map(|(s, _)| s * 100.0).map_err(|e| e.to_string()),
    };
    Ok(CodeQaScores {
        bleu: bleu * 100.0,
        rouge_l: rouge_l * 100.0,
        meteor,
        em: qa.em,
        precision: qa.precision,
        recall: qa.recall,
        f1: qa.f1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_without_meteor_jar_still_give_the_rest() {
        let s = codeqa_scores(&["a string", "yes"], &[vec!["a string", "No"]], Some(Path::new("/nonexistent.jar")))
            .unwrap();
        assert!(s.meteor.is_err());
        assert_eq!(s.em, 50.0);
        assert_eq!(s.f1, 50.0);
        assert!(s.bleu > 0.0 && s.rouge_l == 50.0);
    }
}
