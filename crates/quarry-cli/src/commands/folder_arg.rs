//! Folder outputs on the command line (`--out DIR`): `-` names standard output wherever a
//! file is written, and no folder can go there, so it is refused where it is typed instead
//! of becoming a folder called `-` (`./-` names one).

use std::path::PathBuf;

use clap::builder::{PathBufValueParser, TypedValueParser};

/// The parser of a folder output: any path but `-`.
pub fn folder_output() -> impl TypedValueParser<Value = PathBuf> {
    PathBufValueParser::new().try_map(|path: PathBuf| {
        if path.as_os_str() == "-" {
            Err("a folder cannot be written to standard output (`./-` names a folder called `-`)")
        } else {
            Ok(path)
        }
    })
}
