//! The project model on a fixture package (`tests/project`): imported bases,
//! relative and absolute imports, re-exports through `__init__.py` and
//! `import *` with `__all__`, and an import cycle. Q2, Q10, Q14 and Q15
//! must find in the package what they find when the same classes sit in
//! one file (`tests/project/single/single.py`, where the name that the
//! package cannot resolve is imported from outside).

use std::path::{Path, PathBuf};

use quarry_query::project::{ExternalClass, ModuleId, Project, Resolved};
use quarry_query::report::{analyze_file_within, WorkLimits};
use quarry_query::run::{analyze_files, RunOptions};
use quarry_query::{find_query, Polarity};
use quarry_syntax::corpus::source_files;
use quarry_syntax::{Language, LoadOptions};

fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/project").join(path)
}

fn options(ids: &[&str]) -> RunOptions {
    RunOptions {
        queries: ids.iter().map(|id| find_query(id).expect("query exists")).collect(),
        polarities: vec![Polarity::Positive],
        load: LoadOptions::default(),
        limits: WorkLimits::default(),
        chunk: 4,
    }
}

/// `(query id, answer text)` of every positive finding over `paths`, sorted.
fn answers(paths: &[PathBuf], ids: &[&str]) -> Vec<(String, String)> {
    let (files, errors) = source_files(paths, Language::Python);
    assert!(errors.is_empty(), "{errors:?}");
    let mut found = Vec::new();
    analyze_files(&files, &options(ids), |path, report| -> Result<(), String> {
        let report = report.map_err(|e| format!("{}: {e}", path.display()))?;
        for finding in report.findings {
            found.push((finding.query_id.to_string(), finding.answer_spans[0].span.clone()));
        }
        Ok(())
    })
    .unwrap();
    found.sort();
    found
}

const QUERIES: [&str; 4] =
    ["missing-call-to-init", "conflicting-attributes", "wrong-number-class-arguments", "incomplete-ordering"];

#[test]
fn package_finds_what_one_file_finds() {
    let package = answers(&[fixture("pkg")], &QUERIES);
    let single = answers(&[fixture("single")], &QUERIES);
    let expected: Vec<(String, String)> = [
        ("conflicting-attributes", "class Server(Mixin, Base):"),
        ("incomplete-ordering", "class Ordered(object):"),
        ("incomplete-ordering", "class Version(Ordered):"),
        ("missing-call-to-init", "class Derived(Base):"),
        ("wrong-number-class-arguments", "Point(1)"),
    ]
    .iter()
    .map(|(q, a)| (q.to_string(), a.to_string()))
    .collect();
    assert_eq!(single, expected);
    assert_eq!(package, expected);
}

/// Answers that need a definition from another module of the package: a
/// base `__eq__` (missing-equals), the signature of a function imported
/// through a re-export (wrong-number-arguments; a function from outside
/// the tree, `far`, stays unjudged) and an `__init__` inherited through an
/// imported base (missing-call-to-init, conflicting-attributes, above).
#[test]
fn cross_module_answers_match_one_file() {
    let ids = ["missing-equals", "wrong-number-arguments"];
    let package = answers(&[fixture("pkg")], &ids);
    let single = answers(&[fixture("single")], &ids);
    let expected = vec![
        ("missing-equals".to_string(), "class Tagged(Keyed):".to_string()),
        ("wrong-number-arguments".to_string(), "scale(1)".to_string()),
    ];
    assert_eq!(single, expected);
    assert_eq!(package, expected);
}

#[test]
fn polluting_import_reads_all_of_project_modules() {
    let found = answers(&[fixture("pkg")], &["polluting-import"]);
    // `helpers` has no `__all__`; `shapes` has one.
    assert_eq!(found, [("polluting-import".to_string(), "from pkg.helpers import *".to_string())]);
}

#[test]
fn a_stub_beside_its_module_does_not_hide_the_modules_all() {
    // attrs ships `attr/converters.pyi` beside `attr/converters.py`: both are
    // named `attr.converters`, and the `.py` (with `__all__`) is the module.
    let dir = tempfile::tempdir().expect("temporary directory");
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).expect("package folder");
    std::fs::write(pkg.join("__init__.py"), "").expect("write");
    std::fs::write(pkg.join("m.py"), "__all__ = ['f']\n\ndef f():\n    pass\n").expect("write");
    std::fs::write(pkg.join("m.pyi"), "def f() -> None: ...\n").expect("write");
    std::fs::write(dir.path().join("use.py"), "from pkg.m import *\n\nf()\n").expect("write");
    let found = answers(&[dir.path().to_path_buf()], &["polluting-import"]);
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn names_resolve_through_reexports_and_cycles_end() {
    let (files, _) = source_files(&[fixture("pkg")], Language::Python);
    let project = Project::new(&files, &LoadOptions::default());
    let module = |name: &str| {
        (0..project.modules().len()).map(ModuleId::new).find(|&m| project.modules().name(m) == name).unwrap()
    };
    let derived = module("pkg.sub.derived");
    let class = |m: &str, class: usize| Resolved::Class(ExternalClass { module: module(m), class });
    assert_eq!(project.resolve_name(derived, "Base"), class("pkg.base", 0));
    assert_eq!(project.resolve_name(derived, "Ordered"), class("pkg.shapes", 1));
    assert_eq!(project.resolve_name(module("pkg"), "Point"), class("pkg.shapes", 0));
    assert_eq!(project.resolve_name(derived, "Loop"), Resolved::Unknown);
    assert_eq!(project.resolve_name(module("pkg.cycle_a"), "shapes"), Resolved::Module(module("pkg.shapes")));
    // `_Hidden` is not exported by `import *` (not in `__all__`).
    assert_eq!(project.resolve_name(derived, "_Hidden"), Resolved::Unknown);
    // The MRO of `Again(shapes.Point)` crosses a module through a module attribute.
    let again = ExternalClass { module: module("pkg.cycle_a"), class: 0 };
    let mro = quarry_query::classes::external_mro(&project, again, &mut Default::default());
    assert_eq!(mro.len(), 3, "{mro:?}");
}

#[test]
fn a_file_alone_keeps_its_package_name_and_leaves_imports_unknown() {
    let path = fixture("pkg/sub/derived.py");
    let project = Project::new(std::slice::from_ref(&path), &LoadOptions::default());
    assert_eq!(project.modules().name(ModuleId::new(0)), "pkg.sub.derived");
    let queries: Vec<_> = QUERIES.iter().map(|id| find_query(id).unwrap()).collect();
    let report =
        analyze_file_within(&path, &queries, &[Polarity::Positive], &LoadOptions::default(), &WorkLimits::default())
            .unwrap();
    // Every base is imported from a file outside this one-file project.
    assert!(report.findings.is_empty(), "{:?}", report.findings);
}
