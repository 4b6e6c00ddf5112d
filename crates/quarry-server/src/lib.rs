//! quarry-server: `quarry server`, a language server over standard input
//! and output. It publishes quarry's findings as diagnostics for the open
//! documents (their unsaved text) and the workspace's other Python files,
//! refreshes the files that import a module when what they see of it
//! changes, offers quick fixes (add `# noqa: ID`, remove an unused
//! suppression), shows a query's documentation on hover, and reloads the
//! configuration when `pyproject.toml`/`quarry.toml` changes.
//!
//! [`transport`] frames messages (and survives malformed ones, reading
//! lone UTF-16 surrogate escapes as U+FFFD, and answering every request,
//! one whose id LSP does not allow with an error echoing it), [`server`]
//! holds the state and the main loop, [`batch`] runs a batch of analyses
//! that a message can cancel, [`dependants`] keeps the import graph that
//! says which files an edit affects (the configuration is resolved by
//! quarry-workspace's `folder`), [`diagnostics`], [`actions`] and [`hover`] turn findings
//! into the protocol's answers, [`text`] converts positions and applies
//! edits.
//!
//! # Staying responsive
//!
//! - One thread handles messages; when none waits, the next batch of dirty
//!   files is analysed in parallel (every dirty open document first, else two
//!   workspace files per worker thread), so a burst of edits is applied before
//!   any analysis. While a batch runs, `batch` keeps reading messages: any
//!   message cancels a batch of unopened files (their `Deadline`s share a
//!   flag; the files stay dirty), an edit of one of its documents a batch of
//!   open ones, so an edit or a request waits for the next check of the
//!   analyses, not for a batch. Unopened files wait a quiet period after the last edit
//!   (`QUIET_AFTER_EDIT`), leaving the worker threads to the edited document
//!   while the user types. A request whose `$/cancelRequest`, or a later
//!   `didChange` of its document, waits behind it is answered
//!   `RequestCancelled` or `ContentModified`.
//! - Unopened files go through `quarry query`'s analysis cache: a
//!   `cache::run::CacheView` made with each new project (file set or
//!   configuration; after a file joined it, when unopened files are next
//!   analysed) serves and stores their findings, and is told of every
//!   module whose text changes (`CacheView::forget`), so the import closures
//!   it hashes are those of the current project, unsaved buffers included;
//!   open documents never come from the cache.
//! - Opening a file the project lacks (outside the workspace folder, or new
//!   in it) adds it without a rebuild (`Project::with_files_added`: the
//!   summaries read so far are kept): it is analysed first, alone; then only
//!   the files whose imports may resolve differently with it (a name they
//!   import stands for another module, a new one or themselves; a package
//!   they import gained it as a submodule), and their importers, are
//!   analysed again (`dependants`), not from the cache, whose keys do not
//!   see what names stand for; so are files opened earlier whose importers
//!   were still to be found. A configuration change, or a file deleted,
//!   rebuilds the project and analyses every file.
//! - An open document is reparsed from its last tree
//!   (`ParsedFile::reparse_within`; the project keeps each overlay's last tree
//!   across `Project::edited`), and `dependants` keeps the import graph
//!   between edits (a module's imports are read again only when its summary
//!   changed).
//! - Unsaved text reaches the analysis as overlays of the project
//!   (`Project::with_overlays`, `Project::edited`): an edit keeps every
//!   summary read so far but the edited module's. After an edited module is
//!   analysed, its new summary is compared with the one before the edit
//!   (`ModuleSummary::stable_text`); only when it differs are the modules that
//!   import it, directly or through others (`Project::imports_of`), and
//!   those whose last analysis reached it or one of those as an attribute
//!   of a package they import (`pkg.shapes` after `import pkg`,
//!   `Project::recording_attribute_modules`), analysed again.
//! - A bad configuration is logged (`window/logMessage`) and the previous
//!   settings kept; a file that cannot be analysed (too large, out of time,
//!   deleted) gets no diagnostics and a log line.

pub mod actions;
pub mod batch;
pub mod dependants;
pub mod diagnostics;
mod envelope;
mod framing;
pub mod hover;
pub mod server;
pub mod text;
pub mod transport;
pub mod uri;

/// Runs the server over standard input and output until the client
/// exits; returns the process exit code (0 after `shutdown` then `exit`,
/// 1 otherwise, as the protocol asks).
pub fn run_stdio() -> i32 {
    let (out, incoming, threads) = transport::stdio();
    let ending = server::Server::initialize(out, incoming).map(server::Server::run);
    // The server (and with it the writer's channel) is dropped: the writer ends.
    let _ = threads.join();
    match ending {
        Some(server::Ending::Clean) => 0,
        _ => 1,
    }
}
