//! Where the query engine's CPU time goes on a directory, one thread: reading,
//! parsing, blocks, each shared analysis (built once per file, timed on its
//! own before any query asks for it), the file's own module summary, then
//! each query in the positive and
//! the negative form. Prints one table, costliest first, with each row's
//! share of the total. The directory is analysed as one project, as
//! `quarry query` does; module summaries of other files read on demand are
//! counted under the analysis that asked for them (mostly `classes`), and
//! a file summarised before its analysis is not parsed again (its kept
//! tree is taken under `read + parse`).
//! Run: `cargo run --release -p quarry-query --example query_costs -- DIR [--negative]`

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use quarry_query::file_syntax::FileSyntax;
use quarry_query::project::{Project, ProjectView};
use quarry_query::{all_queries, run_query, FileContext, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Deadline, Language, LoadOptions};

/// CPU time of the calling thread (wall-clock time would count the other
/// jobs of a shared machine).
/// The engine's allocator, as in the `quarry` binary (see
/// [`quarry_query::allocator`]).
#[global_allocator]
static GLOBAL: quarry_query::allocator::MiMalloc = quarry_query::allocator::MiMalloc;

fn thread_cpu() -> Duration {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec for clock_gettime to fill.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Adds the CPU time `f` takes to `costs[label]` and returns its result.
fn timed<T>(costs: &mut HashMap<String, Duration>, label: &str, f: impl FnOnce() -> T) -> T {
    let start = thread_cpu();
    let value = f();
    *costs.entry(label.to_string()).or_default() += thread_cpu().saturating_sub(start);
    value
}

fn main() {
    // SAFETY: first thing in main, before tree-sitter allocates anything.
    unsafe { quarry_query::allocator::route_tree_sitter_allocations() };
    quarry_query::allocator::keep_freed_memory();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from)
        .or_else(quarry_syntax::corpus::default_stdlib)
        .expect("give the standard library folder, or set QUARRY_STDLIB");
    let mut polarities = vec![Polarity::Positive];
    if args.iter().any(|a| a == "--negative") {
        polarities.push(Polarity::Negative);
    }
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    let files: Vec<PathBuf> = files.into_iter().filter(|p| !p.to_string_lossy().contains("-packages")).collect();
    let load = LoadOptions::default();
    let queries = all_queries();
    let mut costs: HashMap<String, Duration> = HashMap::new();
    let project = timed(&mut costs, "project: module index", || Project::new(&files, &load));
    let mut findings = 0usize;
    for path in &files {
        let parsed =
            timed(&mut costs, "read + parse", || project.parse_for_analysis(path, &load, &Deadline::unlimited()));
        let Ok(file) = parsed else { continue };
        let view = project.module_of(path).map(|module| ProjectView { project: project.clone(), module });
        let syntax = FileSyntax::new(&file);
        let depth = timed(&mut costs, "analysis: nodes by kind + parents + depth", || syntax.depth().0);
        timed(&mut costs, "module summary (own tree)", || project.leave_summary(&file, &load, depth));
        let cx = timed(&mut costs, "blocks", || FileContext::with_syntax(syntax, view));
        timed(&mut costs, "analysis: scopes", || cx.scopes());
        timed(&mut costs, "analysis: imports", || cx.imports());
        timed(&mut costs, "analysis: module names", || cx.project_file().map_or(0, |p| p.module_names().len()));
        timed(&mut costs, "analysis: classes (+ summaries)", || cx.classes());
        timed(&mut costs, "analysis: reachability", || cx.reachability());
        timed(&mut costs, "analysis: flows", || cx.flows().len());
        for query in &queries {
            for &polarity in &polarities {
                let label = format!("query {} ({polarity:?})", query.meta.id);
                findings += timed(&mut costs, &label, || run_query(&cx, query, polarity).len());
            }
        }
        timed(&mut costs, "drop tree and analyses", || drop(cx));
    }
    let total: Duration = costs.values().sum();
    let mut rows: Vec<(String, Duration)> = costs.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!(
        "{} ({} files), {findings} findings, {} summaries read, {} files parsed twice",
        dir.display(),
        files.len(),
        project.summaries_read(),
        project.second_parses()
    );
    println!("{:<60} {:>9} {:>6}", "stage", "ms", "%");
    for (label, cost) in rows {
        let ms = cost.as_secs_f64() * 1e3;
        println!("{label:<60} {ms:>9.1} {:>6.1}", 100.0 * cost.as_secs_f64() / total.as_secs_f64());
    }
    println!("{:<60} {:>9.1}", "total", total.as_secs_f64() * 1e3);
}
