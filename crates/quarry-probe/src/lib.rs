//! quarry-probe: INSPECT probing of code models. Task datasets generated from
//! Java methods, the INSPECT file format, label checking for the
//! deterministic tasks, linear and MLP probes trained on per-layer features,
//! control tasks, and reports (CSV, heatmaps, confusion matrices).
//!
//! Features reach the probes through [`features::LayerFeatures`], so any
//! encoder can be probed; precomputed features are read from a cache folder.

#![warn(missing_docs)]

pub mod cache;
pub mod confusion;
pub mod control;
pub mod corpus;
pub mod dataset;
pub mod encoder;
pub mod error;
pub mod experiment;
pub mod features;
pub mod generate;
pub mod heatmap;
pub mod hub;
pub mod input;
pub mod java;
pub mod ktx;
pub mod labels;
pub mod metrics;
pub mod mutate;
pub mod npath;
pub mod npy;
pub mod outputs;
pub mod probe;
pub mod report;
pub mod seeding;
pub mod shards;
pub mod task;
pub mod train;

pub use confusion::Confusion;
pub use dataset::{Dataset, Sample, Split};
pub use error::{ProbeError, Result};
pub use labels::{check_labels, check_labels_with, label_of, label_of_with, LabelCheck, NptLabels};
pub use task::Task;
