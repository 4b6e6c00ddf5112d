//! `quarry metrics NAME --hyp FILE --ref FILE...`: scores hypothesis lines
//! against reference lines (text, labels, line sets or span sets) with a
//! metric from `quarry-eval`.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use quarry_eval::meteor::{Meteor, MeteorParams};
use quarry_eval::sentence_bleu::{NltkBleuOptions, Smoothing};
use quarry_eval::wordnet::WordNet;
use quarry_eval::{
    bleu, classification, codeqa_answer, codeqa_bleu, codeqa_meteor, codeqa_rouge, lines, rouge, sentence_bleu, spans,
    squad, EvalError,
};
use serde_json::{json, Map, Value};

/// Metrics the subcommand computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MetricName {
    /// sacrebleu corpus BLEU (13a, exponential smoothing), 0-100.
    Bleu,
    /// nltk sentence_bleu per line (whitespace tokens) and its mean, 0-1.
    SentenceBleu,
    /// CodeQA's averaged smoothed sentence BLEU-4 (whitespace tokens), 0-1.
    CodeqaBleu,
    /// rouge-score ROUGE-L F-measure per line and its mean, 0-1.
    RougeL,
    /// CodeQA's coco-caption ROUGE-L (beta 1.2) per line and its numpy mean, 0-1.
    CodeqaRougeL,
    /// nltk meteor_score per line (whitespace tokens) and its mean, 0-1.
    Meteor,
    /// CodeQA's METEOR 1.5 (the authors' jar, needs Java; see --meteor-jar), 0-1.
    CodeqaMeteor,
    /// SQuAD v1.1 exact match, 0-100.
    Em,
    /// SQuAD v1.1 token F1, 0-100.
    F1,
    /// CodeQA's exact match (lower case, collapsed whitespace), 0-100.
    CodeqaEm,
    /// CodeQA's token F1 (lower case, collapsed whitespace), 0-100.
    CodeqaF1,
    /// Classification accuracy of predicted (hyp) against gold (ref) label lines, 0-1.
    Accuracy,
    /// Macro-F1 over all labels (scikit-learn conventions), 0-1.
    MacroF1,
    /// Line-set exact match as HotpotQA's supporting facts; lines like `3,5-7`, 0-1.
    LineEm,
    /// Line-set F1 as HotpotQA's supporting facts; lines like `3,5-7`, 0-1.
    LineF1,
    /// Span-set exact match (CodeQueries); lines like `10-14 20-31`, 0-1.
    SpanEm,
}

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Human-readable lines.
    Pretty,
    /// One JSON object.
    Json,
}

/// Arguments of `quarry metrics`.
#[derive(Args, Debug)]
pub struct MetricsArgs {
    /// The metric to compute.
    #[arg(value_enum)]
    pub name: MetricName,
    /// Hypotheses, one per line (UTF-8).
    #[arg(long, value_name = "FILE")]
    pub hyp: PathBuf,
    /// References, one per line; repeat for multiple references per line.
    #[arg(long = "ref", value_name = "FILE", required = true)]
    pub refs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "pretty")]
    pub format: Format,
    /// Also print the score of every line.
    #[arg(long)]
    pub per_line: bool,
    /// sentence-bleu: n-gram weights, comma-separated (CS1QA uses 1,0,0,0).
    #[arg(long, value_delimiter = ',', default_value = "0.25,0.25,0.25,0.25")]
    pub weights: Vec<f64>,
    /// sentence-bleu: nltk smoothing function, method0 .. method7.
    #[arg(long, default_value = "method0")]
    pub smoothing: String,
    /// sentence-bleu: nltk's auto_reweigh.
    #[arg(long)]
    pub auto_reweigh: bool,
    /// rouge-l: apply rouge-score's Porter stemmer.
    #[arg(long)]
    pub stem: bool,
    /// meteor: WordNet 3.0 dict directory [default: $QUARRY_WORDNET_DIR or /usr/share/wordnet].
    #[arg(long, value_name = "DIR")]
    pub wordnet: Option<PathBuf>,
    /// meteor: exact and stem matching only, without WordNet synonyms.
    #[arg(long)]
    pub no_wordnet: bool,
    /// codeqa-meteor: METEOR 1.5's `meteor-1.5.jar` (beside `data/paraphrase-en.gz`)
    /// [default: $QUARRY_METEOR_JAR].
    #[arg(long, value_name = "JAR")]
    pub meteor_jar: Option<PathBuf>,
}

/// A failure with its exit code.
struct Failure {
    code: i32,
    message: String,
}

fn bad_input(message: String) -> Failure {
    Failure { code: 2, message }
}

impl From<EvalError> for Failure {
    fn from(e: EvalError) -> Self {
        bad_input(e.to_string())
    }
}

/// Runs the subcommand; returns the exit code (2 for bad input).
pub fn run(args: MetricsArgs) -> i32 {
    match compute(&args) {
        Ok(output) => {
            print(&args, &output);
            0
        }
        Err(f) => {
            eprintln!("quarry: error: {}", f.message);
            f.code
        }
    }
}

/// The largest hypothesis or reference file read.
const MAX_TEXT_FILE_BYTES: u64 = 1 << 30;

/// Reads a regular file as UTF-8 lines (`\n` separated, a final newline ends
/// the last line, a trailing `\r` is dropped).
fn read_lines(path: &Path) -> Result<Vec<String>, Failure> {
    let bytes =
        quarry_syntax::read::read_regular_file(path, MAX_TEXT_FILE_BYTES).map_err(|e| bad_input(e.to_string()))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        bad_input(format!(
            "{} is not valid UTF-8 (first bad byte at offset {})",
            path.display(),
            e.utf8_error().valid_up_to()
        ))
    })?;
    if text.is_empty() {
        return Err(bad_input(format!("{} is empty", path.display())));
    }
    let body = text.strip_suffix('\n').unwrap_or(&text);
    Ok(body.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l).to_string()).collect())
}

struct Output {
    metric: &'static str,
    score: f64,
    description: String,
    extra: Map<String, Value>,
    per_line: Option<Vec<f64>>,
}

fn compute(args: &MetricsArgs) -> Result<Output, Failure> {
    let hyps_owned = read_lines(&args.hyp)?;
    let mut refs_owned = Vec::with_capacity(args.refs.len());
    for path in &args.refs {
        let lines = read_lines(path)?;
        if lines.len() != hyps_owned.len() {
            return Err(bad_input(format!(
                "{} has {} lines but {} has {}",
                args.hyp.display(),
                hyps_owned.len(),
                path.display(),
                lines.len()
            )));
        }
        refs_owned.push(lines);
    }
    let hyps: Vec<&str> = hyps_owned.iter().map(String::as_str).collect();
    let refs: Vec<Vec<&str>> = refs_owned.iter().map(|s| s.iter().map(String::as_str).collect()).collect();
    let n = hyps.len();
    let mut extra = Map::new();
    extra.insert("lines".into(), json!(n));
    extra.insert("references".into(), json!(refs.len()));
    let (metric, score, description, per_line) = match args.name {
        MetricName::Bleu => {
            let s = bleu::corpus_bleu(&hyps, &refs)?;
            extra.insert("precisions".into(), json!(s.precisions));
            extra.insert("bp".into(), json!(s.bp));
            extra.insert("sys_len".into(), json!(s.stats.sys_len));
            extra.insert("ref_len".into(), json!(s.stats.ref_len));
            extra.insert("counts".into(), json!(s.stats.correct));
            extra.insert("totals".into(), json!(s.stats.total));
            let lines = if args.per_line {
                Some(bleu::sentence_bleus(&hyps, &refs)?.iter().map(|b| b.score).collect())
            } else {
                None
            };
            let desc = format!(
                "sacrebleu corpus BLEU (13a, exp smoothing) = {:.2} {} (BP = {:.3}, hyp_len = {}, ref_len = {})",
                s.score,
                s.precisions.iter().map(|p| format!("{p:.1}")).collect::<Vec<_>>().join("/"),
                s.bp,
                s.stats.sys_len,
                s.stats.ref_len
            );
            ("bleu", s.score, desc, lines)
        }
        MetricName::SentenceBleu => {
            let opts = NltkBleuOptions {
                weights: args.weights.clone(),
                smoothing: Smoothing::parse(&args.smoothing)?,
                auto_reweigh: args.auto_reweigh,
            };
            let s = sentence_bleu::line_scores(&hyps, &refs, &opts)?;
            extra.insert("corpus_bleu".into(), json!(s.corpus));
            extra.insert("weights".into(), json!(opts.weights));
            extra.insert("smoothing".into(), json!(format!("{:?}", opts.smoothing).to_lowercase()));
            let desc = format!(
                "nltk sentence_bleu mean = {:.6} (weights {:?}, {:?}; corpus_bleu = {:.6})",
                s.mean, opts.weights, opts.smoothing, s.corpus
            );
            ("sentence-bleu", s.mean, desc, Some(s.per_line))
        }
        MetricName::CodeqaBleu => {
            let (lines, mean) = codeqa_bleu::codeqa_bleu(&hyps, &refs)?;
            let desc = format!("CodeQA smoothed BLEU-4 mean = {mean:.6} (papers report x100: {:.2})", mean * 100.0);
            ("codeqa-bleu", mean, desc, Some(lines))
        }
        MetricName::RougeL => {
            let (lines, mean) = rouge::line_scores(&hyps, &refs, args.stem)?;
            extra.insert("stemmer".into(), json!(args.stem));
            let desc = format!(
                "rouge-score ROUGE-L F-measure mean = {mean:.6} (stemmer {})",
                if args.stem { "on" } else { "off" }
            );
            ("rouge-l", mean, desc, Some(lines))
        }
        MetricName::CodeqaRougeL => {
            let (lines, mean) = codeqa_rouge::codeqa_rouge_l(&hyps, &refs)?;
            let desc =
                format!("CodeQA (coco-caption) ROUGE-L mean = {mean:.6} (papers report x100: {:.2})", mean * 100.0);
            ("codeqa-rouge-l", mean, desc, Some(lines))
        }
        MetricName::Meteor => {
            let wordnet = load_wordnet(args)?;
            let scorer = Meteor::new(MeteorParams::default(), wordnet.as_ref());
            let (lines, mean) = scorer.line_scores(&hyps, &refs)?;
            extra.insert("wordnet".into(), json!(wordnet.as_ref().map(|w| w.dir().display().to_string())));
            let desc = format!(
                "nltk METEOR mean = {mean:.6} ({})",
                if wordnet.is_some() {
                    "exact, stem and WordNet synonym matching"
                } else {
                    "exact and stem matching only"
                }
            );
            ("meteor", mean, desc, Some(lines))
        }
        MetricName::CodeqaMeteor => {
            let (score, lines) = codeqa_meteor::codeqa_meteor(&hyps, &refs, args.meteor_jar.as_deref())?;
            let desc = format!("CodeQA METEOR 1.5 = {score:.6} (papers report x100: {:.2})", score * 100.0);
            ("codeqa-meteor", score, desc, Some(lines))
        }
        MetricName::CodeqaEm | MetricName::CodeqaF1 => {
            let (lines, mean) = codeqa_answer::codeqa_answer_scores(&hyps, &refs)?;
            extra.insert("em".into(), json!(mean.em));
            extra.insert("precision".into(), json!(mean.precision));
            extra.insert("recall".into(), json!(mean.recall));
            extra.insert("f1".into(), json!(mean.f1));
            let desc = format!(
                "CodeQA EM = {:.4}, F1 = {:.4} (precision {:.4}, recall {:.4})",
                mean.em, mean.f1, mean.precision, mean.recall
            );
            if args.name == MetricName::CodeqaEm {
                ("codeqa-em", mean.em, desc, Some(lines.iter().map(|s| s.em).collect()))
            } else {
                ("codeqa-f1", mean.f1, desc, Some(lines.iter().map(|s| s.f1).collect()))
            }
        }
        MetricName::Em | MetricName::F1 => {
            let (name, f): (&'static str, fn(&str, &str) -> f64) =
                if args.name == MetricName::Em { ("em", squad::exact_match) } else { ("f1", squad::f1) };
            let (lines, score) = squad::corpus(f, &hyps, &refs)?;
            let desc = format!("SQuAD v1.1 {} = {score:.4}", if name == "em" { "exact match" } else { "F1" });
            (name, score, desc, Some(lines))
        }
        MetricName::Accuracy | MetricName::MacroF1 => {
            let gold = single_reference(args, &refs)?;
            let report = classification::classification_report(gold, &hyps)?;
            extra.insert("accuracy".into(), json!(report.accuracy));
            extra.insert("macro_f1".into(), json!(report.macro_f1));
            extra.insert("labels".into(), json!(report.labels));
            let per_class: Vec<Value> = report
                .per_class
                .iter()
                .map(|c| json!({"label": c.label, "precision": c.precision, "recall": c.recall, "f1": c.f1, "support": c.support}))
                .collect();
            extra.insert("per_class".into(), Value::Array(per_class));
            extra.insert("confusion".into(), json!(report.confusion));
            let lines: Vec<f64> = hyps.iter().zip(gold).map(|(h, g)| if h == g { 1.0 } else { 0.0 }).collect();
            let desc = format!(
                "accuracy = {:.4}, macro-F1 = {:.4} over {} labels",
                report.accuracy,
                report.macro_f1,
                report.labels.len()
            );
            if args.name == MetricName::Accuracy {
                ("accuracy", report.accuracy, desc, Some(lines))
            } else {
                ("macro-f1", report.macro_f1, desc, Some(lines))
            }
        }
        MetricName::LineEm | MetricName::LineF1 => {
            let gold = single_reference(args, &refs)?;
            let parse = |text: &str, path: &Path, i: usize| {
                lines::parse_line_set(text).map_err(|e| bad_input(format!("{} line {}: {e}", path.display(), i + 1)))
            };
            let mut preds = Vec::with_capacity(n);
            let mut golds = Vec::with_capacity(n);
            let mut per_line = Vec::with_capacity(n);
            for i in 0..n {
                let p = parse(hyps[i], &args.hyp, i)?;
                let g = parse(gold[i], &args.refs[0], i)?;
                let s = lines::set_score(&p, &g);
                per_line.push(if args.name == MetricName::LineEm { s.em } else { s.f1 });
                preds.push(p);
                golds.push(g);
            }
            let mean = lines::mean_set_scores(&preds, &golds)?;
            extra.insert("em".into(), json!(mean.em));
            extra.insert("f1".into(), json!(mean.f1));
            extra.insert("precision".into(), json!(mean.precision));
            extra.insert("recall".into(), json!(mean.recall));
            let desc = format!(
                "line sets (HotpotQA supporting facts): EM = {:.4}, F1 = {:.4}, P = {:.4}, R = {:.4}",
                mean.em, mean.f1, mean.precision, mean.recall
            );
            if args.name == MetricName::LineEm {
                ("line-em", mean.em, desc, Some(per_line))
            } else {
                ("line-f1", mean.f1, desc, Some(per_line))
            }
        }
        MetricName::SpanEm => {
            let gold = single_reference(args, &refs)?;
            let parse = |text: &str, path: &Path, i: usize| {
                spans::parse_span_set(text).map_err(|e| bad_input(format!("{} line {}: {e}", path.display(), i + 1)))
            };
            let mut preds = Vec::with_capacity(n);
            let mut golds = Vec::with_capacity(n);
            for i in 0..n {
                preds.push(parse(hyps[i], &args.hyp, i)?);
                golds.push(parse(gold[i], &args.refs[0], i)?);
            }
            let per_line: Vec<f64> = preds
                .iter()
                .zip(&golds)
                .map(|(p, g)| if spans::span_set_exact_match(p, g) { 1.0 } else { 0.0 })
                .collect();
            let score = spans::span_set_accuracy(&preds, &golds)?;
            let desc = format!("span-set exact match = {score:.4}");
            ("span-em", score, desc, Some(per_line))
        }
    };
    Ok(Output { metric, score, description, extra, per_line: if args.per_line { per_line } else { None } })
}

/// The one reference stream of metrics that compare against a single gold file.
fn single_reference<'a>(args: &MetricsArgs, refs: &'a [Vec<&'a str>]) -> Result<&'a [&'a str], Failure> {
    match refs {
        [one] => Ok(one),
        _ => Err(bad_input(format!(
            "{} takes exactly one --ref file, got {}",
            args.name.to_possible_value().map_or_else(String::new, |v| v.get_name().to_string()),
            refs.len()
        ))),
    }
}

fn load_wordnet(args: &MetricsArgs) -> Result<Option<WordNet>, Failure> {
    if args.no_wordnet {
        return Ok(None);
    }
    let dir = WordNet::resolve_dir(args.wordnet.as_deref());
    if !WordNet::is_present(&dir) {
        if args.wordnet.is_some() {
            return Err(bad_input(format!("no WordNet 3.0 dict files in {}", dir.display())));
        }
        eprintln!(
            "quarry metrics: note: no WordNet in {} (install the Debian package wordnet-base, or pass --wordnet DIR or set {}); \
             METEOR uses exact and stem matching only",
            dir.display(),
            quarry_eval::wordnet::ENV_VAR
        );
        return Ok(None);
    }
    WordNet::open(&dir).map(Some).map_err(Failure::from)
}

/// The JSON output: `metric` and `score` first, details, then `per_line`.
#[derive(serde::Serialize)]
struct JsonRecord<'a> {
    metric: &'a str,
    score: f64,
    #[serde(flatten)]
    extra: &'a Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    per_line: Option<&'a [f64]>,
}

fn print(args: &MetricsArgs, out: &Output) {
    match args.format {
        Format::Json => {
            let record = JsonRecord {
                metric: out.metric,
                score: out.score,
                extra: &out.extra,
                per_line: out.per_line.as_deref(),
            };
            match serde_json::to_string(&record) {
                Ok(text) => println!("{text}"),
                Err(e) => eprintln!("quarry: error: cannot serialize the result: {e}"),
            }
        }
        Format::Pretty => {
            println!("{}: {}", out.metric, out.description);
            if let Some(lines) = &out.per_line {
                for (i, s) in lines.iter().enumerate() {
                    println!("{}\t{s}", i + 1);
                }
            }
        }
    }
}
