//! Work that grows with the input only linearly (or as n log n): classes of
//! thousands of methods, files of thousands of imports, a comment of
//! thousands of suppression directives (the triage of tens of thousands is
//! quarry-workspace's `tests/scaling.rs`). Each test times the same work on an
//! input and on one four times larger: a quadratic step takes sixteen times
//! as long, a linear one four, and the bound between them (ten, plus slack
//! for a loaded machine) fails when a quadratic step comes back.

use std::time::{Duration, Instant};

use quarry_query::report::{analyze_parsed_within, FileReport};
use quarry_query::{find_query, Polarity, Query};
use quarry_syntax::{Deadline, Language, ParsedFile, SourceFile, DEFAULT_MAX_DEPTH};

/// Runs `queries` (both forms) on `text`, timing the analysis alone.
fn analysed(text: String, queries: &[&'static Query]) -> (Duration, FileReport) {
    let file = ParsedFile::parse(SourceFile::from_text("big.py", text), Language::Python).unwrap();
    let start = Instant::now();
    let report = analyze_parsed_within(
        &file,
        queries,
        &[Polarity::Positive, Polarity::Negative],
        DEFAULT_MAX_DEPTH,
        &Deadline::unlimited(),
    )
    .unwrap();
    (start.elapsed(), report)
}

/// Asserts that four times the input took well under sixteen times as long.
fn assert_linear(what: &str, small: Duration, large: Duration) {
    assert!(large < small * 10 + Duration::from_millis(500), "{what}: n: {small:?}, 4n: {large:?}");
}

/// A base class of `n` methods and a subclass overriding each, with a
/// different arity, a first parameter other than `self` and a special
/// method bound again and again. The bindings follow the methods in one
/// run: interleaved, they would cut the subclass's class-level block into
/// `n` line ranges that every finding's relevant blocks repeat, an output
/// quadratic by the CodeQueries schema rather than by the analysis.
fn classes(n: usize) -> String {
    let mut text = String::from("class Base(object):\n");
    for i in 0..n {
        text.push_str(&format!("    def m{i}(self, a):\n        pass\n"));
    }
    text.push_str("class Sub(Base):\n");
    for i in 0..n {
        text.push_str(&format!("    def m{i}(this):\n        pass\n"));
    }
    for _ in 0..n {
        text.push_str("    __eq__ = lambda self: True\n");
    }
    text
}

#[test]
fn class_queries_are_linear_in_methods_per_class() {
    let queries = ["signature-mismatch", "non-self", "special-method-wrong-signature"].map(|q| find_query(q).unwrap());
    let (small, _) = analysed(classes(2_000), &queries);
    let (large, report) = analysed(classes(8_000), &queries);
    assert_linear("Q7, Q22, Q47", small, large);
    let count = |id: &str, example_type: u8| {
        report.findings.iter().filter(|f| f.query_id == id && f.example_type == example_type).count()
    };
    // Every override needs fewer arguments than its base; every `m{i}` of
    // the subclass is named `this`, those of the base `self`.
    assert_eq!(count("signature-mismatch", 1), 8_000);
    assert_eq!(count("non-self", 1), 8_000);
    assert_eq!(count("non-self", 0), 8_000);
    // `__eq__ = lambda self: True` takes one parameter, not two.
    assert_eq!(count("special-method-wrong-signature", 1), 8_000);
}

/// `n` distinct imports, each also repeated inside a function.
fn imports(n: usize) -> String {
    let mut text = String::new();
    for i in 0..n {
        text.push_str(&format!("import mod{i}\n"));
    }
    for i in 0..n {
        text.push_str(&format!("def f{i}():\n    import mod{i}\n"));
    }
    text
}

#[test]
fn repeated_import_is_linear_in_imports_per_file() {
    let queries = [find_query("repeated-import").unwrap()];
    let (small, _) = analysed(imports(1_500), &queries);
    let (large, report) = analysed(imports(6_000), &queries);
    assert_linear("Q25", small, large);
    let positives: Vec<_> = report.findings.iter().filter(|f| f.example_type == 1).collect();
    assert_eq!(positives.len(), 6_000, "each import in a function repeats one at module level");
    assert_eq!(positives[0].supporting_fact_spans[0].start_line, 0);
    assert!(positives[0].message.contains("module mod0 is redundant, as it was previously imported on line 1"));
}

/// `n` unused imports, then `n` top-level functions: the module summary counts each name's
/// bindings, and the unused-import query groups imports by statement, once. (Interleaved,
/// they would cut the module-level block into `n` line ranges that every finding's relevant
/// blocks repeat, an output quadratic by the CodeQueries schema.)
fn functions_and_imports(n: usize) -> String {
    let imports = (0..n).map(|i| format!("import m{i}\n"));
    imports.chain((0..n).map(|i| format!("def f{i}():\n    pass\n"))).collect()
}

#[test]
fn module_summaries_and_unused_imports_are_linear_in_top_level_names() {
    let queries = [find_query("unused-import").unwrap(), find_query("unnecessary-pass").unwrap()];
    let (small, _) = analysed(functions_and_imports(8_000), &queries);
    let (large, report) = analysed(functions_and_imports(32_000), &queries);
    assert_linear("Q1 and the module summary", small, large);
    let unused = report.findings.iter().filter(|f| f.example_type == 1 && f.query_id == "unused-import").count();
    assert_eq!(unused, 32_000, "every import is unused");
}

#[test]
fn one_comment_of_many_directives_is_read_in_linear_time() {
    let time = |n: usize| {
        let text = format!("x = 1  {}{}\n", "# noqa: E711 ".repeat(n), "# lgtm[".repeat(n));
        let start = Instant::now();
        let found = quarry_query::suppression_comments::SuppressionComments::scan(&text);
        (start.elapsed(), found)
    };
    let (small, _) = time(5_000);
    let (large, found) = time(20_000);
    assert_linear("one comment", small, large);
    assert_eq!(found.directives.len(), 20_000, "every `# noqa`; an unclosed `lgtm[` is none");
    assert_eq!(found.directives[1].column, 7 + "# noqa: E711 ".len());
}

/// Counts the findings of `id` of the given example type (1 positive, 0 negative).
fn count(report: &FileReport, id: &str, example_type: u8) -> usize {
    report.findings.iter().filter(|f| f.query_id == id && f.example_type == example_type).count()
}

/// `n` loops at module level, each holding a loop over its own variable and
/// reading it after the inner loop.
fn sibling_loops(n: usize) -> String {
    (0..n).map(|k| format!("for a{k} in x:\n    for a{k} in y:\n        pass\n    use(a{k})\n")).collect()
}

#[test]
fn nested_loops_query_reads_only_the_loops_inside_each_loop() {
    let queries = [find_query("nested-loops-with-same-variable").unwrap()];
    let (small, _) = analysed(sibling_loops(2_000), &queries);
    let (large, report) = analysed(sibling_loops(8_000), &queries);
    assert_linear("Q34", small, large);
    assert_eq!(count(&report, "nested-loops-with-same-variable", 1), 8_000);
}

/// One loop over `i` holding `n` sibling loops over `i` again, each body
/// reading other names, and a read of `i` after them all: every inner loop
/// is a finding, and each must not rescan every read of the module.
fn sibling_loops_over_one_variable(n: usize) -> String {
    let inner: String = (0..n).map(|_| "    for i in y:\n        f(a, b, c, d, e)\n").collect();
    format!("for i in x:\n{inner}    use(i)\n")
}

#[test]
fn nested_loops_query_indexes_the_reads_of_each_loop_variable_once() {
    let queries = [find_query("nested-loops-with-same-variable").unwrap()];
    let (small, _) = analysed(sibling_loops_over_one_variable(5_000), &queries);
    let (large, report) = analysed(sibling_loops_over_one_variable(20_000), &queries);
    assert_linear("Q34, one outer variable", small, large);
    assert_eq!(count(&report, "nested-loops-with-same-variable", 1), 20_000);
    assert_eq!(count(&report, "nested-loops-with-same-variable", 0), 0);
}

/// `n` unused imports, each followed by a one-line function: the
/// module-level block is cut into `n` line runs, and each import's finding
/// names that block.
fn imports_between_functions(n: usize) -> String {
    (0..n).map(|k| format!("import m{k}\ndef f{k}(): return {k}\n")).collect()
}

#[test]
fn module_level_findings_name_their_block_in_constant_size() {
    let queries = [find_query("unused-import").unwrap()];
    let records = |n: usize| {
        let (_, report) = analysed(imports_between_functions(n), &queries);
        (serde_json::to_vec(&report.findings).unwrap().len(), report)
    };
    let (small, _) = records(1_000);
    let (large, report) = records(4_000);
    // Each record repeating the block's runs made four times the input
    // sixteen times the output.
    assert!(large < small * 5, "output bytes: n: {small}, 4n: {large}");
    assert_eq!(count(&report, "unused-import", 1), 4_000);
    let module = &report.findings[3_999].relevant_blocks[0];
    assert_eq!((module.metadata.as_str(), module.extent.start, module.extent.end), ("root", 0, 8_000));
}

/// A method of `n` `super(B, self)` calls beside `n` functions: finding the
/// scope of each call must not scan every scope of the file.
fn super_calls(n: usize) -> String {
    let calls: String = (0..n).map(|k| format!("        super(B, self).m{k}()\n")).collect();
    let functions: String = (0..n).map(|k| format!("def g{k}():\n    pass\n")).collect();
    format!("class A(object):\n    def f(self):\n{calls}{functions}")
}

#[test]
fn super_query_finds_each_calls_scope_through_its_ancestors() {
    let queries = [find_query("super-not-enclosing-class").unwrap()];
    let (small, _) = analysed(super_calls(3_000), &queries);
    let (large, report) = analysed(super_calls(12_000), &queries);
    assert_linear("Q31", small, large);
    assert_eq!(count(&report, "super-not-enclosing-class", 1), 12_000);
}

/// `n` module-level bindings, each followed by a test that an earlier
/// condition decides: only the bindings of the test's variables are read.
fn decided_tests(n: usize) -> String {
    (0..n).map(|k| format!("a{k} = 1\nif a < 1 and a > 2:\n    pass\n")).collect()
}

#[test]
fn redundant_comparison_reads_only_the_bindings_of_its_variables() {
    let queries = [find_query("redundant-comparison").unwrap()];
    let (small, _) = analysed(decided_tests(3_000), &queries);
    let (large, report) = analysed(decided_tests(12_000), &queries);
    assert_linear("Q37", small, large);
    assert_eq!(count(&report, "redundant-comparison", 1), 12_000);
}

/// `n` functions, each assigning `locals()` to a name and writing through it.
fn locals_writes(n: usize) -> String {
    (0..n).map(|k| format!("def f{k}():\n    z = locals()\n    z['a'] = {k}\n")).collect()
}

#[test]
fn modification_of_locals_indexes_the_assignments_once() {
    let queries = [find_query("modification-of-locals").unwrap()];
    let (small, _) = analysed(locals_writes(1_000), &queries);
    let (large, report) = analysed(locals_writes(4_000), &queries);
    assert_linear("Q50", small, large);
    assert_eq!(count(&report, "modification-of-locals", 1), 4_000);
}
