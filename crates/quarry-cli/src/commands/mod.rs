//! One module per subcommand; `run` dispatches and returns the exit code.

use clap::Subcommand;

/// Every subcommand of `quarry`.
#[derive(Subcommand)]
pub enum Command {}

/// Runs one subcommand and returns the process exit code.
pub fn run(command: Command) -> i32 {
    match command {}
}
