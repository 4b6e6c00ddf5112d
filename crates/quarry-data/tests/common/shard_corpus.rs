//! The corpus the shard tests of quarry-data and quarry-cli build from (included by path
//! from both crates).

use std::path::{Path, PathBuf};

/// A corpus of 24 files under `root/corpus`: quarry-data's three fixture files, each under
/// eight directories, so that every shard of 7 has files and the splits all hold some.
pub fn corpus(root: &Path) -> PathBuf {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../quarry-data/tests/fixtures/corpus");
    let corpus = root.join("corpus");
    for copy in 0..8 {
        for file in ["tool.py", "pkg/handlers.py", "pkg/models.py"] {
            let target = corpus.join(format!("copy{copy}")).join(file);
            std::fs::create_dir_all(target.parent().unwrap()).unwrap();
            std::fs::copy(fixtures.join(file), target).unwrap();
        }
    }
    corpus
}
