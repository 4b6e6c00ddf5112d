//! Files with syntax errors still get answers from their well-formed parts.

use quarry_query::report::analyze_parsed;
use quarry_query::{all_queries, Polarity};
use quarry_syntax::{Language, ParsedFile, SourceFile};

#[test]
fn broken_file_still_answers_from_its_well_formed_parts() {
    let text = "\
def broken(:
    return

def lookup(table, key):
    value = table.get(key)
    if value == None:
        return 0
    try:
        return value[
    except:
        pass

CONFIG = {'debug': 1, 'debug': 2}
";
    let file = ParsedFile::parse(SourceFile::from_text("broken.py", text), Language::Python).unwrap();
    assert!(file.has_errors());
    let report = analyze_parsed(&file, &all_queries(), &[Polarity::Positive]);
    assert!(report.has_syntax_errors);
    let found: Vec<(&str, &str)> =
        report.findings.iter().map(|f| (f.query_id, f.answer_spans[0].span.as_str())).collect();
    assert!(found.contains(&("equals-none", "value == None")), "{found:?}");
    assert!(found.contains(&("duplicate-key-in-dict-literal", "'debug'")), "{found:?}");
}
