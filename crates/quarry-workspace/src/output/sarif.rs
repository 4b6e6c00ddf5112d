//! SARIF 2.1.0 output, as accepted by GitHub code scanning. Columns are
//! reported in Unicode code points (`columnKind: unicodeCodePoints`), which is
//! what quarry's character columns are; lines and columns are 1-based and
//! end columns exclusive, as SARIF requires.
//!
//! Suppressed findings stay in the log with a `suppressions` entry (`inSource`
//! for a comment, `external` for a baseline), as code scanning expects; with
//! a baseline every result also carries its `baselineState`. Each result has
//! a `partialFingerprints` entry with its baseline fingerprint, so code
//! scanning tracks it across commits as the baseline does.

use std::io::{self, Write};

use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};
use quarry_syntax::SpanRecord;
use serde_json::{json, Value};

use quarry_query::rule_ids::codeql_id;
use quarry_query::Query;

use crate::triage::{Status, Triaged};

/// One SARIF result, kept until the whole log is written.
pub struct SarifResult {
    query_id: &'static str,
    message: String,
    file: String,
    answers: Vec<SpanRecord>,
    facts: Vec<SpanRecord>,
    negative: bool,
    status: Status,
    fingerprint: String,
}

impl SarifResult {
    /// Converts a triaged finding.
    pub fn from_triaged(triaged: &Triaged) -> SarifResult {
        let finding = &triaged.finding;
        SarifResult {
            query_id: finding.query_id,
            message: finding.message.clone(),
            file: finding.file.clone(),
            answers: finding.answer_spans.clone(),
            facts: finding.supporting_fact_spans.clone(),
            negative: finding.example_type == 0,
            status: triaged.status.clone(),
            fingerprint: triaged.fingerprint.clone(),
        }
    }
}

/// Writes the SARIF log for the given rules and results; `with_baseline`
/// adds each result's `baselineState`.
pub fn write(
    out: &mut dyn Write,
    queries: &[&'static Query],
    results: &[SarifResult],
    with_baseline: bool,
) -> io::Result<()> {
    let rules: Vec<Value> = queries
        .iter()
        .map(|q| {
            let mut properties = json!({"codeql": q.meta.codeql, "paperIndex": format!("Q{}", q.meta.index)});
            if let Some(id) = codeql_id(q.meta.id) {
                properties["codeqlId"] = id.into();
            }
            json!({
                "id": q.meta.id,
                "name": q.meta.name,
                "shortDescription": {"text": q.meta.name},
                "fullDescription": {"text": q.meta.description},
                "properties": properties,
            })
        })
        .collect();
    let results: Vec<Value> = results
        .iter()
        .map(|r| {
            let rule_index = queries.iter().position(|q| q.meta.id == r.query_id).unwrap_or(0);
            let mut result = json!({
                "ruleId": r.query_id,
                "ruleIndex": rule_index,
                "level": if r.negative { "note" } else { "warning" },
                "message": {"text": r.message},
                "locations": r.answers.iter().map(|s| location(&r.file, s, None)).collect::<Vec<_>>(),
                "partialFingerprints": {"quarryFingerprint/v1": r.fingerprint},
            });
            if !r.facts.is_empty() {
                result["relatedLocations"] =
                    r.facts.iter().enumerate().map(|(i, s)| location(&r.file, s, Some(i))).collect::<Vec<_>>().into();
            }
            if r.negative {
                result["kind"] = "pass".into();
            }
            match &r.status {
                Status::Reported => {}
                Status::Suppressed { text, .. } => {
                    result["suppressions"] = json!([{"kind": "inSource", "justification": text}]);
                }
                Status::Baselined => {
                    result["suppressions"] = json!([{"kind": "external", "justification": "in the baseline"}]);
                }
            }
            if with_baseline {
                result["baselineState"] = if r.status == Status::Baselined { "unchanged" } else { "new" }.into();
            }
            result
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "quarry", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    serde_json::to_writer_pretty(&mut *out, &log).map_err(io::Error::other)?;
    writeln!(out)
}

/// The bytes a SARIF `uri` (an RFC 3986 relative reference) cannot hold as
/// they are: controls, space, the delimiters `#` and `?`, `%` itself (a
/// file named `a%20b.py` is not `a b.py`), `:` (which would make the first
/// segment a scheme) and the characters RFC 3986 leaves out. Bytes outside
/// ASCII are always encoded (as UTF-8).
const URI_ESCAPED: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b':')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}');

/// A file's path as a SARIF `uri`, `/`-separated and percent-encoded: relative as given
/// when it lies under the working directory (code scanning reads it from the repository
/// root), else an absolute `file://` URI (an absolute path, or one through `..`, which
/// code scanning could not place relative to the repository).
pub fn file_uri(file: &str) -> String {
    let path = file.trim_start_matches("./").replace('\\', "/");
    let outside = path == ".." || path.starts_with("../");
    if !outside && !std::path::Path::new(file).is_absolute() {
        return utf8_percent_encode(&path, URI_ESCAPED).to_string();
    }
    let absolute = std::path::absolute(file).unwrap_or_else(|_| std::path::PathBuf::from(file));
    let mut parts: Vec<String> = Vec::new();
    for component in absolute.components() {
        match component {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            std::path::Component::Prefix(prefix) => parts.push(prefix.as_os_str().to_string_lossy().into_owned()),
            std::path::Component::RootDir | std::path::Component::CurDir => {}
        }
    }
    let encoded: Vec<String> = parts.iter().map(|p| utf8_percent_encode(p, URI_ESCAPED).to_string()).collect();
    format!("file:///{}", encoded.join("/"))
}

fn location(file: &str, span: &SpanRecord, id: Option<usize>) -> Value {
    let uri = file_uri(file);
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": uri},
            "region": {
                "startLine": span.start_line + 1,
                "startColumn": span.start_column + 1,
                "endLine": span.end_line + 1,
                "endColumn": span.end_column + 1,
            },
        },
    });
    if let Some(id) = id {
        location["id"] = id.into();
        location["message"] = json!({"text": "supporting fact"});
    }
    location
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_are_percent_encoded() {
        assert_eq!(file_uri("./pkg/a b#c%20d?.py"), "pkg/a%20b%23c%2520d%3F.py");
        assert_eq!(file_uri("src\\mod.py"), "src/mod.py");
        assert_eq!(file_uri("d/é\u{1b}[31m.py"), "d/%C3%A9%1B%5B31m.py");
        assert_eq!(file_uri("a:b.py"), "a%3Ab.py");
        assert_eq!(file_uri("plain/path_1-2.py"), "plain/path_1-2.py");
        assert_eq!(file_uri("/srv/repo/a b.py"), "file:///srv/repo/a%20b.py");
        let cwd = std::env::current_dir().unwrap();
        let parent = cwd.parent().unwrap().join("sub/y.py");
        assert_eq!(file_uri("../sub/y.py"), file_uri(&parent.display().to_string()));
        assert!(file_uri("../sub/y.py").starts_with("file:///") && !file_uri("../sub/y.py").contains(".."));
    }
}
