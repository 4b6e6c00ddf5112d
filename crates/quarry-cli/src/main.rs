//! The `quarry` binary: parses arguments, calls the library crates, prints.

mod commands;

use clap::Parser;

/// mimalloc reuses freed pages: model activations are large and short-lived, and the
/// system allocator returns them to the kernel, paying a page fault on every reuse.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

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
