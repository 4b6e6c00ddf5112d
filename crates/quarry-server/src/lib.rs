//! quarry-server: `quarry server`, a language server over standard input
//! and output. It publishes quarry's findings as diagnostics for the open
//! documents (their unsaved text) and the workspace's other Python files,
//! refreshes the files that import a module when what they see of it
//! changes, offers quick fixes (add `# noqa: ID`, remove an unused
//! suppression), shows a query's documentation on hover, and reloads the
//! configuration when `pyproject.toml`/`quarry.toml` changes.
//!
//! [`transport`] frames messages (and survives malformed ones), [`server`]
//! holds the state and the main loop, [`batch`] runs a batch of analyses
//! that a message can cancel, [`dependants`] keeps the import graph that
//! says which files an edit affects, [`settings`] resolves the
//! configuration, [`diagnostics`], [`actions`] and [`hover`] turn findings
//! into the protocol's answers, [`text`] converts positions and applies
//! edits.

pub mod actions;
pub mod batch;
pub mod dependants;
pub mod diagnostics;
pub mod hover;
pub mod server;
pub mod settings;
pub mod text;
pub mod transport;
pub mod uri;

/// Runs the server over standard input and output until the client
/// exits; returns the process exit code (0 after `shutdown` then `exit`,
/// 1 otherwise, as the protocol asks).
pub fn run_stdio() -> i32 {
    let (connection, incoming, threads) = transport::stdio();
    let ending = server::Server::initialize(connection, incoming).map(server::Server::run);
    // The server (and with it the writer's channel) is dropped: the writer ends.
    let _ = threads.join();
    match ending {
        Some(server::Ending::Clean) => 0,
        _ => 1,
    }
}
