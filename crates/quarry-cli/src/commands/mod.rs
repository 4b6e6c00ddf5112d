//! One module per subcommand; `run` dispatches and returns the exit code.

pub mod encode;
pub mod evaluate;
pub mod train;

use clap::Subcommand;

/// Every subcommand of `quarry`.
#[derive(Subcommand)]
pub enum Command {
    /// Train a model (e.g. `quarry train span`).
    #[command(subcommand)]
    Train(train::TrainTask),
    /// Evaluate a trained model (e.g. `quarry evaluate span`).
    #[command(subcommand)]
    Evaluate(evaluate::EvaluateTask),
    /// Print per-layer summary-token vectors of texts.
    Encode(encode::EncodeArgs),
}

/// Runs one subcommand and returns the process exit code.
pub fn run(command: Command) -> i32 {
    match command {
        Command::Train(task) => train::run(task),
        Command::Evaluate(task) => evaluate::run(task),
        Command::Encode(args) => encode::run(args),
    }
}
