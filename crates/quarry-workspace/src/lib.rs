//! quarry-workspace: what `quarry query`, `quarry server` and the Python API
//! (`quarry_code.query`) share about a workspace, as ruff's `ruff_workspace`
//! is for ruff's command line and server. The analysis core (quarry-query)
//! turns files into findings; this crate decides which files and queries a
//! run has and what becomes of the findings:
//!
//! - [`config`]: the configuration file (`quarry.toml`, `.quarry.toml`,
//!   `[tool.quarry]`), found by walking up from a path, and the queries it
//!   selects;
//! - [`check`]: from paths and options to a run's [`check::Plan`] (settings,
//!   queries, forms, excludes, limits) and, as values, its reported findings;
//! - [`folder`]: a workspace folder's resolved configuration, as the
//!   language server keeps it;
//! - [`cache_dir`]: where the analysis cache of a project lives;
//! - [`suppression`]: what `# noqa`, `# codeql[...]`, `# lgtm[...]` and
//!   `# quarry: skip-file` comments suppress, and the edits that add and
//!   remove them;
//! - [`baseline`]: the findings a project accepts today;
//! - [`triage`]: what becomes of each finding (reported, ignored for its
//!   file, suppressed, baselined) and which suppressions went unused;
//! - [`output`]: diagnostics, SARIF, statistics and the summary.
//!
//! # Who reads suppression comments
//!
//! A file's `# noqa`, `# codeql[...]`, `# lgtm[...]` and `# quarry:
//! skip-file` comments are read by the analysis, and carried by its
//! [`quarry_query::report::FileReport`] as
//! [`quarry_query::suppression_comments::SuppressionComments`]: where each
//! directive is, which lines it covers and the IDs it names, as written.
//! That is a lexical fact of the file, like its tokens, and reading it is
//! work on the file's text that must stay inside the file's time budget (a
//! comment of tens of thousands of directives is input too): read there, a
//! run's cost per file stays bounded by the one budget, as it was before
//! this crate existed. Everything that interprets the comments is here:
//! which query an ID names and so which findings a directive suppresses
//! ([`suppression::Suppressions`]), which directives went unused
//! ([`triage`]), and the edits that add or remove them
//! ([`suppression::edits`], the server's quick fixes). Changing what a
//! comment means thus never touches the analysis, and the analysis cache
//! stores findings before any of it applies (a cache hit reads the
//! comments again from the file's text). The names a directive may use
//! ([`quarry_query::rule_ids`]: CodeQL ids, ruff codes) stay with the query
//! registry in the core, since [`quarry_query::find_query`] resolves them
//! for every caller, the dataset builder included.
//!
//! # Where the analysis cache is
//!
//! The cache itself ([`quarry_query::cache`]) stays in the analysis core:
//! its keys are the project model's (module summaries, the closure of a
//! module's imports) and what it hands back are the analysis's reports.
//! Which folder a project's cache is, and who uses it, is the workspace's
//! ([`cache_dir`]): `quarry query` by default, `quarry server` for unopened
//! files, and the Python API only when asked (`cache=True`), since a
//! library call should not write into the caller's project unasked.

pub mod baseline;
pub mod cache_dir;
pub mod check;
pub mod config;
pub mod folder;
pub mod output;
pub mod suppression;
pub mod triage;
