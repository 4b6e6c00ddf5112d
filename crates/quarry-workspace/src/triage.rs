//! Deciding what becomes of each finding of a file: reported, dropped by a
//! `per-file-ignores` pattern, suppressed by a comment, or accepted by a
//! baseline; and which suppression comments went unused.

use std::path::Path;

use quarry_syntax::exclude::PathGlobs;

use quarry_query::report::{FileReport, FindingRecord};
use quarry_query::rule_ids::is_ruff_code;
use quarry_query::{find_query, resolve_all, Query};

use crate::baseline::{fingerprint, Baseline, BaselineWriter};
use crate::suppression::{Form, SuppressionComments, Suppressions};

/// What became of a finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Reported: it is new.
    Reported,
    /// Suppressed by a comment: its form and text.
    Suppressed {
        /// The comment form.
        form: Form,
        /// The directive's text (`noqa: F401`).
        text: String,
    },
    /// Accepted by the baseline.
    Baselined,
}

/// A finding with its fate and fingerprint.
#[derive(Debug, Clone)]
pub struct Triaged {
    /// The finding, as the query reported it.
    pub finding: FindingRecord,
    /// What became of it.
    pub status: Status,
    /// Its baseline fingerprint.
    pub fingerprint: String,
}

/// A suppression comment naming queries that ran but found nothing there.
/// Only quarry's own names count (ids, `Q` numbers, CodeQL ids): a ruff
/// code or a blanket `# noqa` may be there for another tool.
#[derive(Debug, Clone)]
pub struct UnusedSuppression {
    /// The file.
    pub file: String,
    /// 0-based line of the comment.
    pub line: usize,
    /// 0-based character column of the directive.
    pub column: usize,
    /// The directive's text.
    pub text: String,
    /// The IDs it names that suppressed nothing.
    pub unused: Vec<String>,
}

/// The triaged findings of one file, sorted by position.
pub struct TriagedFile {
    /// The analysed file's report (its findings moved into `findings`).
    pub report: FileReport,
    /// Every finding with its fate, by position then query.
    pub findings: Vec<Triaged>,
    /// Suppression comments that suppressed nothing.
    pub unused_suppressions: Vec<UnusedSuppression>,
    /// The file carries `# quarry: skip-file`: its findings are dropped.
    pub skipped: bool,
}

impl TriagedFile {
    /// A report with every finding reported (no comments, ignores or
    /// baseline applied), sorted by position.
    pub fn unfiltered(mut report: FileReport) -> TriagedFile {
        let mut findings = std::mem::take(&mut report.findings);
        findings.sort_by_key(|f| (position(f), f.example_type == 0, f.query_id));
        let findings = findings
            .into_iter()
            .map(|finding| Triaged { fingerprint: fingerprint(&finding), finding, status: Status::Reported })
            .collect();
        TriagedFile { report, findings, unused_suppressions: Vec::new(), skipped: false }
    }
}

/// Queries not reported for files matching a pattern (`per-file-ignores`).
#[derive(Debug, Clone)]
pub struct PerFileIgnores {
    rules: Vec<(PathGlobs, Vec<&'static str>)>,
}

impl PerFileIgnores {
    /// No per-file ignores.
    pub fn none() -> PerFileIgnores {
        PerFileIgnores { rules: Vec::new() }
    }

    /// Compiles `(pattern, query keys)` pairs anchored at `root`.
    pub fn new<'a>(
        root: &Path,
        entries: impl IntoIterator<Item = (&'a String, &'a Vec<String>)>,
    ) -> Result<PerFileIgnores, String> {
        let mut rules = Vec::new();
        for (pattern, keys) in entries {
            let globs = PathGlobs::new(root, &[pattern])?;
            let ids = resolve_all(keys)?.into_iter().map(|q| q.meta.id).collect();
            rules.push((globs, ids));
        }
        Ok(PerFileIgnores { rules })
    }

    /// Whether `query_id` is ignored for `path`.
    pub fn ignores(&self, path: &Path, query_id: &str) -> bool {
        self.rules.iter().any(|(globs, ids)| ids.contains(&query_id) && globs.matches(path))
    }
}

/// Everything that decides a finding's fate, for a whole run.
pub struct Policy<'a> {
    /// Per-file ignores.
    pub per_file_ignores: &'a PerFileIgnores,
    /// Honour suppression comments (`false`: report everything, as `--ignore-noqa`).
    pub honour_comments: bool,
    /// The baseline matched against, if any.
    pub baseline: Option<&'a mut Baseline>,
    /// A baseline being written, if any: it records every finding not
    /// suppressed by a comment, and those count as in the baseline.
    pub writer: Option<&'a mut BaselineWriter>,
    /// The queries that ran (unused suppressions name only these).
    pub queries: &'a [&'static Query],
}

/// The position a finding is sorted and suppressed by: its first answer
/// span's start (0-based line, column).
pub fn position(finding: &FindingRecord) -> (usize, usize) {
    finding.answer_spans.first().map_or((0, 0), |s| (s.start_line, s.start_column))
}

impl Policy<'_> {
    /// Triages the findings of one file.
    pub fn triage(&mut self, mut report: FileReport) -> TriagedFile {
        // Read by the analysis, within the file's time budget.
        let suppressions = std::mem::take(&mut report.suppressions);
        let suppressions =
            Suppressions::new(if self.honour_comments { suppressions } else { SuppressionComments::default() });
        let mut findings = std::mem::take(&mut report.findings);
        findings.retain(|f| !self.per_file_ignores.ignores(&report.path, f.query_id));
        findings.sort_by_key(|f| (position(f), f.example_type == 0, f.query_id));
        if suppressions.skip_file {
            return TriagedFile { report, findings: Vec::new(), unused_suppressions: Vec::new(), skipped: true };
        }
        let mut used = vec![Vec::<&'static str>::new(); suppressions.directives.len()];
        let triaged = findings
            .into_iter()
            .map(|finding| {
                let fingerprint = fingerprint(&finding);
                let (line, _) = position(&finding);
                let status = match suppressions.find(finding.query_id, line) {
                    Some(index) => {
                        used[index].push(finding.query_id);
                        let directive = &suppressions.directives[index];
                        Status::Suppressed { form: directive.form, text: directive.text.clone() }
                    }
                    None => {
                        if let Some(writer) = self.writer.as_deref_mut() {
                            writer.add(&finding, &fingerprint);
                            Status::Baselined
                        } else {
                            let accepted =
                                self.baseline.as_deref_mut().is_some_and(|b| b.accept(&finding, &fingerprint));
                            if accepted {
                                Status::Baselined
                            } else {
                                Status::Reported
                            }
                        }
                    }
                };
                Triaged { finding, status, fingerprint }
            })
            .collect();
        let file = report.path.display().to_string();
        let unused_suppressions = suppressions
            .directives
            .iter()
            .zip(&used)
            .filter_map(|(directive, used)| {
                let codes = directive.codes.as_ref()?;
                let unused: Vec<String> = codes
                    .iter()
                    .filter(|code| {
                        // A ruff code is addressed to ruff as well, whose RUF100 checks it.
                        if is_ruff_code(code) {
                            return false;
                        }
                        // What the code names is resolved once, then compared by id.
                        let Some(named) = find_query(code) else { return false };
                        let ran = self.queries.iter().any(|q| q.meta.id == named.meta.id);
                        ran && !used.contains(&named.meta.id)
                    })
                    .cloned()
                    .collect();
                (!unused.is_empty()).then(|| UnusedSuppression {
                    file: file.clone(),
                    line: directive.line,
                    column: directive.column,
                    text: directive.text.clone(),
                    unused,
                })
            })
            .collect();
        TriagedFile { report, findings: triaged, unused_suppressions, skipped: false }
    }
}
