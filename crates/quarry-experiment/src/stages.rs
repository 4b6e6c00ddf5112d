//! Stage bookkeeping: a finished stage leaves `OUT/stages/NAME.json` with its result, written
//! atomically, so that a rerun of the experiment skips it and reuses the result.

use std::path::{Path, PathBuf};

use quarry_stdx::AtomicFile;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{ExperimentError, Result};
use crate::runs::Progress;

/// The stage records of one experiment directory.
pub struct Stages {
    dir: PathBuf,
}

impl Stages {
    /// The records under `out/stages`.
    pub fn new(out: &Path) -> Self {
        Stages { dir: out.join("stages") }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.json"))
    }

    /// The recorded result of stage `name`, if it finished (a record that no longer parses
    /// counts as unfinished).
    pub fn done<T: DeserializeOwned>(&self, name: &str) -> Option<T> {
        let text = quarry_stdx::read::read_text(&self.path(name), quarry_stdx::read::MAX_TEXT_FILE_BYTES).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Runs stage `name` with `body` unless its record says it finished (then returns the
    /// recorded result), and records what it returns; the progress hears which.
    pub fn run<T: Serialize + DeserializeOwned>(
        &self,
        name: &str,
        progress: &mut Progress<'_>,
        body: impl FnOnce(&mut Progress<'_>) -> Result<T>,
    ) -> Result<T> {
        if let Some(done) = self.done(name) {
            (progress.message)(&format!("{name}: done before, skipped"));
            return Ok(done);
        }
        (progress.message)(&format!("{name}: running"));
        let result = body(progress)?;
        self.finish(name, &result)?;
        Ok(result)
    }

    /// Records that stage `name` finished with `result`.
    pub fn finish<T: Serialize>(&self, name: &str, result: &T) -> Result<()> {
        let path = self.path(name);
        let text = serde_json::to_vec_pretty(result).map_err(|e| ExperimentError::Invalid(e.to_string()))?;
        let mut file = AtomicFile::create(&path)?;
        file.write_all(&text)?;
        file.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_stages_are_recorded() {
        let out = std::env::temp_dir().join(format!("quarry-stages-{}", std::process::id()));
        let stages = Stages::new(&out);
        assert!(stages.done::<u32>("a").is_none());
        stages.finish("a", &7u32).unwrap();
        assert_eq!(stages.done::<u32>("a"), Some(7));
        // A record of another shape counts as unfinished.
        assert!(stages.done::<String>("a").is_none());
        std::fs::remove_dir_all(&out).unwrap();
    }
}
