//! `quarry experiment inspect`: INSPECT's probing protocol (section 4) for one encoder
//! over a folder of task datasets (INSPECT's released `datasets_TASK/TASK_ORIG_{size}.txt`,
//! or what `quarry inspect generate` writes, in either format): for every task, features
//! of every layer (cached), a probe per layer, and the reports `quarry probe` writes; then
//! `report.md` and `report.html` (the layer × task heatmap and each task's accuracy by
//! layer beside its chance and majority floors). A task whose probes finished is recorded
//! under `OUT/stages/` and skipped on a rerun.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use html_escape::encode_text;
use plotters::prelude::*;
use quarry_probe::cache::{CacheKey, FeatureCache};
use quarry_probe::experiment::{cached_or_extract, run_experiment, ExperimentOptions};
use quarry_probe::features::LayerFeatures;
use quarry_probe::heatmap::Heatmap;
use quarry_probe::input::InputRule;
use quarry_probe::outputs::write_reports;
use quarry_probe::report::read_results;
use quarry_probe::Task;
use serde::{Deserialize, Serialize};

use crate::error::{ExperimentError, Result};
use crate::stages::Stages;

/// What to run.
pub struct InspectConfig {
    /// The folder of task datasets.
    pub data: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    /// The encoder's name in reports and the feature cache.
    pub model: String,
    /// The encoder's identity in the feature cache (`ModelSource::fingerprint`), so that a
    /// retrained or replaced model under the same name gets features of its own.
    pub model_fingerprint: u64,
    /// The tasks, in report order.
    pub tasks: Vec<Task>,
    /// Which released size to read (`TASK_ORIG_{size}.txt`).
    pub size: String,
    /// How samples become the encoder's input (it keys the feature cache).
    pub input: InputRule,
    /// The precision features are computed in (it keys the feature cache).
    pub precision: quarry_model::Precision,
    /// Probe settings.
    pub options: ExperimentOptions,
}

/// One task's outcome, as its stage records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskResult {
    /// The task code.
    pub task: String,
    /// The dataset it was probed on, as found under the data folder.
    pub data: String,
    /// Samples in the dataset.
    pub samples: usize,
    /// Chance accuracy.
    pub random: f64,
    /// Majority-class accuracy on the test split.
    pub majority: f64,
    /// Test accuracy per layer, in layer order.
    pub accuracy: Vec<(usize, f64)>,
    /// Validation accuracy per layer, in layer order: it picks the best layer, so that the
    /// test split only reports (absent in records written before it was kept).
    #[serde(default)]
    pub valid_accuracy: Vec<(usize, f64)>,
    /// Samples of the test split the accuracies are measured on (0 in older records).
    #[serde(default)]
    pub test_samples: usize,
}

/// Everything the experiment measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InspectReport {
    /// The encoder.
    pub model: String,
    /// `linear` or `mlp`.
    pub probe: String,
    /// The probes' training settings, as the report states them.
    #[serde(default)]
    pub settings: String,
    /// Every probed task.
    pub tasks: Vec<TaskResult>,
    /// Tasks left out, with why.
    pub missing: Vec<String>,
}

/// The probes' training settings in a phrase, for the report.
fn probe_settings(train: &quarry_probe::train::TrainConfig) -> String {
    let grid: Vec<String> = train.l2_grid.iter().map(|c| format!("{c:e}")).collect();
    let hidden = train.hidden.map_or(String::new(), |h| format!("hidden layer of {h}, "));
    format!(
        "{hidden}at most {} epochs with early stopping on validation, L2 from {{{}}} chosen on validation, seed {}",
        train.epochs,
        grid.join(", "),
        train.seed
    )
}

/// The dataset of `task` under `data`: `datasets_TASK/TASK_ORIG_{size}.txt` (INSPECT's
/// released sizes are `100`, `1k` and `10k`), else the Hub layout's config folder `data/TASK`.
pub fn dataset_of(data: &Path, task: Task, size: &str) -> Option<PathBuf> {
    let text = data.join(format!("datasets_{task}")).join(format!("{task}_ORIG_{size}.txt"));
    let hub = data.join("data").join(task.code());
    [text, hub].into_iter().find(|p| p.exists())
}

/// Runs the protocol; `encoder_for(task)` gives the encoder whose features are probed
/// (asked only when a task's features are not cached), `message` hears each step.
pub fn run(
    config: &InspectConfig,
    encoder_for: &mut dyn FnMut(Task) -> std::result::Result<Box<dyn LayerFeatures>, String>,
    message: &mut dyn FnMut(&str),
) -> Result<InspectReport> {
    let stages = Stages::new(&config.out);
    let probe = if config.options.train.hidden.is_some() { "mlp" } else { "linear" };
    let settings = probe_settings(&config.options.train);
    let mut report = InspectReport {
        model: config.model.clone(),
        probe: probe.into(),
        settings,
        tasks: Vec::new(),
        missing: Vec::new(),
    };
    for &task in &config.tasks {
        let stage = format!("probe-{task}");
        if let Some(done) = stages.done::<TaskResult>(&stage) {
            message(&format!("{stage}: done before, skipped"));
            report.tasks.push(done);
            continue;
        }
        let Some(path) = dataset_of(&config.data, task, &config.size) else {
            let why = format!(
                "no datasets_{task}/{task}_ORIG_{}.txt or data/{task} under {}",
                config.size,
                config.data.display()
            );
            message(&format!("{stage}: {why}; left out"));
            report.missing.push(format!("{task}: {why}"));
            continue;
        };
        message(&format!("{stage}: probing {}", path.display()));
        match probe_task(config, task, &path, encoder_for) {
            Ok(done) => {
                stages.finish(&stage, &done)?;
                report.tasks.push(done);
            }
            Err(e) => {
                message(&format!("{stage}: {e}; left out"));
                report.missing.push(format!("{task}: {e}"));
            }
        }
    }
    let rows = read_results(&config.out.join("results.csv")).unwrap_or_default();
    let heatmap = Heatmap::for_model(&rows, &config.model, probe).to_svg();
    write_file(&config.out.join("report.md"), &render_markdown(&report))?;
    write_file(&config.out.join("report.html"), &render_html(&report, &heatmap))?;
    Ok(report)
}

/// Probes every layer on `task`'s dataset at `path` and writes `quarry probe`'s reports.
fn probe_task(
    config: &InspectConfig,
    task: Task,
    path: &Path,
    encoder_for: &mut dyn FnMut(Task) -> std::result::Result<Box<dyn LayerFeatures>, String>,
) -> Result<TaskResult> {
    let probe_error = |e: quarry_probe::ProbeError| ExperimentError::Invalid(format!("{}: {e}", path.display()));
    let (dataset, bytes) = quarry_probe::hub::read_keyed(path).map_err(probe_error)?;
    let model = (config.model.as_str(), config.model_fingerprint);
    let key = CacheKey::new(&config.out, model, task, config.input, config.precision, path, &bytes);
    let cache = FeatureCache::new(&key.dir);
    let cached = cache.layers().map(|layers| !layers.is_empty()).unwrap_or(false);
    let mut encoder = if cached { None } else { Some(encoder_for(task).map_err(ExperimentError::Invalid)?) };
    let features = cached_or_extract(
        &cache,
        encoder.as_mut().map(|e| e.as_mut() as &mut dyn LayerFeatures),
        &dataset,
        &config.model,
        &key.dataset_id,
        &mut |_, _| {},
    )
    .map_err(probe_error)?;
    let experiment = run_experiment(task, &config.model, &dataset, &features, &config.options, &mut |_, _, _| {})
        .map_err(probe_error)?;
    write_reports(&config.out, &experiment).map_err(probe_error)?;
    let done = TaskResult {
        task: task.code().into(),
        data: path.strip_prefix(&config.data).unwrap_or(path).display().to_string(),
        samples: dataset.samples.len(),
        random: experiment.random_baseline,
        majority: experiment.majority_baseline,
        accuracy: experiment.layers.iter().map(|l| (l.layer, l.accuracy)).collect(),
        valid_accuracy: experiment.layers.iter().map(|l| (l.layer, l.valid_accuracy)).collect(),
        test_samples: experiment.layers.first().map_or(0, |l| l.confusion.counts.iter().flatten().sum()),
    };
    Ok(done)
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    Ok(quarry_stdx::atomic::write_atomically(path, text.as_bytes())?)
}

/// The best layer of a task and its test accuracy: the layer of the highest validation
/// accuracy (the earliest of equals), as the paper makes every choice on validation data and
/// reports test accuracy. A record without validation accuracies has no best layer.
fn best(task: &TaskResult) -> Option<(usize, f64)> {
    let (layer, _) = task.valid_accuracy.iter().copied().reduce(|a, b| if b.1 > a.1 { b } else { a })?;
    task.accuracy.iter().copied().find(|(l, _)| *l == layer)
}

/// The test split's size as shown: `–` when the record does not say.
fn test_size(task: &TaskResult) -> String {
    if task.test_samples == 0 {
        "–".into()
    } else {
        task.test_samples.to_string()
    }
}

/// The report as Markdown: per task its data, floors, best layer and every layer's accuracy.
pub fn render_markdown(r: &InspectReport) -> String {
    let mut out = String::new();
    let layers = r.tasks.iter().map(|t| t.accuracy.len()).max().unwrap_or(0);
    let _ = writeln!(out, "# INSPECT probing experiment\n");
    let _ = writeln!(
        out,
        "Encoder `{}`, {} probe per layer ({}); test accuracy in percent on the test split of each task \
         (`Test n` samples: one sample moves a figure by 100/n points). The best layer is the one of the highest \
         validation accuracy, with its test accuracy. INSPECT's paper probes other models (BERT, CodeBERT, \
         GraphCodeBERT, CodeT5, ...), so its figures are not comparable row for row; the floors are chance and the \
         majority class of each test split.\n",
        r.model, r.probe, r.settings
    );
    let header: Vec<String> = (0..layers).map(|l| format!("L{l}")).collect();
    let _ =
        writeln!(out, "| Task | Data | Samples | Test n | Random | Majority | Best layer | {} |", header.join(" | "));
    let _ = writeln!(out, "|---|---|---:|---:|---:|---:|---:|{}", "---:|".repeat(layers));
    for t in &r.tasks {
        let best = best(t).map_or("–".to_string(), |(layer, a)| format!("{layer} ({:.1})", 100.0 * a));
        let cells: Vec<String> = t.accuracy.iter().map(|(_, a)| format!("{:.1}", 100.0 * a)).collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.1} | {:.1} | {best} | {} |",
            t.task,
            t.data,
            t.samples,
            test_size(t),
            100.0 * t.random,
            100.0 * t.majority,
            cells.join(" | ")
        );
    }
    for missing in &r.missing {
        let _ = writeln!(out, "\n**Left out**: {missing}");
    }
    out
}

/// The report as one self-contained page: the heatmap, the accuracy-by-layer curves and
/// the table.
pub fn render_html(r: &InspectReport, heatmap_svg: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>INSPECT probing experiment</title>\n\
         <style>{}</style>\n</head>\n<body>\n<h1>INSPECT probing experiment</h1>\n<p>Encoder <code>{}</code>, {} probe \
         per layer ({}); test accuracy in percent on each task's test split (<em>Test n</em> samples). The best layer \
         is the one of the highest validation accuracy, with its test accuracy. The paper probes other models, so its \
         figures are not comparable row for row; the floors are chance and each test split's majority class.</p>\n",
        crate::html::STYLE,
        encode_text(&r.model),
        encode_text(&r.probe),
        encode_text(&r.settings)
    );
    let _ = write!(out, "<h2>Accuracy by layer and task</h2>\n<figure>{heatmap_svg}</figure>\n");
    let _ = write!(
        out,
        "<h2>Each task by layer</h2>\n<figure>{}<figcaption>Test accuracy of the probe of each layer; dashed: the \
         task's majority floor.</figcaption></figure>\n",
        curves(r)
    );
    out.push_str("<h2>Tasks</h2>\n<table>\n<tr><th>Task</th><th>Data</th><th>Samples</th><th>Test n</th><th>Random</th><th>Majority</th><th>Best layer</th></tr>\n");
    for t in &r.tasks {
        let best = best(t).map_or("–".to_string(), |(layer, a)| format!("{layer} ({:.1})", 100.0 * a));
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{:.1}</td>\
             <td class=\"n\">{:.1}</td><td class=\"n\">{best}</td></tr>",
            encode_text(&t.task),
            encode_text(&t.data),
            t.samples,
            test_size(t),
            100.0 * t.random,
            100.0 * t.majority,
        );
    }
    out.push_str("</table>\n");
    for missing in &r.missing {
        let _ = writeln!(out, "<p class=\"warn\">Left out: {}</p>", encode_text(missing));
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// Accuracy against layer, one line per task, with its majority floor dashed.
fn curves(r: &InspectReport) -> String {
    let layers = r.tasks.iter().map(|t| t.accuracy.len()).max().unwrap_or(1).max(2);
    crate::html::figure((720, 360), 0f64..(layers - 1) as f64, 0f64..crate::html::LEGEND_ROOM, |chart, _| {
        chart.configure_mesh().x_desc("layer").y_desc("test accuracy (%)").draw().map_err(|e| e.to_string())?;
        for (i, task) in r.tasks.iter().enumerate() {
            let colour = Palette99::pick(i).to_rgba();
            let points: Vec<(f64, f64)> = task.accuracy.iter().map(|&(l, a)| (l as f64, 100.0 * a)).collect();
            chart
                .draw_series(LineSeries::new(points, colour.stroke_width(2)))
                .map_err(|e| e.to_string())?
                .label(task.task.clone())
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 10, y)], colour.stroke_width(2)));
            let floor = 100.0 * task.majority;
            let dashes = (0..layers * 4).step_by(2).map(|k| {
                let (a, b) = (k as f64 / 4.0, (k + 1) as f64 / 4.0);
                PathElement::new([(a, floor), (b.min((layers - 1) as f64), floor)], colour.stroke_width(1))
            });
            chart.draw_series(dashes).map_err(|e| e.to_string())?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(accuracy: &[f64], valid: &[f64]) -> TaskResult {
        TaskResult {
            task: "LEN".into(),
            data: "d".into(),
            samples: 100,
            random: 0.2,
            majority: 0.2,
            accuracy: accuracy.iter().copied().enumerate().collect(),
            valid_accuracy: valid.iter().copied().enumerate().collect(),
            test_samples: 20,
        }
    }

    #[test]
    fn the_best_layer_is_chosen_on_validation_and_reported_on_test() {
        // Layer 2 tests best, but layer 1 validates best: layer 1 and its test accuracy.
        assert_eq!(best(&task(&[0.2, 0.6, 0.9], &[0.2, 0.7, 0.5])), Some((1, 0.6)));
        // Equal validation accuracies: the earliest layer.
        assert_eq!(best(&task(&[0.5, 0.4, 0.45], &[0.5, 0.5, 0.5])), Some((0, 0.5)));
        // A record without validation accuracies names no best layer.
        assert_eq!(best(&task(&[0.5, 0.9], &[])), None);
        let report = InspectReport {
            model: "m".into(),
            probe: "linear".into(),
            settings: probe_settings(&quarry_probe::train::TrainConfig::default()),
            tasks: vec![task(&[0.2, 0.6, 0.9], &[0.2, 0.7, 0.5])],
            missing: Vec::new(),
        };
        let markdown = render_markdown(&report);
        assert!(markdown.contains("| LEN | d | 100 | 20 | 20.0 | 20.0 | 1 (60.0) |"), "{markdown}");
        assert!(markdown.contains("early stopping on validation"), "{markdown}");
    }
}
