//! Counting a run's outcome: the closing summary line and `--statistics`
//! (counts per query, like ruff's).

use std::collections::BTreeMap;
use std::io::{self, Write};
use std::time::Duration;

use serde::Serialize;

use quarry_query::rule_ids::codeql_id;
use quarry_query::{find_query, Polarity};

use super::style::{self, Palette};
use crate::triage::{Status, TriagedFile};

/// What a run found, counted as files are triaged.
#[derive(Debug, Clone, Default)]
pub struct Tally {
    /// Reported findings per query id (positive and negative).
    pub reported: BTreeMap<&'static str, usize>,
    /// Reported positive findings: these fail the run.
    pub reported_positive: usize,
    /// Findings suppressed by comments.
    pub suppressed: usize,
    /// Findings accepted by the baseline.
    pub baselined: usize,
    /// Unused suppression comments found.
    pub unused_suppressions: usize,
    /// Files analysed.
    pub files: usize,
    /// Files skipped: too large, unreadable, over the time budget, or
    /// marked `# quarry: skip-file`.
    pub skipped: usize,
}

impl Tally {
    /// Counts one triaged file.
    pub fn add(&mut self, file: &TriagedFile) {
        self.files += 1;
        if file.skipped {
            self.skipped += 1;
        }
        for triaged in &file.findings {
            match triaged.status {
                Status::Reported => {
                    *self.reported.entry(triaged.finding.query_id).or_insert(0) += 1;
                    if triaged.finding.example_type == Polarity::Positive.example_type() {
                        self.reported_positive += 1;
                    }
                }
                Status::Suppressed { .. } => self.suppressed += 1,
                Status::Baselined => self.baselined += 1,
            }
        }
        self.unused_suppressions += file.unused_suppressions.len();
    }

    /// Counts a file that could not be analysed.
    pub fn add_failed(&mut self) {
        self.files += 1;
        self.skipped += 1;
    }

    /// All reported findings.
    pub fn total_reported(&self) -> usize {
        self.reported.values().sum()
    }

    /// Per-query counts, most frequent first.
    pub fn statistics(&self) -> Vec<Statistic> {
        let mut rows: Vec<Statistic> = self
            .reported
            .iter()
            .map(|(&id, &count)| {
                let query = find_query(id);
                Statistic {
                    count,
                    query_id: id,
                    paper_index: query.map_or_else(String::new, |q| format!("Q{}", q.meta.index)),
                    codeql_id: codeql_id(id).unwrap_or_default(),
                    query: query.map_or("", |q| q.meta.name),
                }
            })
            .collect();
        rows.sort_by(|a, b| b.count.cmp(&a.count).then(a.query_id.cmp(b.query_id)));
        rows
    }

    /// Writes the closing summary line, e.g. `Found 3 findings (unused-import 2,
    /// equals-none 1) in 12 files (1 skipped); 2 suppressed; 0.41s.`
    pub fn write_summary(&self, out: &mut dyn Write, elapsed: Duration, palette: Palette) -> io::Result<()> {
        let total = self.total_reported();
        let files = plural(self.files, "file");
        let mut line = if total == 0 {
            palette.paint(style::SUCCESS, &format!("No findings in {files}"))
        } else {
            let mut by_query: Vec<(&str, usize)> = self.reported.iter().map(|(&id, &n)| (id, n)).collect();
            by_query.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            let parts: Vec<String> = by_query.iter().map(|(id, n)| format!("{id} {n}")).collect();
            format!(
                "Found {} ({}) in {files}",
                palette.paint(style::EMPHASIS, &plural(total, "finding")),
                parts.join(", ")
            )
        };
        if self.skipped > 0 {
            line.push_str(&format!(" ({} skipped)", self.skipped));
        }
        for (count, what) in [(self.suppressed, "suppressed"), (self.baselined, "in the baseline")] {
            if count > 0 {
                line.push_str(&format!("; {count} {what}"));
            }
        }
        if self.unused_suppressions > 0 {
            line.push_str(&format!("; {}", plural(self.unused_suppressions, "unused suppression")));
        }
        writeln!(out, "{line}; {:.2}s.", elapsed.as_secs_f64())
    }
}

/// One row of `--statistics`.
#[derive(Debug, Clone, Serialize)]
pub struct Statistic {
    /// Reported findings.
    pub count: usize,
    /// The query id.
    pub query_id: &'static str,
    /// Paper index (`Q1`).
    pub paper_index: String,
    /// CodeQL `@id`.
    pub codeql_id: &'static str,
    /// The exact query name.
    pub query: &'static str,
}

/// Writes statistics as an aligned table: count, paper index, id, CodeQL id.
pub fn write_statistics(out: &mut dyn Write, rows: &[Statistic], palette: Palette) -> io::Result<()> {
    let count_width = rows.iter().map(|r| r.count.to_string().len()).max().unwrap_or(1);
    let id_width = rows.iter().map(|r| r.query_id.len()).max().unwrap_or(0);
    for row in rows {
        let count = palette.paint(style::EMPHASIS, &format!("{:>count_width$}", row.count));
        let id = palette.paint(style::QUERY, &format!("{:<id_width$}", row.query_id));
        writeln!(out, "{count}\t{:<4}\t{id}\t{}", row.paper_index, row.codeql_id)?;
    }
    Ok(())
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}
