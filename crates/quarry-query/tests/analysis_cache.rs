//! The analysis cache ([`quarry_query::cache`]): a second run takes every
//! file from it with the same findings; an edit re-analyses the file and
//! exactly the files that import it when what they see of it changed, the
//! file alone when not; other settings or another build re-analyse
//! everything; a corrupt entry is analysed again and rewritten; two runs
//! writing the same cache at once both get the right findings; a view of
//! the cache told of an unsaved edit serves no stale findings, nor does a
//! run over a file set that gives a module name a file's imports write
//! another meaning or an imported package new submodules.

use std::path::{Path, PathBuf};

use quarry_query::cache::run::{analyze_files_cached, CacheCounts, CacheView};
use quarry_query::cache::AnalysisCache;
use quarry_query::project::Project;
use quarry_query::report::{FileReport, WorkLimits};
use quarry_query::run::{analyze_files, RunOptions};
use quarry_query::{all_queries, find_query, Polarity};

const BASE: &str = "class Base:\n    def __init__(self):\n        self.x = 1\n";
const CHILD: &str = "from base import Base\n\nclass Child(Base):\n    def __init__(self):\n        self.y = 2\n";
const GRANDCHILD: &str = "import child\n\nclass Grand(child.Child):\n    pass\n";
const ALONE: &str = "import os\n\ndef f(x):\n    return x\n";

fn options(queries: Vec<&'static quarry_query::Query>) -> RunOptions {
    RunOptions {
        queries,
        polarities: vec![Polarity::Positive],
        load: Default::default(),
        limits: WorkLimits::default(),
        chunk: 2,
    }
}

/// A project folder with the four modules.
fn project() -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, text) in [("base.py", BASE), ("child.py", CHILD), ("grandchild.py", GRANDCHILD), ("alone.py", ALONE)] {
        std::fs::write(dir.path().join(name), text).unwrap();
        files.push(dir.path().join(name));
    }
    (dir, files)
}

/// Each file's findings as (query id, answer text, line), in file order.
type Findings = Vec<(String, Vec<(String, String, usize)>)>;

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// A file's entry in [`Findings`].
fn found(path: &Path, report: FileReport) -> (String, Vec<(String, String, usize)>) {
    let findings = report
        .findings
        .iter()
        .map(|f| (f.query_id.to_string(), f.answer_spans[0].span.clone(), f.answer_spans[0].start_line))
        .collect();
    (name(path), findings)
}

fn cached(files: &[PathBuf], cache: &AnalysisCache, options: &RunOptions) -> (CacheCounts, Findings) {
    let project = Project::new(files, &options.load);
    let mut findings = Vec::new();
    let counts = analyze_files_cached(&project, files, options, cache, &|_| {}, |path, report| {
        findings.push(found(path, report.unwrap()));
        Ok::<(), ()>(())
    })
    .unwrap();
    (counts, findings)
}

fn uncached(files: &[PathBuf], options: &RunOptions) -> Findings {
    let mut findings = Vec::new();
    analyze_files(files, options, |path, report| {
        findings.push(found(path, report.unwrap()));
        Ok::<(), ()>(())
    })
    .unwrap();
    findings
}

fn counts(hits: usize, analysed: usize) -> CacheCounts {
    CacheCounts { hits, analysed, write_errors: 0 }
}

#[test]
fn a_second_run_reads_every_file_from_the_cache_with_the_same_findings() {
    let (dir, files) = project();
    let cache = AnalysisCache::open(&dir.path().join(".quarry_cache")).unwrap();
    let options = options(all_queries());
    let (first, findings) = cached(&files, &cache, &options);
    assert_eq!(first, counts(0, 4));
    assert_eq!(findings, uncached(&files, &options));
    assert!(findings.iter().any(|(_, f)| f.iter().any(|(q, _, _)| q == "missing-call-to-init")), "{findings:?}");
    let (second, again) = cached(&files, &cache, &options);
    assert_eq!(second, counts(4, 0));
    assert_eq!(again, findings);
    assert!(dir.path().join(".quarry_cache/CACHEDIR.TAG").is_file());
}

#[test]
fn an_edit_invalidates_the_file_and_exactly_the_files_that_depend_on_what_it_exports() {
    let (dir, files) = project();
    let cache = AnalysisCache::open(&dir.path().join(".quarry_cache")).unwrap();
    let options = options(all_queries());
    cached(&files, &cache, &options);
    // A body-only edit: what other modules see of base.py is the same.
    std::fs::write(&files[0], BASE.replace("self.x = 1", "self.x = 2")).unwrap();
    let (run, findings) = cached(&files, &cache, &options);
    assert_eq!(run, counts(3, 1));
    assert_eq!(findings, uncached(&files, &options));
    // Base no longer defines __init__: child.py (imports it) and
    // grandchild.py (imports child) are analysed again, alone.py is not.
    std::fs::write(&files[0], "class Base:\n    pass\n").unwrap();
    let (run, findings) = cached(&files, &cache, &options);
    assert_eq!(run, counts(1, 3));
    assert_eq!(findings, uncached(&files, &options));
    assert!(!findings[1].1.iter().any(|(q, _, _)| q == "missing-call-to-init"), "{findings:?}");
    assert_eq!(cached(&files, &cache, &options).0, counts(4, 0));
}

#[test]
fn other_settings_or_another_build_analyse_everything_again() {
    let (dir, files) = project();
    let folder = dir.path().join(".quarry_cache");
    let cache = AnalysisCache::open_version(&folder, "1-a").unwrap();
    let all = options(all_queries());
    cached(&files, &cache, &all);
    let one = options(vec![find_query("unused-import").unwrap()]);
    let (run, findings) = cached(&files, &cache, &one);
    assert_eq!(run, counts(0, 4));
    assert_eq!(findings, uncached(&files, &one));
    assert_eq!(cached(&files, &cache, &all).0, counts(4, 0));
    let other_build = AnalysisCache::open_version(&folder, "1-b").unwrap();
    assert!(!folder.join("v1-a").exists(), "the other version's entries were not pruned");
    assert_eq!(cached(&files, &other_build, &all).0, counts(0, 4));
}

#[test]
fn a_corrupt_entry_is_analysed_again_and_rewritten() {
    let (dir, files) = project();
    let folder = dir.path().join(".quarry_cache");
    let cache = AnalysisCache::open_version(&folder, "1").unwrap();
    let options = options(all_queries());
    let (_, findings) = cached(&files, &cache, &options);
    let mut corrupted = 0;
    for kind in ["results", "summaries"] {
        for entry in std::fs::read_dir(folder.join("v1").join(kind)).unwrap() {
            let path = entry.unwrap().path();
            let text = std::fs::read(&path).unwrap();
            std::fs::write(&path, &text[..text.len() / 2]).unwrap();
            corrupted += 1;
        }
    }
    assert!(corrupted >= 8, "{corrupted} entries");
    let (run, again) = cached(&files, &cache, &options);
    assert_eq!(run, counts(0, 4));
    assert_eq!(again, findings);
    assert_eq!(cached(&files, &cache, &options).0, counts(4, 0));
}

#[test]
fn runs_writing_one_cache_at_once_get_the_right_findings() {
    let (dir, files) = project();
    let folder = dir.path().join(".quarry_cache");
    let options = options(all_queries());
    let expected = uncached(&files, &options);
    std::thread::scope(|scope| {
        let runs: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let cache = AnalysisCache::open_version(&folder, "1").unwrap();
                    cached(&files, &cache, &options)
                })
            })
            .collect();
        for run in runs {
            let (counts, findings) = run.join().unwrap();
            assert_eq!(counts.write_errors, 0);
            assert_eq!(findings, expected);
        }
    });
    let cache = AnalysisCache::open_version(&folder, "1").unwrap();
    let (run, findings) = cached(&files, &cache, &options);
    assert_eq!(run, counts(4, 0));
    assert_eq!(findings, expected);
}

#[test]
fn a_view_told_of_an_unsaved_edit_serves_no_stale_findings() {
    let (dir, files) = project();
    let cache = AnalysisCache::open(&dir.path().join(".quarry_cache")).unwrap();
    let options = options(all_queries());
    cached(&files, &cache, &options);
    let project = Project::new(&files, &options.load);
    let mut view = CacheView::new(&project, &files, &options, &cache);
    assert!(view.report(&project, &files[1]).is_some(), "child.py is not in the cache");
    // An editor's unsaved buffer: Base no longer defines __init__.
    let edited = project.edited(&files[0], Some(std::sync::Arc::from("class Base:\n    pass\n")));
    view.forget(edited.module_of(&files[0]).unwrap());
    assert!(view.report(&edited, &files[0]).is_none(), "an overlay came from the cache");
    assert!(view.report(&edited, &files[1]).is_none(), "child.py's findings are stale");
    assert!(view.report(&edited, &files[2]).is_none(), "grandchild.py's findings are stale");
    assert!(view.report(&edited, &files[3]).is_some(), "alone.py imports nothing that changed");
}

/// Writes `files` (path under `root`, text), creating their folders.
fn write_all(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// A run over `before` fills the cache; then `added` is written and a run
/// over `before` and `added` must find what an uncached run finds, which
/// for the file `changed` is not what it found before.
fn a_grown_file_set_serves_no_stale_findings(before: &[(&str, &str)], added: &[(&str, &str)], changed: &str) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write_all(root, before);
    let cache = AnalysisCache::open(&root.join(".quarry_cache")).unwrap();
    let options = options(all_queries());
    let first: Vec<PathBuf> = before.iter().map(|(p, _)| root.join(p)).collect();
    let (run, findings) = cached(&first, &cache, &options);
    assert_eq!(run, counts(0, first.len()));
    let was = findings.iter().find(|(f, _)| *f == name(Path::new(changed))).unwrap().clone();
    write_all(root, added);
    let mut second = first.clone();
    second.extend(added.iter().map(|(p, _)| root.join(p)));
    let expected = uncached(&second, &options);
    let now = expected.iter().find(|(f, _)| *f == name(Path::new(changed))).unwrap();
    assert_ne!(*now, was, "the added files change nothing in {changed}");
    let (run, findings) = cached(&second, &cache, &options);
    assert_eq!(findings, expected, "{changed}: stale findings from the cache ({run:?})");
    assert_eq!(cached(&second, &cache, &options), (counts(second.len(), 0), expected));
}

#[test]
fn a_wider_common_folder_gives_a_file_its_own_dotted_name() {
    // `ws.app` names nothing until a file outside `ws/` joins the run.
    let app = "from ws.app import *\n\n__all__ = ['f']\n\n\ndef f():\n    pass\n";
    a_grown_file_set_serves_no_stale_findings(
        &[("ws/app.py", app), ("ws/b.py", "import os\n")],
        &[("x/tool.py", "import os\n\nprint(os.getcwd())\n")],
        "ws/app.py",
    );
}

#[test]
fn a_new_init_renames_a_module_that_imports_itself_by_its_old_name() {
    // `from m import *` in pkg/m.py names itself until pkg/__init__.py makes it `pkg.m`.
    let m = "from m import *\n\n__all__ = ['f']\n\n\ndef f():\n    pass\n";
    a_grown_file_set_serves_no_stale_findings(
        &[("ws/pkg/m.py", m), ("ws/main.py", "import os\n")],
        &[("ws/pkg/__init__.py", "")],
        "ws/pkg/m.py",
    );
}

#[test]
fn a_new_submodule_read_as_an_attribute_of_an_imported_package() {
    a_grown_file_set_serves_no_stale_findings(
        &[
            ("ws/pkg/__init__.py", ""),
            ("ws/app.py", "import pkg\n\n\nclass Point(pkg.shapes.Base):\n    pass\n\n\nPoint(1, 2, 3)\n"),
        ],
        &[("ws/pkg/shapes.py", "class Base:\n    def __init__(self, x):\n        self.x = x\n")],
        "ws/app.py",
    );
}

#[test]
fn a_new_module_below_a_subpackage_read_as_attributes_of_an_imported_package() {
    a_grown_file_set_serves_no_stale_findings(
        &[
            ("ws/pkg/__init__.py", ""),
            ("ws/pkg/sub/__init__.py", ""),
            ("ws/app.py", "import pkg\n\n\nclass Point(pkg.sub.leaf.Base):\n    pass\n\n\nPoint(1, 2, 3)\n"),
        ],
        &[("ws/pkg/sub/leaf.py", "class Base:\n    def __init__(self, x):\n        self.x = x\n")],
        "ws/app.py",
    );
}

#[test]
fn an_edit_of_a_submodule_read_as_an_attribute_of_an_imported_package_serves_no_stale_findings() {
    // app.py imports `pkg` only; `pkg.shapes` is a submodule it reads as an attribute.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let app = "import pkg\n\n\nclass Point(pkg.shapes.Base):\n    pass\n\n\nPoint(1, 2, 3)\n";
    let shapes = "class Base:\n    def __init__(self, x):\n        self.x = x\n";
    write_all(root, &[("ws/pkg/__init__.py", ""), ("ws/app.py", app), ("ws/pkg/shapes.py", shapes)]);
    let files: Vec<PathBuf> =
        ["ws/pkg/__init__.py", "ws/app.py", "ws/pkg/shapes.py"].iter().map(|p| root.join(p)).collect();
    let cache = AnalysisCache::open(&root.join(".quarry_cache")).unwrap();
    let options = options(all_queries());
    let (first, findings) = cached(&files, &cache, &options);
    assert_eq!(first, counts(0, 3));
    let wrong_number = |findings: &Findings| findings[1].1.iter().any(|(q, _, _)| q == "wrong-number-class-arguments");
    assert!(wrong_number(&findings), "{findings:?}");
    // Base now takes three arguments: app.py's call is right, and its entry stale.
    std::fs::write(&files[2], shapes.replace("(self, x)", "(self, x, y, z)")).unwrap();
    let expected = uncached(&files, &options);
    assert!(!wrong_number(&expected), "{expected:?}");
    let (second, findings) = cached(&files, &cache, &options);
    assert_eq!(findings, expected, "app.py: stale findings from the cache ({second:?})");
    assert_eq!(second, counts(1, 2));
    assert_eq!(cached(&files, &cache, &options), (counts(3, 0), expected));
}
