//! The layers of the analysis core (ARCHITECTURE.md, "Layers of the analysis
//! core"): each core module names only modules listed before it in
//! [`LAYERS`], so the core has no import loop, and no analysis takes a
//! `FileContext`. Test modules at the end of a file are left out (they may
//! build a `FileContext` anywhere).

use std::path::{Path, PathBuf};

/// The core modules, lowest first: typed syntax, syntax facts, per-file
/// analyses, the project model, analyses across modules, the composition.
const LAYERS: &[&str] = &[
    "syntax",
    "node_tree",
    "builtins",
    "ast",
    "parameters",
    "file_syntax",
    "signatures",
    "methods",
    "class_syntax",
    "import_statements",
    "scopes",
    "reachability",
    "flow",
    "imports",
    "project",
    "classes",
    "calls",
    "context",
];

fn src() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The files of a core module: `name.rs`, or every file of `name/`.
fn files_of(module: &str) -> Vec<PathBuf> {
    let file = src().join(format!("{module}.rs"));
    if file.is_file() {
        return vec![file];
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(src().join(module))
        .expect("module folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

/// The code of a file without comments and without its trailing test module.
fn code(path: &Path) -> String {
    let text = std::fs::read_to_string(path).expect("read source");
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(end) => &text[..end],
        None => &text[..],
    };
    text.lines().map(|line| line.split("//").next().unwrap_or_default()).collect::<Vec<_>>().join("\n")
}

/// The modules a piece of code names through `crate::`.
fn named_modules(code: &str) -> Vec<String> {
    code.match_indices("crate::")
        .map(|(at, _)| {
            let rest = &code[at + "crate::".len()..];
            rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect()
        })
        .collect()
}

/// The modules `code` of core module `module` names against the layering:
/// neither itself nor listed before it.
fn against_layering(module: &str, code: &str) -> Vec<String> {
    let rank = LAYERS.iter().position(|m| *m == module).expect("a core module");
    named_modules(code)
        .into_iter()
        .filter(|named| named != module && !LAYERS[..rank].contains(&named.as_str()))
        .collect()
}

#[test]
fn every_core_module_names_only_lower_ones() {
    let mut violations = Vec::new();
    for module in LAYERS {
        let files = files_of(module);
        assert!(!files.is_empty(), "no source for core module {module}");
        for file in files {
            for named in against_layering(module, &code(&file)) {
                violations.push(format!("{} names crate::{named}", file.display()));
            }
        }
    }
    assert!(violations.is_empty(), "imports against the layering:\n{}", violations.join("\n"));
}

#[test]
fn no_analysis_takes_a_file_context() {
    let analyses = LAYERS.iter().filter(|m| **m != "context");
    let offenders: Vec<String> = analyses
        .flat_map(|m| files_of(m))
        .filter(|file| code(file).contains("FileContext"))
        .map(|file| file.display().to_string())
        .collect();
    assert!(offenders.is_empty(), "analyses that see FileContext: {offenders:?}");
}

#[test]
fn the_check_catches_an_import_upwards() {
    assert_eq!(against_layering("flow", "use crate::context::FileContext;\nuse crate::scopes::Scopes;"), ["context"]);
    assert_eq!(against_layering("scopes", "use crate::queries::ALL;"), ["queries"]);
    assert!(against_layering("calls", "use crate::classes::Classes;\nuse crate::project::Resolved;").is_empty());
}
