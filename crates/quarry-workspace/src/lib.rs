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
//! - [`cache_dir`]: where the analysis cache of a project lives.

pub mod cache_dir;
pub mod check;
pub mod config;
