//! Confusion matrices over string labels; the ratios come from quarry-eval's
//! `classification`, the one home of accuracy, precision, recall and F1.

use std::fmt::Write as _;

use quarry_eval::classification;
use serde::Serialize;

/// Counts of (true label, predicted label) pairs over a fixed label list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Confusion {
    /// Labels, in row and column order.
    pub labels: Vec<String>,
    /// `counts[true][predicted]`.
    pub counts: Vec<Vec<usize>>,
}

impl Confusion {
    /// An empty matrix over `labels`.
    pub fn new(labels: Vec<String>) -> Confusion {
        let n = labels.len();
        Confusion { labels, counts: vec![vec![0; n]; n] }
    }

    /// Counts one pair; labels not in the list are added.
    pub fn add(&mut self, truth: &str, predicted: &str) {
        let t = self.index_or_insert(truth);
        let p = self.index_or_insert(predicted);
        self.counts[t][p] += 1;
    }

    fn index_or_insert(&mut self, label: &str) -> usize {
        if let Some(i) = self.labels.iter().position(|l| l == label) {
            return i;
        }
        self.labels.push(label.to_string());
        for row in &mut self.counts {
            row.push(0);
        }
        self.counts.push(vec![0; self.labels.len()]);
        self.labels.len() - 1
    }

    /// Total count.
    pub fn total(&self) -> usize {
        self.counts.iter().flatten().sum()
    }

    /// Fraction on the diagonal.
    pub fn accuracy(&self) -> f64 {
        let diagonal: usize = (0..self.labels.len()).map(|i| self.counts[i][i]).sum();
        classification::ratio(diagonal, self.total())
    }

    /// A text table: rows are true labels, columns predicted; empty rows and
    /// columns are left out.
    pub fn to_table(&self) -> String {
        let used_row: Vec<bool> = self.counts.iter().map(|r| r.iter().any(|&c| c > 0)).collect();
        let used_col: Vec<bool> =
            (0..self.labels.len()).map(|j| self.counts.iter().any(|r| r[j] > 0) || used_row[j]).collect();
        let width =
            self.labels.iter().map(|l| l.len()).chain(self.counts.iter().flatten().map(|c| c.to_string().len()));
        let width = width.max().unwrap_or(1).max(4);
        let mut out = String::new();
        let _ = write!(out, "{:>width$}", "");
        for (j, label) in self.labels.iter().enumerate() {
            if used_col[j] {
                let _ = write!(out, " {label:>width$}");
            }
        }
        out.push('\n');
        for (i, label) in self.labels.iter().enumerate() {
            if !used_row[i] {
                continue;
            }
            let _ = write!(out, "{label:>width$}");
            for (j, count) in self.counts[i].iter().enumerate() {
                if used_col[j] {
                    let _ = write!(out, " {count:>width$}");
                }
            }
            out.push('\n');
        }
        out
    }
}
