//! A file's findings as the cache stores them: the report without the
//! file's text (read again) and its suppressions (scanned again), with the
//! hash of the modules it depended on and those of them it reached as
//! attributes of other modules.

use std::path::Path;

use quarry_syntax::SpanRecord;
use serde::{Deserialize, Serialize};

use crate::find_query;
use crate::report::{BlockRef, FileReport, FindingRecord};
use crate::suppression_comments::SuppressionComments;

/// A results entry.
#[derive(Serialize, Deserialize)]
pub struct CachedReport {
    /// The hash of the modules the file imports, directly or not, as they
    /// were when it was analysed (see [`crate::cache::run`]).
    pub imports: String,
    /// The paths of the modules outside the file's import closure that its
    /// analysis reached as attributes of other modules (`pkg.shapes` after
    /// `import pkg`); `imports` covers them and the modules they import.
    pub attribute_modules: Vec<String>,
    /// Whether the file had syntax errors.
    pub has_syntax_errors: bool,
    /// Its findings.
    pub findings: Vec<CachedFinding>,
}

/// A finding with its query by id.
#[derive(Serialize, Deserialize)]
pub struct CachedFinding {
    query_id: String,
    example_type: u8,
    answer_spans: Vec<SpanRecord>,
    supporting_fact_spans: Vec<SpanRecord>,
    relevant_blocks: Vec<BlockRef>,
    message: String,
}

impl CachedReport {
    /// The entry of `report`, analysed with the imports `imports` and the
    /// modules `attribute_modules` reached as attributes.
    pub fn of(report: &FileReport, imports: String, attribute_modules: Vec<String>) -> CachedReport {
        let findings = report
            .findings
            .iter()
            .map(|f| CachedFinding {
                query_id: f.query_id.to_string(),
                example_type: f.example_type,
                answer_spans: f.answer_spans.clone(),
                supporting_fact_spans: f.supporting_fact_spans.clone(),
                relevant_blocks: f.relevant_blocks.clone(),
                message: f.message.clone(),
            })
            .collect();
        CachedReport { imports, attribute_modules, has_syntax_errors: report.has_syntax_errors, findings }
    }

    /// The report of `path` with the text `text`; `None` when a query id
    /// is no longer known (an entry of another build).
    pub fn into_report(self, path: &Path, text: String) -> Option<FileReport> {
        let file = path.display().to_string();
        let findings = self
            .findings
            .into_iter()
            .map(|f| {
                let query = find_query(&f.query_id).filter(|q| q.meta.id == f.query_id)?;
                Some(FindingRecord {
                    file: file.clone(),
                    query: query.meta.name,
                    query_id: query.meta.id,
                    example_type: f.example_type,
                    answer_spans: f.answer_spans,
                    supporting_fact_spans: f.supporting_fact_spans,
                    relevant_blocks: f.relevant_blocks,
                    message: f.message,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        let suppressions = SuppressionComments::scan(&text);
        Some(FileReport {
            path: path.to_path_buf(),
            text,
            has_syntax_errors: self.has_syntax_errors,
            findings,
            suppressions,
        })
    }
}
