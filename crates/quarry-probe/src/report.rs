//! Result tables: a CSV with one row per task, model, probe and layer that
//! successive runs update, and a pretty table for the terminal.

use std::fmt::Write as _;
use std::path::Path;

use quarry_stdx::write_atomically;

use crate::error::{ProbeError, Result};
use crate::experiment::Experiment;

/// The CSV's columns.
pub const CSV_HEADER: &str =
    "task,model,probe,layer,accuracy,valid_accuracy,best_epoch,l2,control_accuracy,selectivity,random_baseline,majority_baseline";

/// One row of the results CSV.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultRow {
    /// Task code.
    pub task: String,
    /// Model name.
    pub model: String,
    /// `linear` or `mlp`.
    pub probe: String,
    /// Layer index.
    pub layer: usize,
    /// Test accuracy.
    pub accuracy: f64,
    /// Validation accuracy.
    pub valid_accuracy: f64,
    /// Best epoch.
    pub best_epoch: usize,
    /// Chosen L2 coefficient.
    pub l2: f64,
    /// Control-task accuracy, if run.
    pub control_accuracy: Option<f64>,
    /// Selectivity, if the control task was run.
    pub selectivity: Option<f64>,
    /// Chance accuracy.
    pub random_baseline: f64,
    /// Majority-class accuracy.
    pub majority_baseline: f64,
}

impl ResultRow {
    fn key(&self) -> (String, String, String, usize) {
        (self.task.clone(), self.model.clone(), self.probe.clone(), self.layer)
    }

    fn to_csv(&self) -> String {
        let opt = |v: Option<f64>| v.map(|v| format!("{v:.4}")).unwrap_or_default();
        format!(
            "{},{},{},{},{:.4},{:.4},{},{},{},{},{:.4},{:.4}",
            self.task,
            csv_field(&self.model),
            self.probe,
            self.layer,
            self.accuracy,
            self.valid_accuracy,
            self.best_epoch,
            self.l2,
            opt(self.control_accuracy),
            opt(self.selectivity),
            self.random_baseline,
            self.majority_baseline
        )
    }
}

fn csv_field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

fn split_csv_line(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                if let Some(f) = fields.last_mut() {
                    f.push('"');
                }
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(String::new()),
            _ => {
                if let Some(f) = fields.last_mut() {
                    f.push(c)
                }
            }
        }
    }
    fields
}

/// Rows of an experiment.
pub fn rows_of(experiment: &Experiment) -> Vec<ResultRow> {
    experiment
        .layers
        .iter()
        .map(|l| ResultRow {
            task: experiment.task.code().to_string(),
            model: experiment.model.clone(),
            probe: experiment.probe.clone(),
            layer: l.layer,
            accuracy: l.accuracy,
            valid_accuracy: l.valid_accuracy,
            best_epoch: l.best_epoch,
            // Through the shortest decimal form, so 1e-3 is written as 0.001.
            l2: l.l2.to_string().parse().unwrap_or(f64::from(l.l2)),
            control_accuracy: l.control_accuracy,
            selectivity: l.selectivity,
            random_baseline: experiment.random_baseline,
            majority_baseline: experiment.majority_baseline,
        })
        .collect()
}

/// Reads a results CSV (missing file: no rows).
pub fn read_results(path: &Path) -> Result<Vec<ResultRow>> {
    let text = match quarry_stdx::read::read_text(path, quarry_stdx::read::MAX_TEXT_FILE_BYTES) {
        Ok(text) => text,
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(ProbeError::io(path, e.source)),
    };
    let bad = |line: usize, what: &str| ProbeError::BadFeatures {
        path: path.to_path_buf(),
        reason: format!("line {line}: {what}"),
    };
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate().skip(1) {
        if line.trim().is_empty() {
            continue;
        }
        let f = split_csv_line(line);
        if f.len() != 12 {
            return Err(bad(index + 1, "expected 12 fields"));
        }
        let num = |i: usize| f[i].parse::<f64>().map_err(|_| bad(index + 1, "bad number"));
        let opt = |i: usize| if f[i].is_empty() { Ok(None) } else { num(i).map(Some) };
        rows.push(ResultRow {
            task: f[0].clone(),
            model: f[1].clone(),
            probe: f[2].clone(),
            layer: f[3].parse().map_err(|_| bad(index + 1, "bad layer"))?,
            accuracy: num(4)?,
            valid_accuracy: num(5)?,
            best_epoch: f[6].parse().map_err(|_| bad(index + 1, "bad epoch"))?,
            l2: num(7)?,
            control_accuracy: opt(8)?,
            selectivity: opt(9)?,
            random_baseline: num(10)?,
            majority_baseline: num(11)?,
        });
    }
    Ok(rows)
}

/// Merges `new` rows into the CSV at `path` (same task, model, probe and
/// layer: replaced), sorted, written atomically. Returns all rows.
pub fn merge_results(path: &Path, new: &[ResultRow]) -> Result<Vec<ResultRow>> {
    let mut rows = read_results(path)?;
    rows.retain(|r| !new.iter().any(|n| n.key() == r.key()));
    rows.extend(new.iter().cloned());
    rows.sort_by_key(ResultRow::key);
    let mut text = String::from(CSV_HEADER);
    text.push('\n');
    for row in &rows {
        text.push_str(&row.to_csv());
        text.push('\n');
    }
    write_atomically(path, text.as_bytes())?;
    Ok(rows)
}

/// A terminal table of an experiment.
pub fn pretty_table(experiment: &Experiment) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} on {} ({} probe)   random {:.1}%   majority {:.1}%",
        experiment.model,
        experiment.task,
        experiment.probe,
        100.0 * experiment.random_baseline,
        100.0 * experiment.majority_baseline
    );
    let control = experiment.layers.iter().any(|l| l.control_accuracy.is_some());
    let _ = write!(out, "┌───────┬──────────┬──────────┬───────┬─────────");
    out.push_str(if control {
        "┬──────────┬─────────────┐\n"
    } else {
        "┐\n"
    });
    let _ = write!(out, "│ layer │ test acc │ val acc  │ epoch │ L2      ");
    out.push_str(if control { "│ control  │ selectivity │\n" } else { "│\n" });
    let _ = write!(out, "├───────┼──────────┼──────────┼───────┼─────────");
    out.push_str(if control {
        "┼──────────┼─────────────┤\n"
    } else {
        "┤\n"
    });
    for l in &experiment.layers {
        let _ = write!(
            out,
            "│ {:>5} │ {:>7.2}% │ {:>7.2}% │ {:>5} │ {:<7.0e} ",
            l.layer,
            100.0 * l.accuracy,
            100.0 * l.valid_accuracy,
            l.best_epoch,
            l.l2
        );
        match (l.control_accuracy, l.selectivity) {
            (Some(c), Some(s)) => {
                let _ = writeln!(out, "│ {:>7.2}% │ {:>+10.2}  │", 100.0 * c, 100.0 * s);
            }
            _ => out.push_str("│\n"),
        }
    }
    let _ = write!(out, "└───────┴──────────┴──────────┴───────┴─────────");
    out.push_str(if control {
        "┴──────────┴─────────────┘\n"
    } else {
        "┘\n"
    });
    out
}
