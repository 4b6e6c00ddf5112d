//! Helpers shared by the CLI tests.

use std::path::PathBuf;

/// A fresh folder under the temporary directory, named by `tag` and the
/// process id, holding `files` (`(relative path, contents)`).
pub fn named_project(tag: &str, files: &[(&str, &[u8])]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-cli-query-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (name, contents) in files {
        let path = dir.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, contents).unwrap();
    }
    dir
}
