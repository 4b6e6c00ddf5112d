//! Tidy: rules of the repository checked over its source text, in the manner of
//! rust-analyzer's `xtask/src/tidy.rs`. Each rule is a function from a file's path and
//! text to its violations; [`the_workspace_is_tidy`] runs them over every file, and the
//! unit tests below plant a violation (and its clean counterpart) in small strings, so a
//! rule that stops seeing anything fails too.
//!
//! The rules, each keeping one home for a mechanism or a property of the tests and docs:
//! - `rename`: no `fs::rename` (or tempfile's `persist`) outside quarry-stdx's atomic
//!   writer; every output goes through `quarry_stdx::atomic`.
//! - `jsonl`: no JSON Lines reader (a loop over lines that parses each with serde_json)
//!   in a crate's `src` outside quarry-data's `jsonl` module (tests read the JSON Lines a
//!   command prints as they like).
//! - `kind-string`: no node kind compared as a string (`node.kind() == "if_statement"`,
//!   `match node.kind() {`) anywhere: kinds are quarry-syntax's generated enums
//!   (`quarry_syntax::kinds`), whose `_generated.rs` files alone spell the names.
//! - `test-asserts`: every `#[test]` asserts something (`assert*`, `panic!`,
//!   `unwrap_err`, `#[should_panic]`, or a helper of its file or of `tests/common` that
//!   does).
//! - `pub-docs`: every public item and public field of a crate's `src` has a doc comment.
//! - `diagnostic`: the CLI prints `quarry: error:`/`quarry: warning:` only through
//!   `commands/output.rs` (`error`, `skipped`, `warning`): one style, control characters
//!   escaped.
//! - `workspace-hack`: every crate's `Cargo.toml` depends on `quarry-workspace-hack`, so
//!   every package selection builds each dependency with the same features (one build).
//! - `measured-figure`: ARCHITECTURE.md holds what changes slowly: no percentages,
//!   durations, speed-ups, sizes or scores (those belong in crate and benchmark READMEs),
//!   and at most [`ARCHITECTURE_MAX_LINES`] lines (details live in module docs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// One broken rule.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Violation {
    path: String,
    line: usize,
    rule: &'static str,
    text: String,
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}: [{}] {}", self.path, self.line, self.rule, self.text.trim())
    }
}

fn violation(path: &str, line: usize, rule: &'static str, text: &str) -> Violation {
    Violation { path: path.to_string(), line, rule, text: text.to_string() }
}

/// The one file allowed to rename files into place.
const ATOMIC_WRITER: &str = "crates/quarry-stdx/src/atomic.rs";

/// The one JSON Lines reader.
const JSONL_READER: &str = "crates/quarry-data/src/jsonl.rs";

/// JSON Lines readers that predate the rule, with how many each may hold: the comment
/// file keeps one result per line, blank lines included (the `jsonl` readers skip them).
const JSONL_ALLOWED: &[(&str, usize)] = &[("crates/quarry-data/src/codeqa/comment_file.rs", 1)];

/// `text` without `//` comments, line by line (a `//` inside a string cuts the line
/// short, which only hides code from the rules, never invents any).
fn code_lines(text: &str) -> Vec<&str> {
    text.lines().map(|line| line.split("//").next().unwrap_or_default()).collect()
}

fn rename_outside_atomic_writer(path: &str, text: &str) -> Vec<Violation> {
    static RENAME: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bfs::rename\b|\.persist\(").unwrap());
    if path == ATOMIC_WRITER {
        return Vec::new();
    }
    matching_lines(path, &code_lines(text), &RENAME, "rename")
}

/// A violation of `rule` for every line that `pattern` matches.
fn matching_lines(path: &str, lines: &[&str], pattern: &Regex, rule: &'static str) -> Vec<Violation> {
    let matching = lines.iter().enumerate().filter(|(_, line)| pattern.is_match(line));
    matching.map(|(i, line)| violation(path, i + 1, rule, line)).collect()
}

fn jsonl_reader(path: &str, text: &str) -> Vec<Violation> {
    static LINES: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\.lines\(\)|split\(b'\\n'\)").unwrap());
    static PARSE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"serde_json::from_(str|slice)").unwrap());
    if path == JSONL_READER {
        return Vec::new();
    }
    let lines = code_lines(text);
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if LINES.is_match(line) && lines[i..lines.len().min(i + 12)].iter().any(|l| PARSE.is_match(l)) {
            out.push(violation(path, i + 1, "jsonl", line));
        }
    }
    out
}

fn kind_string_comparison(path: &str, text: &str) -> Vec<Violation> {
    static KIND: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r#"\.kind\(\)\s*(==|!=)\s*""#,
            r#"|"[^"]*"\s*(==|!=)\s*[\w.()]*\.kind\(\)"#,
            r#"|\.kind\(\)\.(starts_with|ends_with|contains)\("#,
            r#"|matches!\([\w.()&*]*\.kind\(\),\s*""#,
            r#"|match\s+[\w.()&*]*\.kind\(\)\s*\{"#,
        ))
        .unwrap()
    });
    if path.ends_with("_generated.rs") {
        return Vec::new();
    }
    matching_lines(path, &code_lines(text), &KIND, "kind-string")
}

/// The end (one past the closing brace) of the block opening at `open` (a `{`), skipping
/// strings, raw strings, character literals and comments.
fn block_end(text: &str, open: usize) -> usize {
    let b = text.as_bytes();
    let (mut i, mut depth) = (open, 0usize);
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(b.len(), |n| i + n);
                continue;
            }
            b'"' => {
                let hashes = text[..i].bytes().rev().take_while(|&c| c == b'#').count();
                let raw = i > hashes && b[i - hashes - 1] == b'r';
                if raw {
                    let close = format!("\"{}", "#".repeat(hashes));
                    i = text[i + 1..].find(&close).map_or(b.len(), |n| i + 1 + n + close.len());
                } else {
                    i += 1;
                    while i < b.len() && b[i] != b'"' {
                        i += if b[i] == b'\\' { 2 } else { 1 };
                    }
                    i += 1;
                }
                continue;
            }
            b'\'' if b.get(i + 2) == Some(&b'\'') => {
                i += 3;
                continue;
            }
            b'\'' if b.get(i + 1) == Some(&b'\\') => {
                i = text[i + 2..].find('\'').map_or(b.len(), |n| i + 2 + n + 1);
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    b.len()
}

static FN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\bfn\s+(\w+)").unwrap());
static ASSERTS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"assert|panic!|unwrap_err|expect_err|unreachable!|should_panic").unwrap());

/// The functions of `text` with a body: name, the text between `fn` and the body, body.
fn functions(text: &str) -> Vec<(String, &str, &str)> {
    let mut out = Vec::new();
    for m in FN.captures_iter(text) {
        let whole = m.get(0).unwrap();
        let rest = &text[whole.end()..];
        let (Some(open), semi) = (rest.find('{'), rest.find(';')) else { continue };
        if semi.is_some_and(|s| s < open) {
            continue;
        }
        let open = whole.end() + open;
        out.push((m[1].to_string(), &text[whole.start()..open], &text[open..block_end(text, open)]));
    }
    out
}

/// The names among `bodies` that assert, directly or through another of them.
fn asserting(bodies: &[(String, &str, &str)]) -> BTreeSet<String> {
    let mut found: BTreeSet<String> =
        bodies.iter().filter(|(_, _, body)| ASSERTS.is_match(body)).map(|(name, _, _)| name.clone()).collect();
    loop {
        let more: Vec<String> = bodies
            .iter()
            .filter(|(name, _, body)| !found.contains(name) && calls_any(body, &found))
            .map(|(name, _, _)| name.clone())
            .collect();
        if more.is_empty() {
            return found;
        }
        found.extend(more);
    }
}

fn calls_any(body: &str, names: &BTreeSet<String>) -> bool {
    static CALL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(\w+)\s*(\(|!|::<)").unwrap());
    CALL.captures_iter(body).any(|c| names.contains(&c[1]))
}

/// `#[test]` functions of `text` that assert nothing; `helpers` is the text of the files
/// whose functions a test may call (its crate's `tests/common`).
fn test_without_assertion(path: &str, text: &str, helpers: &str) -> Vec<Violation> {
    let mut bodies = functions(text);
    bodies.extend(functions(helpers));
    let asserting = asserting(&bodies);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("#[test]") {
        let Some(m) = FN.captures(&text[at..]) else { continue };
        let name_end = at + m.get(0).unwrap().end();
        let attributes = &text[at..at + m.get(0).unwrap().start()];
        let Some(open) = text[name_end..].find('{').map(|o| name_end + o) else { continue };
        let body = &text[open..block_end(text, open)];
        if !ASSERTS.is_match(attributes) && !ASSERTS.is_match(body) && !calls_any(body, &asserting) {
            out.push(violation(path, text[..at].lines().count() + 1, "test-asserts", &format!("fn {}", &m[1])));
        }
    }
    out
}

fn undocumented_public_item(path: &str, text: &str) -> Vec<Violation> {
    static ITEM: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"^\s*pub(\([^)]*\))?\s+((unsafe|async|const|extern)\s+)*",
            r"(fn|struct|enum|trait|const|static|type|mod|union|macro)\b",
            r"|^\s*pub\s+(r#)?[a-z_][a-z0-9_]*\s*:",
        ))
        .unwrap()
    });
    static MOD_DECL: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\s*pub\s+mod\s+\w+\s*;").unwrap());
    let code = text.split("\n#[cfg(test)]").next().unwrap_or_default();
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let restricted = line.trim_start().starts_with("pub(crate)")
            || line.trim_start().starts_with("pub(super)")
            || line.trim_start().starts_with("pub(in ");
        if !ITEM.is_match(line) || restricted || MOD_DECL.is_match(line) {
            continue;
        }
        // Step back over attributes, a multi-line one included.
        let mut j = i;
        while j > 0 {
            let above = lines[j - 1].trim();
            if above.starts_with("#[") {
                j -= 1;
            } else if above.ends_with(']') && !above.starts_with("///") {
                while j > 0 && !lines[j - 1].trim().starts_with("#[") {
                    j -= 1;
                }
                j = j.saturating_sub(1);
            } else {
                break;
            }
        }
        let documented = j > 0 && {
            let above = lines[j - 1].trim();
            above.starts_with("///") || above.starts_with("#[doc")
        };
        if !documented {
            out.push(violation(path, i + 1, "pub-docs", line));
        }
    }
    out
}

/// The most lines ARCHITECTURE.md may have.
const ARCHITECTURE_MAX_LINES: usize = 500;

fn measured_figure(path: &str, text: &str) -> Vec<Violation> {
    static FIGURE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(concat!(
            r"\b\d+(\.\d+)?\s?%",
            r"|\b\d+(\.\d+)?\s?(ms|µs|us|ns|s|sec|seconds|minutes|min|hours)\b",
            r"|\b\d+(\.\d+)?\s?(×|x\b)",
            r"|\b\d+(\.\d+)?\s?(KB|MB|GB|KiB|MiB|GiB)\b",
            r"|\b(F1|BLEU(-\d)?|ROUGE(-L)?|METEOR|EM|[Aa]ccuracy|[Pp]recision|[Rr]ecall)\s*(of\s+)?[=:]?\s*\d+\.\d+",
            r"|\b\d[\d,.]*\s?(files|lines|tokens|examples)/s\b",
        ))
        .unwrap()
    });
    matching_lines(path, &text.lines().collect::<Vec<_>>(), &FIGURE, "measured-figure")
}

/// Files whose violations are counted rather than forbidden: each may hold up to its
/// allowance, no more.
/// The files of the CLI that may spell the diagnostic prefixes.
const DIAGNOSTIC_HOMES: &[&str] = &["crates/quarry-cli/src/commands/output.rs", "crates/quarry-cli/src/stdio.rs"];

/// A diagnostic printed by hand in the CLI instead of through `commands/output.rs`.
fn hand_printed_diagnostic(path: &str, text: &str) -> Vec<Violation> {
    static PREFIX: LazyLock<Regex> = LazyLock::new(|| Regex::new(r#""(quarry: )?(error|warning|note): "#).unwrap());
    if !path.starts_with("crates/quarry-cli/src/") || DIAGNOSTIC_HOMES.contains(&path) {
        return Vec::new();
    }
    matching_lines(path, &code_lines(text), &PREFIX, "diagnostic")
}

/// A member manifest (`crates/NAME/Cargo.toml`) that does not depend on the workspace hack.
fn missing_workspace_hack(path: &str, manifest: &str) -> Vec<Violation> {
    let is_hack = path.contains("/quarry-workspace-hack/");
    let depends = manifest.lines().any(|line| line.trim_start().starts_with("quarry-workspace-hack ="));
    if is_hack || depends {
        return Vec::new();
    }
    vec![violation(path, 1, "workspace-hack", "no `quarry-workspace-hack` dependency (run `cargo hakari manage-deps`)")]
}

fn over_allowance(violations: Vec<Violation>, allowed: &[(&str, usize)]) -> Vec<Violation> {
    let mut by_file: BTreeMap<String, Vec<Violation>> = BTreeMap::new();
    for v in violations {
        by_file.entry(v.path.clone()).or_default().push(v);
    }
    let mut out = Vec::new();
    for (path, found) in by_file {
        let allowance = allowed.iter().find(|(p, _)| *p == path).map_or(0, |(_, n)| *n);
        if found.len() > allowance {
            out.extend(found);
        }
    }
    out
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the workspace root")
}

/// The `.rs` files under `dir`, relative to `root`, `/`-separated, sorted.
fn rust_files(root: &Path, dir: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.join(dir)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "target" && !name.starts_with('.') {
                    stack.push(path);
                }
            } else if name.ends_with(".rs") {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                out.push((relative, text));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_workspace_is_tidy() {
    let root = workspace_root();
    let mut files = rust_files(&root, "crates");
    files.extend(rust_files(&root, "fuzz"));
    assert!(files.len() > 100, "found only {} Rust files under {}", files.len(), root.display());
    let this_file = "crates/quarry-cli/tests/tidy.rs";
    let common: BTreeMap<String, String> = files
        .iter()
        .filter(|(path, _)| path.contains("/tests/common/"))
        .map(|(path, text)| (path.split("/tests/").next().unwrap().to_string(), text.clone()))
        .fold(BTreeMap::new(), |mut all, (krate, text)| {
            all.entry(krate).or_insert_with(String::new).push_str(&text);
            all
        });
    let (mut violations, mut jsonl, mut kinds) = (Vec::new(), Vec::new(), Vec::new());
    for (path, text) in &files {
        if path == this_file {
            continue;
        }
        violations.extend(rename_outside_atomic_writer(path, text));
        if path.contains("/src/") {
            jsonl.extend(jsonl_reader(path, text));
        }
        kinds.extend(kind_string_comparison(path, text));
        let krate = path.split("/tests/").next().unwrap_or_default();
        let helpers = if path.contains("/tests/") { common.get(krate).map_or("", String::as_str) } else { "" };
        violations.extend(test_without_assertion(path, text, helpers));
        violations.extend(hand_printed_diagnostic(path, text));
        if path.starts_with("crates/") && path.contains("/src/") {
            violations.extend(undocumented_public_item(path, text));
        }
    }
    let manifests =
        std::fs::read_dir(root.join("crates")).expect("crates/").flatten().map(|entry| entry.path().join("Cargo.toml"));
    for manifest in manifests.filter(|path| path.is_file()) {
        let relative = manifest.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
        violations.extend(missing_workspace_hack(&relative, &std::fs::read_to_string(&manifest).unwrap()));
    }
    violations.extend(over_allowance(jsonl, JSONL_ALLOWED));
    violations.extend(kinds);
    let architecture = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    violations.extend(measured_figure("ARCHITECTURE.md", &architecture));
    let lines = architecture.lines().count();
    if lines > ARCHITECTURE_MAX_LINES {
        let text = format!("{lines} lines, at most {ARCHITECTURE_MAX_LINES}: move details into module docs");
        violations.push(violation("ARCHITECTURE.md", lines, "measured-figure", &text));
    }
    violations.sort();
    let report: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert!(report.is_empty(), "{} tidy violation(s):\n{}", report.len(), report.join("\n"));
}

#[test]
fn hand_printed_diagnostics_are_found() {
    let cli = "crates/quarry-cli/src/commands/x.rs";
    for planted in ["eprintln!(\"quarry: error: {e}\");", "eprintln!(\"warning: {w}\");"] {
        assert_eq!(hand_printed_diagnostic(cli, planted).len(), 1, "{planted}");
    }
    assert!(hand_printed_diagnostic(cli, "crate::commands::output::warning(&w);").is_empty());
    assert!(hand_printed_diagnostic(DIAGNOSTIC_HOMES[0], "eprintln!(\"quarry: error: {m}\");").is_empty());
    assert!(hand_printed_diagnostic("crates/quarry-data/src/x.rs", "\"warning: x\"").is_empty());
}

#[test]
fn a_member_without_the_workspace_hack_is_found() {
    let without = "[dependencies]\nserde.workspace = true\n";
    assert_eq!(missing_workspace_hack("crates/quarry-new/Cargo.toml", without).len(), 1);
    let with = "[dependencies]\nquarry-workspace-hack = { version = \"0.1\", path = \"../quarry-workspace-hack\" }\n";
    assert!(missing_workspace_hack("crates/quarry-new/Cargo.toml", with).is_empty());
    assert!(missing_workspace_hack("crates/quarry-workspace-hack/Cargo.toml", without).is_empty());
}

#[test]
fn rename_is_found_outside_the_atomic_writer_only() {
    let planted = "fn f() {\n    std::fs::rename(a, b)?;\n}\n";
    assert_eq!(rename_outside_atomic_writer("crates/x/src/a.rs", planted).len(), 1);
    assert_eq!(rename_outside_atomic_writer("crates/x/src/a.rs", "file.persist(&path)?;\n").len(), 1);
    assert!(rename_outside_atomic_writer(ATOMIC_WRITER, planted).is_empty());
    assert!(rename_outside_atomic_writer("crates/x/src/a.rs", "// fs::rename is the atomic writer's\n").is_empty());
}

#[test]
fn a_second_jsonl_reader_is_found() {
    let planted =
        "for line in reader.lines() {\n    let line = line?;\n    let v: T = serde_json::from_str(&line)?;\n}\n";
    assert_eq!(jsonl_reader("crates/x/src/a.rs", planted).len(), 1);
    assert!(jsonl_reader(JSONL_READER, planted).is_empty());
    let config =
        "for line in text.lines() {\n    parse(line);\n}\n".to_string() + &"\n".repeat(20) + "serde_json::from_str(v)";
    assert!(jsonl_reader("crates/x/src/a.rs", &config).is_empty(), "far apart: not one reader");
    let allowed = jsonl_reader("crates/quarry-data/src/codeqa/comment_file.rs", planted);
    assert!(over_allowance(allowed.clone(), JSONL_ALLOWED).is_empty());
    let twice = [allowed.clone(), allowed].concat();
    assert_eq!(over_allowance(twice, JSONL_ALLOWED).len(), 2, "one more than allowed fails");
}

#[test]
fn string_kind_comparisons_are_found() {
    for planted in [
        "if node.kind() == \"if_statement\" {",
        "if \"block\" != child.kind() {",
        "let c = n.kind().ends_with(\"_statement\");",
        "matches!(node.kind(), \"&&\" | \"||\")",
        "match node.kind() {",
    ] {
        assert_eq!(kind_string_comparison("crates/x/src/a.rs", planted).len(), 1, "{planted}");
    }
    for clean in ["if node.py_kind() == Kind::IfStatement {", "match node.py_kind() {", "// node.kind() == \"x\""] {
        assert!(kind_string_comparison("crates/x/src/a.rs", clean).is_empty(), "{clean}");
    }
    assert!(kind_string_comparison("crates/x/src/kinds/java_generated.rs", "match node.kind() {").is_empty());
}

#[test]
fn tests_without_assertions_are_found() {
    let planted = "#[test]\nfn runs() {\n    let x = \"}\";\n    run(x);\n}\n";
    let found = test_without_assertion("t.rs", planted, "");
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].line, found[0].text.as_str()), (1, "fn runs"));
    let asserting = "#[test]\nfn checks() {\n    assert_eq!(run('}'), 1);\n}\n";
    assert!(test_without_assertion("t.rs", asserting, "").is_empty());
    let through_helper =
        "fn check(x: &str) {\n    assert!(!x.is_empty());\n}\n#[test]\nfn t() {\n    check(\"a\");\n}\n";
    assert!(test_without_assertion("t.rs", through_helper, "").is_empty());
    let common_helper = "#[test]\nfn t() {\n    check(r#\"{\"#);\n}\n";
    assert_eq!(test_without_assertion("t.rs", common_helper, "").len(), 1);
    assert!(test_without_assertion("t.rs", common_helper, "pub fn check(x: &str) {\n    assert!(x.len() > 0);\n}\n")
        .is_empty());
    let panics = "#[test]\n#[should_panic]\nfn t() {\n    run();\n}\n";
    assert!(test_without_assertion("t.rs", panics, "").is_empty());
}

#[test]
fn undocumented_public_items_are_found() {
    for planted in [
        "pub fn f() {}\n",
        "/// Doc.\npub struct S {\n    pub field: u8,\n}\n",
        "pub(crate) fn g() {}\n\npub const C: u8 = 1;\n",
        "/// Doc.\n#[derive(Debug)]\npub enum E {}\n#[derive(Debug)]\npub enum F {}\n",
    ] {
        assert_eq!(undocumented_public_item("crates/x/src/a.rs", planted).len(), 1, "{planted}");
    }
    let clean = "//! Module.\npub mod child;\n/// Doc.\n#[arg(\n    long,\n)]\npub lr: f64,\n\
                 pub(crate) fn hidden() {}\n#[cfg(test)]\nmod tests {\n    pub fn helper() {}\n}\n";
    assert!(undocumented_public_item("crates/x/src/a.rs", clean).is_empty());
}

#[test]
fn measured_figures_are_found() {
    for planted in [
        "The engine is 12% faster.",
        "A run takes 3.5 s on the stdlib.",
        "2.4× the speed of ruff",
        "the cache holds 512 MiB",
        "test F1 18.85 after three epochs",
        "about 40,000 lines/s",
    ] {
        assert_eq!(measured_figure("ARCHITECTURE.md", planted).len(), 1, "{planted}");
    }
    for clean in ["Python 3.11's standard library", "tree-sitter-python 0.25.0", "52 queries, 4 layers", "0x1F"] {
        assert!(measured_figure("ARCHITECTURE.md", clean).is_empty(), "{clean}");
    }
}
