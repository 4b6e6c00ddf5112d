//! `quarry metrics NAME --hyp FILE --ref FILE...`: scores hypothesis lines against
//! reference lines with [`quarry_eval::metric::score`]; this file reads the files and prints.

use std::path::{Path, PathBuf};

use clap::builder::PossibleValue;
use clap::{Args, ValueEnum};
use quarry_eval::metric::{score, Input, Metric, Options, Score};
use quarry_eval::sentence_bleu::Smoothing;
use quarry_eval::wordnet::WordNet;
use quarry_eval::EvalError;
use serde_json::{Map, Value};

/// A metric name on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MetricName(pub Metric);

impl ValueEnum for MetricName {
    fn value_variants<'a>() -> &'a [Self] {
        static ALL: std::sync::OnceLock<Vec<MetricName>> = std::sync::OnceLock::new();
        ALL.get_or_init(|| Metric::all().map(MetricName).collect())
    }

    fn to_possible_value(&self) -> Option<PossibleValue> {
        Some(PossibleValue::new(self.0.name()).help(self.0.help().trim_end_matches('.')))
    }
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
    #[arg(long, value_delimiter = ',', default_value = "0.25,0.25,0.25,0.25", value_parser = crate::commands::numbers::non_negative)]
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
            crate::commands::output::error(&f.message);
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

fn compute(args: &MetricsArgs) -> Result<Score, Failure> {
    crate::commands::numbers::ngram_weights(&args.weights).map_err(bad_input)?;
    let hyps_owned = read_lines(&args.hyp)?;
    let mut refs_owned = Vec::with_capacity(args.refs.len());
    for path in &args.refs {
        let lines = read_lines(path)?;
        if lines.len() != hyps_owned.len() {
            let lone_cr = [(&args.hyp, &hyps_owned), (path, &lines)]
                .into_iter()
                .find(|(_, lines)| lines.iter().any(|l| l.contains('\r')))
                .map(|(file, _)| {
                    format!(
                        "; {} has carriage returns without a line feed, which do not end a line here (nor in \
                         sacrebleu): convert them with `tr '\\r' '\\n'`",
                        file.display()
                    )
                })
                .unwrap_or_default();
            return Err(bad_input(format!(
                "{} has {} lines but {} has {}{lone_cr}",
                args.hyp.display(),
                hyps_owned.len(),
                path.display(),
                lines.len()
            )));
        }
        refs_owned.push(lines);
    }
    let metric = args.name.0;
    if metric.single_reference() && args.refs.len() != 1 {
        return Err(bad_input(format!("{} takes exactly one --ref file, got {}", metric.name(), args.refs.len())));
    }
    let names: Vec<String> = std::iter::once(&args.hyp).chain(&args.refs).map(|p| p.display().to_string()).collect();
    let hyps = input(&names[0], &hyps_owned);
    let refs: Vec<Input> = refs_owned.iter().zip(&names[1..]).map(|(lines, name)| input(name, lines)).collect();
    let wordnet = if metric == Metric::Meteor { load_wordnet(args)? } else { None };
    let options = Options {
        weights: args.weights.clone(),
        smoothing: if metric == Metric::SentenceBleu { Smoothing::parse(&args.smoothing)? } else { Smoothing::Method0 },
        auto_reweigh: args.auto_reweigh,
        stem: args.stem,
        wordnet: wordnet.as_ref(),
        meteor_jar: args.meteor_jar.as_deref(),
    };
    Ok(score(metric, &hyps, &refs, &options)?)
}

/// Lines as a metric input named `name`.
fn input<'a>(name: &'a str, lines: &'a [String]) -> Input<'a> {
    Input { name, lines: lines.iter().map(String::as_str).collect() }
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

fn print(args: &MetricsArgs, out: &Score) {
    let per_line = args.per_line.then_some(&out.per_line[..]);
    match args.format {
        Format::Json => {
            let record = JsonRecord { metric: out.metric, score: out.score, extra: &out.details, per_line };
            match serde_json::to_string(&record) {
                Ok(text) => println!("{text}"),
                Err(e) => crate::commands::output::error(&format!("cannot serialize the result: {e}")),
            }
        }
        Format::Pretty => {
            println!("{}: {}", out.metric, out.description);
            for (i, s) in per_line.unwrap_or_default().iter().enumerate() {
                println!("{}\t{s}", i + 1);
            }
        }
    }
}
