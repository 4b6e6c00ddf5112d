//! Every file a probing experiment leaves in its output folder: `results.csv` (merged
//! with earlier runs), heatmaps by model and by task, and per-layer confusion matrices.

use std::path::Path;

use quarry_stdx::write_atomically;

use crate::cache::file_safe;
use crate::error::{ProbeError, Result};
use crate::experiment::Experiment;
use crate::heatmap::Heatmap;
use crate::report::{merge_results, rows_of};

/// Writes the reports of `experiment` under `out`: `results.csv` merged with earlier runs,
/// heatmaps by model and by task (SVG), and per layer a confusion matrix as CSV and
/// SVG under `confusion/`; every file atomically.
pub fn write_reports(out: &Path, experiment: &Experiment) -> Result<()> {
    let rows = merge_results(&out.join("results.csv"), &rows_of(experiment))?;
    let write = |name: String, bytes: &[u8]| write_atomically(&out.join(name), bytes).map_err(ProbeError::from);
    let probe = &experiment.probe;
    let by_model = Heatmap::for_model(&rows, &experiment.model, probe);
    let model = file_safe(&experiment.model);
    write(format!("heatmap_model_{model}_{probe}.svg"), by_model.to_svg().as_bytes())?;
    let by_task = Heatmap::for_task(&rows, experiment.task.code(), probe);
    write(format!("heatmap_task_{}_{probe}.svg", experiment.task), by_task.to_svg().as_bytes())?;
    for layer in &experiment.layers {
        let c = &layer.confusion;
        let mut csv = format!("true\\predicted,{}\n", c.labels.join(","));
        for (label, row) in c.labels.iter().zip(&c.counts) {
            let counts: Vec<String> = row.iter().map(|n| n.to_string()).collect();
            csv.push_str(&format!("{label},{}\n", counts.join(",")));
        }
        let stem = format!("confusion/{}_{model}_{probe}_layer{:02}", experiment.task, layer.layer);
        write(format!("{stem}.csv"), csv.as_bytes())?;
        let title = format!(
            "{} {} layer {}: % of each true class (rows) by prediction (columns)",
            experiment.model, experiment.task, layer.layer
        );
        write(format!("{stem}.svg"), Heatmap::from_confusion(c, &title).to_svg().as_bytes())?;
    }
    Ok(())
}
