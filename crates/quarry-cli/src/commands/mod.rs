//! One module per subcommand; `run` dispatches and returns the exit code.

pub mod metrics;

use clap::Subcommand;

/// Every subcommand of `quarry`.
#[derive(Subcommand)]
pub enum Command {
    /// Score hypotheses against references (BLEU, ROUGE-L, METEOR, EM, F1).
    Metrics(metrics::MetricsArgs),
}

/// Runs one subcommand and returns the process exit code.
pub fn run(command: Command) -> i32 {
    match command {
        Command::Metrics(args) => metrics::run(args),
    }
}
