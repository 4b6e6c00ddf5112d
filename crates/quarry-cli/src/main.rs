//! The `quarry` binary: parses arguments, calls the library crates, prints.

mod commands;

use clap::Parser;

/// mimalloc reuses freed pages: model activations are large and short-lived, and the
/// system allocator returns them to the kernel, paying a page fault on every reuse.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (same index in its v2 and v3 option enums).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps freed memory instead of returning it to the OS: activations of the same sizes are
/// allocated again every step, and each return costs page faults and page zeroing.
fn keep_freed_memory() {
    // SAFETY: setting an allocator option is allowed at any time.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
}

/// quarry answers questions about source code and measures how well models do it.
#[derive(Parser)]
#[command(name = "quarry", version, about)]
struct Cli {
    #[command(subcommand)]
    command: commands::Command,
}

fn main() {
    keep_freed_memory();
    let cli = Cli::parse_from(commands::query::rewrite_legacy_args(std::env::args_os().collect()));
    std::process::exit(commands::run(cli.command));
}
