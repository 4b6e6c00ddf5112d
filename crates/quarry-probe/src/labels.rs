//! Recomputing the labels of the deterministic tasks and comparing them with
//! a dataset's labels.

use serde::Serialize;

use crate::confusion::Confusion;
use crate::dataset::Dataset;
use crate::error::{ProbeError, Result};
use crate::java::{code_tokens, parse_method};
use crate::metrics;
use crate::npath::npath;
use crate::task::Task;

/// How NPT labels are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NptLabels {
    /// The exact NPath value, 1 to 10: what INSPECT's released files hold.
    #[default]
    Exact,
    /// The paper's ten bins: 1, 2, 3, 4–6, 7–8, 9–10, 11–15, 16–20, 21–30, 31–100.
    Binned,
}

/// The label `task` gives to `text` (NPT as in the released files), or
/// `None` when the value falls outside the task's classes. Errors for tasks
/// whose label is not a function of the text.
pub fn label_of(task: Task, text: &str) -> Result<Option<String>> {
    label_of_with(task, text, NptLabels::Exact)
}

/// [`label_of`] with a choice of NPT labels.
pub fn label_of_with(task: Task, text: &str, npt: NptLabels) -> Result<Option<String>> {
    let tokens = code_tokens(text);
    // A count is its class when it lies in the task's classes (`Task::count_classes`).
    let in_range = |value: usize| task.count_classes().filter(|r| r.contains(&value)).map(|_| value.to_string());
    Ok(match task {
        Task::Len => metrics::length_bin(metrics::token_count(&tokens)).map(str::to_string),
        Task::Ocu => in_range(metrics::unique_operators(&tokens)),
        Task::Csc => in_range(metrics::code_structures(&tokens)),
        Task::Mxn => in_range(metrics::max_nesting(&tokens)),
        Task::Cpx => in_range(metrics::decision_points(&tokens)),
        Task::Vcu => parse_method(text).and_then(|p| in_range(metrics::unique_variables(&p))),
        Task::Npt => parse_method(text).and_then(|p| match npt {
            NptLabels::Exact => in_range(usize::try_from(npath(&p)).unwrap_or(usize::MAX)),
            NptLabels::Binned => metrics::npath_bin(npath(&p)).map(|b| b.to_string()),
        }),
        _ => return Err(ProbeError::NotDeterministic(task.code().to_string())),
    })
}

/// The outcome of checking a dataset's labels.
#[derive(Debug, Clone, Serialize)]
pub struct LabelCheck {
    /// The task.
    pub task: Task,
    /// Samples checked.
    pub samples: usize,
    /// Samples whose recomputed label equals the released one.
    pub agreeing: usize,
    /// `agreeing / samples`.
    pub agreement: f64,
    /// Samples whose value falls outside every class.
    pub out_of_range: usize,
    /// Malformed lines met while reading (continued or skipped).
    pub malformed_lines: usize,
    /// Rows: released label; columns: recomputed label (`-` for out of range).
    pub confusion: Confusion,
    /// OCU only: samples whose text holds more distinct operators of
    /// [`metrics::CORE_OPERATORS`] than their label, so that no definition
    /// of "unique operators" can reproduce the label from the text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub irreproducible: Option<usize>,
    /// Line numbers of disagreeing samples (at most 20).
    pub disagreeing_lines: Vec<usize>,
}

impl LabelCheck {
    /// The check as text, as `quarry inspect label` prints it: the file, the agreement,
    /// the malformed lines of `dataset` by what was done with them, the confusion table
    /// and the first disagreeing lines.
    pub fn to_text(&self, file: &str, dataset: &Dataset) -> String {
        use crate::dataset::MalformedAction;
        use std::fmt::Write as _;
        let count = |action| dataset.malformed.iter().filter(|m| m.action == action).count();
        let mut out = String::new();
        let _ = writeln!(out, "{file}: task {}", self.task);
        let _ = writeln!(
            out,
            "samples {}  agreeing {}  agreement {:.2}%  out of range {}  malformed lines {} (continued {}, skipped {})",
            self.samples,
            self.agreeing,
            100.0 * self.agreement,
            self.out_of_range,
            self.malformed_lines,
            count(MalformedAction::Continued),
            count(MalformedAction::Skipped),
        );
        if let Some(count) = self.irreproducible {
            let _ = writeln!(
                out,
                "{count} samples hold more distinct unambiguous operators than their label: no operator count reproduces them"
            );
        }
        let _ = writeln!(out, "confusion (rows: released label, columns: recomputed):");
        out.push_str(&self.confusion.to_table());
        if !self.disagreeing_lines.is_empty() {
            let lines: Vec<String> = self.disagreeing_lines.iter().map(|l| l.to_string()).collect();
            let _ = writeln!(out, "first disagreeing lines: {}", lines.join(", "));
        }
        out
    }
}

/// Recomputes every label of `dataset` for `task` and compares.
pub fn check_labels(task: Task, dataset: &Dataset) -> Result<LabelCheck> {
    check_labels_with(task, dataset, NptLabels::Exact)
}

/// [`check_labels`] with a choice of NPT labels.
pub fn check_labels_with(task: Task, dataset: &Dataset, npt: NptLabels) -> Result<LabelCheck> {
    if !task.is_deterministic() {
        return Err(ProbeError::NotDeterministic(task.code().to_string()));
    }
    let mut classes = task.labels();
    for s in &dataset.samples {
        if !classes.contains(&s.label) {
            classes.push(s.label.clone());
        }
    }
    classes.push("-".to_string());
    let mut confusion = Confusion::new(classes);
    let (mut agreeing, mut out_of_range) = (0, 0);
    let mut disagreeing_lines = Vec::new();
    let mut irreproducible = (task == Task::Ocu).then_some(0);
    for sample in &dataset.samples {
        let code = sample.code();
        if let (Some(count), Ok(label)) = (irreproducible.as_mut(), sample.label.parse::<usize>()) {
            if metrics::unique_core_operators(&code_tokens(&code)) > label {
                *count += 1;
            }
        }
        let computed = label_of_with(task, &code, npt)?;
        if computed.is_none() {
            out_of_range += 1;
        }
        let computed = computed.unwrap_or_else(|| "-".to_string());
        if computed == sample.label {
            agreeing += 1;
        } else if disagreeing_lines.len() < 20 {
            disagreeing_lines.push(sample.line);
        }
        confusion.add(&sample.label, &computed);
    }
    let samples = dataset.samples.len();
    Ok(LabelCheck {
        task,
        samples,
        agreeing,
        agreement: if samples == 0 { 0.0 } else { agreeing as f64 / samples as f64 },
        out_of_range,
        malformed_lines: dataset.malformed.len(),
        confusion,
        irreproducible,
        disagreeing_lines,
    })
}
