//! `quarry evaluate answer --hyp FILE --ref FILE`: CodeQA's five answer scores (BLEU,
//! ROUGE-L, METEOR, EM, F1; precision and recall too) as the authors' `run.py` reports them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use clap::Args;
use quarry_eval::codeqa_scores::codeqa_scores;
use serde_json::json;

use super::input::Format;

/// Arguments of `quarry evaluate answer`.
#[derive(Args)]
pub struct AnswerEvalArgs {
    /// Generated answers, one per line (`quarry generate answer --out`).
    #[arg(long)]
    pub hyp: PathBuf,
    /// Gold answers, one per line (e.g. `data/codeqa/python/test.answer`); lines are
    /// stripped as `run.py` strips them.
    #[arg(long = "ref")]
    pub reference: PathBuf,
    /// METEOR 1.5's `meteor-1.5.jar` [default: $QUARRY_METEOR_JAR]; without it METEOR is
    /// reported as unavailable.
    #[arg(long, value_name = "JAR")]
    pub meteor_jar: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Pretty)]
    pub format: Format,
}

/// Hypothesis lines as written (a final newline ends the last line; empty lines are
/// empty answers).
fn read_hypotheses(path: &Path) -> Result<Vec<String>> {
    let text = quarry_stdx::read::read_text(path, quarry_stdx::read::MAX_TEXT_FILE_BYTES)?;
    let body = text.strip_suffix('\n').unwrap_or(&text);
    Ok(body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).to_string()).collect())
}

/// Scores the answers and prints them; the exit code is 0, or 2 for unusable input.
pub fn evaluate_answers(args: AnswerEvalArgs) -> Result<i32> {
    let hyps = read_hypotheses(&args.hyp)?;
    let refs = quarry_data::codeqa::read_lines(&args.reference)?;
    if hyps.len() != refs.len() {
        bail!("{} has {} lines but {} has {}", args.hyp.display(), hyps.len(), args.reference.display(), refs.len());
    }
    let hyps: Vec<&str> = hyps.iter().map(String::as_str).collect();
    let refs: Vec<Vec<&str>> = vec![refs.iter().map(String::as_str).collect()];
    let s = codeqa_scores(&hyps, &refs, args.meteor_jar.as_deref())?;
    match args.format {
        Format::Json => {
            let meteor = s.meteor.as_ref().ok();
            println!(
                "{}",
                json!({"lines": hyps.len(), "bleu": s.bleu, "rouge_l": s.rouge_l, "meteor": meteor,
                       "em": s.em, "precision": s.precision, "recall": s.recall, "f1": s.f1})
            );
        }
        Format::Pretty => {
            let meteor = match &s.meteor {
                Ok(m) => format!("{m:.2}"),
                Err(_) => "n/a".into(),
            };
            println!(
                "lines {} | BLEU {:.2} | ROUGE-L {:.2} | METEOR {meteor} | EM {:.2} | F1 {:.2} | precision {:.2} | recall {:.2}",
                hyps.len(),
                s.bleu,
                s.rouge_l,
                s.em,
                s.f1,
                s.precision,
                s.recall
            );
        }
    }
    if let Err(why) = &s.meteor {
        crate::commands::output::warning(&format!("METEOR not computed: {why}"));
    }
    Ok(0)
}
