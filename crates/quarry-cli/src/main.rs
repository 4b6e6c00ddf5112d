//! The `quarry` binary: parses arguments, calls the library crates, prints.

// `std`'s printing macros panic on a closed or full stream; these, seen by every module
// below, go through `stdio` instead (see its documentation).
macro_rules! println {
    () => { $crate::stdio::print_out(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdio::print_out(format_args!("{}\n", format_args!($($arg)*))) };
}
macro_rules! print {
    ($($arg:tt)*) => { $crate::stdio::print_out(format_args!($($arg)*)) };
}
macro_rules! eprintln {
    () => { $crate::stdio::print_err(format_args!("\n")) };
    ($($arg:tt)*) => { $crate::stdio::print_err(format_args!("{}\n", format_args!($($arg)*))) };
}
macro_rules! eprint {
    ($($arg:tt)*) => { $crate::stdio::print_err(format_args!($($arg)*)) };
}

mod commands;
mod interrupt;
mod stdio;

use clap::Parser;

/// mimalloc for every allocation of the process, tree-sitter's included
/// ([`quarry_query::allocator`]): parsing and dropping trees and the model's short-lived
/// activations make many allocations that mimalloc serves faster than the system allocator.
#[global_allocator]
static GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;

/// quarry answers questions about source code and measures how well models do it.
#[derive(Parser)]
#[command(name = "quarry", version)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() {
    // SAFETY: first thing in `main`, before any parser or tree exists, and called once.
    unsafe { quarry_query::allocator::route_tree_sitter_allocations() };
    // Before any other thread starts, so that every thread leaves the signals to it.
    interrupt::install(commands::output::error);
    quarry_query::allocator::keep_freed_memory();
    let cli = Cli::parse_from(commands::query::rewrite_legacy_args(std::env::args_os().collect()));
    let code = commands::run(cli.command);
    stdio::flush_out();
    interrupt::exit(code);
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap's own consistency checks over every subcommand: two arguments with one id (as a
    /// shared argument block's field can collide with a command's own) fail here, not on a
    /// user's first run of that command.
    #[test]
    fn every_command_line_definition_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
