//! What every experiment's training runs share: how a run reports progress, and one
//! resumable training run in its own folder (`DIR/best`, `DIR/last`), continued from
//! `DIR/last` when an interrupted run left its state there.

use std::path::{Path, PathBuf};
use std::time::Instant;

use quarry_model::training::train::{fit, read_state, TrainConfig, TrainEvent, Trainable};
use quarry_model::LoadedModel;

use crate::error::Result;
use crate::report::Trained;

/// How a run reports what it does.
pub struct Progress<'a> {
    /// One line per stage started or skipped.
    pub message: &'a mut dyn FnMut(&str),
    /// Events of every training run.
    pub train: &'a mut dyn FnMut(&TrainEvent),
}

/// One training run in `dir`.
pub(crate) struct TrainingRun<'a> {
    /// The run's folder.
    pub dir: PathBuf,
    /// Loads the model to start from: the base model (`None`) or a checkpoint folder.
    pub load: &'a dyn Fn(Option<&Path>) -> Result<LoadedModel>,
    /// The schedule; `out_dir` and `resume` are set here.
    pub config: TrainConfig,
}

impl TrainingRun<'_> {
    /// Loads the model (the interrupted run's `last/`, else the base), makes the trained
    /// model and its training and validation examples with `make`, and trains with `fit`.
    pub fn train<M: Trainable>(
        self,
        make: impl FnOnce(LoadedModel) -> Result<(M, Vec<M::Example>, Vec<M::Example>)>,
        progress: &mut Progress<'_>,
    ) -> Result<Trained> {
        let resume = read_state(&self.dir)?.is_some();
        let last = self.dir.join("last");
        let loaded = if resume {
            (progress.message)(&format!("resuming from {}", last.display()));
            (self.load)(Some(&last))?
        } else {
            (self.load)(None)?
        };
        let (model, train, valid) = make(loaded)?;
        let config = TrainConfig { out_dir: Some(self.dir.clone()), resume, ..self.config };
        let start = Instant::now();
        let epochs = fit(&model, &train, &valid, &config, progress.train)?;
        Ok(Trained { dir: self.dir, examples: train.len(), epochs, seconds: start.elapsed().as_secs_f64() })
    }
}
