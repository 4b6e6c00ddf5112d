//! Heatmaps of probe accuracy: layers × tasks for one model, models × layers
//! for one task, as SVG (labelled, with values), which browsers, notebooks and
//! papers take as they are.

use std::fmt::Write as _;

use crate::report::ResultRow;

/// A grid of values in [0, 1] with row and column labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Heatmap {
    /// Title shown above the grid.
    pub title: String,
    /// Labels of the rows.
    pub rows: Vec<String>,
    /// Labels of the columns.
    pub columns: Vec<String>,
    /// `values[row][column]`; `None` for a missing result.
    pub values: Vec<Vec<Option<f64>>>,
}

/// Red (0) to yellow (0.5) to green (1).
pub fn color(value: f64) -> [u8; 3] {
    let v = value.clamp(0.0, 1.0);
    let (low, high, t) = if v < 0.5 {
        ([215.0, 48.0, 39.0], [255.0, 255.0, 191.0], v * 2.0)
    } else {
        ([255.0, 255.0, 191.0], [26.0, 150.0, 65.0], (v - 0.5) * 2.0)
    };
    let mix = |i: usize| (low[i] + (high[i] - low[i]) * t).round() as u8;
    [mix(0), mix(1), mix(2)]
}

const MISSING: [u8; 3] = [220, 220, 220];

fn escape_xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

impl Heatmap {
    /// Layers (rows) × tasks (columns) for one model and probe kind.
    pub fn for_model(results: &[ResultRow], model: &str, probe: &str) -> Heatmap {
        let mine: Vec<&ResultRow> = results.iter().filter(|r| r.model == model && r.probe == probe).collect();
        let mut tasks: Vec<String> = Vec::new();
        for task in crate::task::Task::ALL {
            if mine.iter().any(|r| r.task == task.code()) {
                tasks.push(task.code().to_string());
            }
        }
        let mut layers: Vec<usize> = mine.iter().map(|r| r.layer).collect();
        layers.sort_unstable();
        layers.dedup();
        let values = layers
            .iter()
            .map(|&l| {
                tasks.iter().map(|t| mine.iter().find(|r| r.layer == l && &r.task == t).map(|r| r.accuracy)).collect()
            })
            .collect();
        Heatmap {
            title: format!("{model} ({probe} probe): test accuracy per layer and task"),
            rows: layers.iter().map(|l| format!("layer {l}")).collect(),
            columns: tasks,
            values,
        }
    }

    /// Models (rows) × layers (columns) for one task and probe kind.
    pub fn for_task(results: &[ResultRow], task: &str, probe: &str) -> Heatmap {
        let mine: Vec<&ResultRow> = results.iter().filter(|r| r.task == task && r.probe == probe).collect();
        let mut models: Vec<String> = mine.iter().map(|r| r.model.clone()).collect();
        models.sort();
        models.dedup();
        let mut layers: Vec<usize> = mine.iter().map(|r| r.layer).collect();
        layers.sort_unstable();
        layers.dedup();
        let values = models
            .iter()
            .map(|m| {
                layers
                    .iter()
                    .map(|&l| mine.iter().find(|r| &r.model == m && r.layer == l).map(|r| r.accuracy))
                    .collect()
            })
            .collect();
        Heatmap {
            title: format!("{task} ({probe} probe): test accuracy per model and layer"),
            rows: models,
            columns: layers.iter().map(|l| l.to_string()).collect(),
            values,
        }
    }

    /// A confusion matrix with each row as fractions of its true class
    /// (rows: true labels, columns: predicted; empty rows show as missing).
    pub fn from_confusion(confusion: &crate::confusion::Confusion, title: &str) -> Heatmap {
        let values = confusion
            .counts
            .iter()
            .map(|row| {
                let total: usize = row.iter().sum();
                row.iter().map(|&c| (total > 0).then(|| c as f64 / total as f64)).collect()
            })
            .collect();
        Heatmap { title: title.to_string(), rows: confusion.labels.clone(), columns: confusion.labels.clone(), values }
    }

    /// An SVG image with labels and the accuracy (in percent) in each cell.
    pub fn to_svg(&self) -> String {
        let (cell_w, cell_h) = (56.0, 28.0);
        let left = 12.0 + 7.5 * self.rows.iter().map(|r| r.chars().count()).max().unwrap_or(4) as f64;
        let top = 64.0;
        let width =
            (left + cell_w * self.columns.len() as f64 + 16.0).max(16.0 + 8.0 * self.title.chars().count() as f64);
        let height = top + cell_h * self.rows.len() as f64 + 16.0;
        let mut svg = String::new();
        let _ = writeln!(
            svg,
            r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">"#
        );
        let _ = writeln!(svg, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(svg, r#"<text x="8" y="20" font-size="14">{}</text>"#, escape_xml(&self.title));
        for (j, column) in self.columns.iter().enumerate() {
            let x = left + cell_w * (j as f64 + 0.5);
            let _ =
                writeln!(svg, r#"<text x="{x}" y="{}" text-anchor="middle">{}</text>"#, top - 8.0, escape_xml(column));
        }
        for (i, row) in self.rows.iter().enumerate() {
            let y = top + cell_h * i as f64;
            let _ = writeln!(
                svg,
                r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
                left - 6.0,
                y + cell_h * 0.65,
                escape_xml(row)
            );
            for j in 0..self.columns.len() {
                let x = left + cell_w * j as f64;
                let value = self.values.get(i).and_then(|r| r.get(j)).copied().flatten();
                let [r, g, b] = value.map(color).unwrap_or(MISSING);
                let _ = writeln!(
                    svg,
                    r#"<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="rgb({r},{g},{b})" stroke="white"/>"#
                );
                if let Some(v) = value {
                    let _ = writeln!(
                        svg,
                        r#"<text x="{}" y="{}" text-anchor="middle">{:.1}</text>"#,
                        x + cell_w / 2.0,
                        y + cell_h * 0.65,
                        100.0 * v
                    );
                }
            }
        }
        svg.push_str("</svg>\n");
        svg
    }
}
