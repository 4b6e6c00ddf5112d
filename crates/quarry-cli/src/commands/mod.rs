//! One module per subcommand; `run` dispatches and returns the exit code.

use clap::Subcommand;

pub mod answer_args;
pub mod bench;
pub mod blocks;
pub mod codeqa;
pub mod corpus;
pub mod cs1qa;
pub mod dataset;
pub mod encode;
pub mod evaluate;
pub mod evaluate_answer;
pub mod experiment;
pub mod folder_arg;
pub mod generate;
pub mod input;
pub mod inspect;
pub mod metrics;
pub mod model_arg;
pub mod nlp;
pub mod numbers;
pub mod output;
pub mod parse;
pub mod predict;
pub mod probe;
pub mod queries;
pub mod query;
pub mod query_print;
pub mod tokens;
pub mod train;
pub mod train_recurrent;
pub mod training;

/// Every subcommand of `quarry`.
#[derive(Subcommand)]
pub enum Command {
    /// Print the CodeQueries code blocks of a Python file.
    Blocks(blocks::BlocksArgs),
    /// Print the lexical tokens of a Python or Java file.
    Tokens(tokens::TokensArgs),
    /// Print the syntax tree of a file and its error regions.
    Parse(parse::ParseArgs),
    /// List the queries quarry answers.
    Queries(queries::QueriesArgs),
    /// Answer queries on Python files and directories.
    Query(query::QueryArgs),
    /// Run the language server (LSP) over standard input and output, for editors.
    Server,
    /// Assemble corpora to build datasets from (e.g. `quarry corpus pypi`).
    #[command(subcommand)]
    Corpus(corpus::CorpusCommand),
    /// Build datasets from corpora (CodeQueries, CodeQA), perturb them, finish sharded builds.
    Dataset(dataset::DatasetArgs),
    /// CodeQA question–answer pairs from comments, scoring and statistics.
    Codeqa(codeqa::CodeqaArgs),
    /// Score hypotheses against references (BLEU, ROUGE-L, METEOR, EM, F1).
    Metrics(metrics::MetricsArgs),
    /// INSPECT probing datasets: generate them, check their labels.
    Inspect(inspect::InspectArgs),
    /// Train probes on per-layer features of a model for an INSPECT task.
    Probe(probe::ProbeArgs),
    /// Train a model (e.g. `quarry train span`).
    #[command(subcommand)]
    Train(train::TrainTask),
    /// Evaluate a trained model (e.g. `quarry evaluate span`).
    #[command(subcommand, visible_alias = "eval")]
    Evaluate(evaluate::EvaluateTask),
    /// Run a paper's experimental protocol end to end (e.g. `quarry experiment codequeries`).
    #[command(subcommand)]
    Experiment(experiment::ExperimentTask),
    /// Generate text with a trained model (e.g. `quarry generate answer`).
    #[command(subcommand)]
    Generate(generate::GenerateTask),
    /// Print per-layer summary-token vectors of texts.
    Encode(encode::EncodeArgs),
    /// Measure a model's speed on a device (e.g. `quarry bench encoder`).
    #[command(subcommand)]
    Bench(bench::BenchTask),
    /// Answer queries on Python files with a trained span model.
    Predict(predict::PredictArgs),
    /// English NLP with spaCy's small English pipeline (e.g. `quarry nlp parse`).
    #[command(subcommand)]
    Nlp(nlp::NlpCommand),
    /// CS1QA: question types, code-line selection, answer retrieval, augmentation.
    #[command(subcommand)]
    Cs1qa(cs1qa::Cs1qaCommand),
}

/// Runs one subcommand and returns the process exit code.
pub fn run(command: Command) -> i32 {
    match command {
        Command::Blocks(args) => blocks::run(args),
        Command::Tokens(args) => tokens::run(args),
        Command::Parse(args) => parse::run(args),
        Command::Metrics(args) => metrics::run(args),
        Command::Corpus(command) => corpus::run(command),
        Command::Dataset(args) => dataset::run(args),
        Command::Codeqa(args) => codeqa::run(args),
        Command::Queries(args) => queries::run(args),
        Command::Query(args) => query::run(args),
        Command::Server => quarry_server::run_stdio(),
        Command::Inspect(args) => inspect::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Train(task) => train::run(task),
        Command::Evaluate(task) => evaluate::run(task),
        Command::Experiment(task) => experiment::run(task),
        Command::Generate(task) => generate::run(task),
        Command::Encode(args) => encode::run(args),
        Command::Bench(task) => bench::run(task),
        Command::Predict(args) => predict::run(args),
        Command::Nlp(cmd) => nlp::run(cmd),
        Command::Cs1qa(command) => cs1qa::run(command),
    }
}
