//! What a walk lists: each file once however it is named, and what git
//! ignores left out, as git reads `.gitignore`.

use std::path::{Path, PathBuf};

use quarry_syntax::corpus::source_files;
use quarry_syntax::Language;

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-walk-paths-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn touch(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "x = 1\n").unwrap();
}

fn names(files: &[PathBuf], root: &Path) -> Vec<String> {
    files.iter().map(|f| f.strip_prefix(root).unwrap_or(f).display().to_string()).collect()
}

#[test]
fn a_file_named_twice_is_listed_once() {
    let dir = temp_dir("twice");
    touch(&dir.join("a.py"));
    touch(&dir.join("sub/b.py"));
    let paths = [
        dir.join("a.py"),
        dir.join("./a.py"),
        dir.join("sub/../a.py"),
        dir.clone(),
        dir.join("sub/b.py"),
        dir.join("sub/./b.py"),
    ];
    let (files, errors) = source_files(&paths, Language::Python);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(files.len(), 2, "{files:?}");
    // The first spelling of each file is kept.
    assert!(files.contains(&dir.join("a.py")), "{files:?}");
    assert!(files.contains(&dir.join("sub/b.py")), "{files:?}");
}

#[test]
fn a_link_to_a_file_under_another_name_stays_a_file_of_its_own() {
    let dir = temp_dir("link");
    touch(&dir.join("a.py"));
    std::os::unix::fs::symlink(dir.join("a.py"), dir.join("b.py")).unwrap();
    let (files, _) = source_files(&[dir.join("a.py"), dir.join("b.py")], Language::Python);
    assert_eq!(names(&files, &dir), ["a.py", "b.py"]);
}

#[test]
fn a_lone_negation_in_gitignore_matches_nothing_as_in_git() {
    let dir = temp_dir("negation");
    for file in ["kept.py", "ignored.py", "build/out.py", "pkg/mod.py", "pkg/gen.py"] {
        touch(&dir.join(file));
    }
    // git reads `!` (and `!` with trailing blanks) as matching nothing.
    std::fs::write(dir.join(".gitignore"), "ignored.py\nbuild/\n!\n!  \n").unwrap();
    std::fs::write(dir.join("pkg/.gitignore"), "gen.py\n").unwrap();
    let (files, errors) = source_files(std::slice::from_ref(&dir), Language::Python);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(names(&files, &dir), ["kept.py", "pkg/mod.py"]);
    // A negation that names something still re-includes it, after the lone one.
    std::fs::write(dir.join(".gitignore"), "*.py\n!\n!kept.py\n").unwrap();
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    assert_eq!(names(&files, &dir), ["kept.py"]);
    // Without a lone `!`, the walk is the `ignore` crate's as before.
    std::fs::write(dir.join(".gitignore"), "ignored.py\nbuild/\n").unwrap();
    let (files, _) = source_files(std::slice::from_ref(&dir), Language::Python);
    assert_eq!(names(&files, &dir), ["kept.py", "pkg/mod.py"]);
}
