//! quarry-workspace-hack: no code, only dependencies. Managed by
//! `cargo hakari` (`.config/hakari.toml`), it turns on, for every workspace
//! member, the union of the features the workspace uses of each third-party
//! crate, so that `cargo test --workspace`, the `quarry` binary alone and the
//! Python module (maturin builds `quarry-py` alone) share one build of each
//! dependency instead of one per feature set.
