//! Where the `ignore` crate reads a `.gitignore` differently from git: a
//! line that is a lone `!` (trailing blanks aside). git reads it as the
//! negation of an empty pattern, which matches nothing; the crate turns it
//! into the negated pattern `**/`, which re-includes every path below the
//! file's folder, so files git ignores were analysed. The walk asks
//! [`NegationCheck::keeps`] about every entry the crate keeps: in a tree
//! with no such line (every ordinary tree) the answer is the crate's, and
//! below a `.gitignore` holding one, the entry's fate is decided again
//! from the `.ignore` and `.gitignore` files of its folders with those lines
//! left out, with the crate's precedence (nearest folder first, `.ignore`
//! before `.gitignore`). `.git/info/exclude` and the global excludes file
//! are not consulted again.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;

/// The ignore files of one folder, as git reads them.
struct Folder {
    /// `.ignore`, as the crate reads it (not a git file).
    ignore: Option<Gitignore>,
    /// `.gitignore` without its lone-`!` lines.
    gitignore: Option<Gitignore>,
    /// Whether this folder or one above it has a `.gitignore` with a lone
    /// `!` line (the crate's answer is then re-checked).
    affected: bool,
}

/// Re-checks the walk's entries below a `.gitignore` with a lone `!` line;
/// shared by the walk's filter (hence the lock), one per walk.
#[derive(Clone, Default)]
pub(crate) struct NegationCheck {
    state: Arc<Mutex<State>>,
}

/// What a walk has read so far.
#[derive(Default)]
struct State {
    /// Each folder's facts, by canonical path.
    folders: HashMap<PathBuf, Arc<Folder>>,
    /// The canonical path of each folder as the walk spells it.
    canonical: HashMap<PathBuf, Option<PathBuf>>,
}

impl NegationCheck {
    /// Whether git keeps `path` (a file or folder the crate kept).
    pub(crate) fn keeps(&self, path: &Path, is_dir: bool) -> bool {
        let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else { return true };
        let parent = if parent.as_os_str().is_empty() { Path::new(".") } else { parent };
        let Ok(mut state) = self.state.lock() else { return true };
        let state = &mut *state;
        let canonical =
            state.canonical.entry(parent.to_path_buf()).or_insert_with(|| std::fs::canonicalize(parent).ok());
        let Some(parent) = canonical.clone() else { return true };
        let folders = &mut state.folders;
        if !folder(folders, &parent).affected {
            return true;
        }
        let path = parent.join(name);
        let (mut ignore, mut gitignore) = (Match::None, Match::None);
        for dir in parent.ancestors() {
            let facts = folder(folders, dir);
            if ignore.is_none() {
                ignore = matched(&facts.ignore, &path, is_dir);
            }
            if gitignore.is_none() {
                gitignore = matched(&facts.gitignore, &path, is_dir);
            }
        }
        let decided = if ignore.is_none() { gitignore } else { ignore };
        !decided.is_ignore()
    }
}

/// How `matcher` (if any) sees `path`.
fn matched(matcher: &Option<Gitignore>, path: &Path, is_dir: bool) -> Match<()> {
    match matcher {
        Some(matcher) => matcher.matched(path, is_dir).map(|_| ()),
        None => Match::None,
    }
}

/// The facts of `dir` (a canonical folder), read once.
fn folder(folders: &mut HashMap<PathBuf, Arc<Folder>>, dir: &Path) -> Arc<Folder> {
    if let Some(facts) = folders.get(dir) {
        return facts.clone();
    }
    let above = dir.parent().is_some_and(|parent| folder(folders, parent).affected);
    let (gitignore, lone) = read(dir, ".gitignore", true);
    let (ignore, _) = read(dir, ".ignore", false);
    let facts = Arc::new(Folder { ignore, gitignore, affected: above || lone });
    folders.insert(dir.to_path_buf(), facts.clone());
    facts
}

/// The matcher of `dir/name`, if the file can be read, leaving lone-`!`
/// lines out when `git` is set, and whether it had one.
fn read(dir: &Path, name: &str, git: bool) -> (Option<Gitignore>, bool) {
    let Ok(text) = std::fs::read(dir.join(name)) else { return (None, false) };
    let text = String::from_utf8_lossy(&text);
    let text = text.trim_start_matches('\u{feff}');
    let mut builder = GitignoreBuilder::new(dir);
    let mut lone = false;
    for line in text.lines() {
        if git && is_lone_negation(line) {
            lone = true;
            continue;
        }
        // A line the crate cannot compile is left out, as the walk does.
        let _ = builder.add_line(Some(dir.join(name)), line);
    }
    (builder.build().ok(), lone)
}

/// Whether a `.gitignore` line is `!` alone: trailing spaces and tabs are
/// not part of a pattern, and an escaped space (`!\ `) would be one.
pub(crate) fn is_lone_negation(line: &str) -> bool {
    line.trim_end_matches([' ', '\t', '\r']) == "!"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_negation_lines() {
        assert!(is_lone_negation("!"));
        assert!(is_lone_negation("!  \t"));
        assert!(!is_lone_negation("!a.py"));
        assert!(!is_lone_negation("\\!"));
        assert!(!is_lone_negation("!\\ "));
        assert!(!is_lone_negation(" !"));
    }
}
