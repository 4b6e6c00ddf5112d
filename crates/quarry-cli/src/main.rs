//! The `quarry` binary: parses arguments, calls the library crates, prints.

mod commands;

use clap::Parser;

/// quarry answers questions about source code and measures how well models do it.
#[derive(Parser)]
#[command(name = "quarry", version, about)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() {
    let cli = Cli::parse();
    std::process::exit(commands::run(cli.command));
}
