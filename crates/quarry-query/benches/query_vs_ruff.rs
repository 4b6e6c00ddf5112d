//! quarry's query engine against `ruff check --select ALL --no-cache` on the
//! same files in the same run, with the same number of threads (default 2).
//! quarry runs in-process over the files in parallel as one project (the
//! project model is built inside the timed run; then one file per task:
//! read, parse, every query, findings dropped), positive form and both
//! forms; ruff runs as a subprocess with `RAYON_NUM_THREADS` set. Best of
//! `--repeat` runs (default 3); prints files/s, the throughput ratio and
//! this process's peak resident memory (`VmHWM`).
//! Run: `cargo bench -p quarry-query --bench query_vs_ruff [-- DIR] [--threads N] [--repeat N]`
//! (default DIR: the local CPython 3.11 standard library; needs `pip install ruff`).

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use quarry_query::project::Project;
use quarry_query::report::{analyze_file_in, WorkLimits};
use quarry_query::{all_queries, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Language, LoadOptions};

/// The engine's allocator, as in the `quarry` binary (see
/// [`quarry_query::allocator`]).
#[global_allocator]
static GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;

fn option(args: &[String], name: &str, default: usize) -> usize {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok()).unwrap_or(default)
}

/// Runs every query on every file with `threads` workers; returns the
/// number of findings.
fn quarry(files: &[PathBuf], threads: usize, polarities: &[Polarity]) -> usize {
    let queries = all_queries();
    let next = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    let load = LoadOptions::default();
    let limits = WorkLimits { time_budget: None, ..WorkLimits::default() };
    let project = Project::new(files, &load);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(path) = files.get(i) else { break };
                if let Ok(report) = analyze_file_in(&project, path, &queries, polarities, &load, &limits) {
                    total.fetch_add(report.findings.len(), Ordering::Relaxed);
                }
            });
        }
    });
    total.into_inner()
}

fn ruff(files: &[PathBuf], threads: usize) -> bool {
    Command::new("ruff")
        .args(["check", "--select", "ALL", "--no-cache", "--exit-zero", "--output-format", "json"])
        .args(files)
        .env("RAYON_NUM_THREADS", threads.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn best(repeat: usize, mut run: impl FnMut()) -> f64 {
    (0..repeat.max(1))
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn main() {
    // SAFETY: first thing in main, before tree-sitter allocates anything.
    unsafe { quarry_query::allocator::route_tree_sitter_allocations() };
    quarry_query::allocator::keep_freed_memory();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || !args[i - 1].starts_with("--")))
        .map(|(_, a)| PathBuf::from(a))
        .or_else(quarry_syntax::corpus::default_stdlib)
        .expect("give the standard library folder, or set QUARRY_STDLIB");
    let threads = option(&args, "--threads", 2);
    let repeat = option(&args, "--repeat", 3);
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    let files: Vec<PathBuf> = files.into_iter().filter(|p| !p.to_string_lossy().contains("-packages")).collect();
    if files.is_empty() {
        eprintln!("{}: no Python sources found", dir.display());
        return;
    }
    println!("{} ({} files), {threads} threads, best of {repeat}", dir.display(), files.len());
    let has_ruff = ruff(&files[..1], 1);
    let ruff_time = has_ruff.then(|| {
        best(repeat, || {
            ruff(&files, threads);
        })
    });
    let mut findings = 0;
    let positive = best(repeat, || findings = quarry(&files, threads, &[Polarity::Positive]));
    let both = best(repeat, || {
        quarry(&files, threads, &[Polarity::Positive, Polarity::Negative]);
    });
    let line = |label: &str, seconds: f64| {
        let ratio = ruff_time.map(|r| format!("  throughput vs ruff {:.2}x", r / seconds)).unwrap_or_default();
        println!("  {label:<30} {seconds:>7.2} s {:>8.0} files/s{ratio}", files.len() as f64 / seconds);
    };
    match ruff_time {
        Some(t) => line("ruff check --select ALL", t),
        None => println!("  ruff not found: pip install ruff"),
    }
    line("quarry, positive", positive);
    line("quarry, positive + negative", both);
    println!("  positive findings: {findings}");
    if let Some(mb) = peak_memory_mb() {
        println!("  peak resident memory of the quarry process: {mb:.0} MB");
    }
}
