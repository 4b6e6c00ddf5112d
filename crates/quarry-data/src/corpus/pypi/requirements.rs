//! The package list of `quarry corpus pypi`: one requirement a line, `name` or
//! `name==version`; `#` starts a comment.

use std::fmt;
use std::path::Path;

use crate::DataError;

/// One package to fetch: the newest release, or exactly one version.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Requirement {
    /// The project name as written.
    pub name: String,
    /// The pinned version, if any.
    pub version: Option<String>,
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.version {
            Some(version) => write!(f, "{}=={version}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// Whether `name` may be a project name (PEP 508: letters, digits, `.`, `_`, `-`).
pub fn is_project_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
}

/// Whether `version` may be a release's version (PEP 440 characters).
pub fn is_version(version: &str) -> bool {
    !version.is_empty()
        && !version.starts_with('.')
        && version.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-+!".contains(&b))
}

/// Parses the requirements of `text`, read from `path`; an error names the line.
pub fn parse_requirements(path: &Path, text: &str) -> Result<Vec<Requirement>, DataError> {
    let mut requirements = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let bad = |message: String| DataError::BadRecord { path: path.to_path_buf(), line: index + 1, message };
        let (name, version) = match line.split_once("==") {
            Some((name, version)) => (name.trim(), Some(version.trim())),
            None => (line, None),
        };
        if !is_project_name(name) {
            return Err(bad(format!(
                "{line:?} is not `name` or `name==version` (no other specifier, extra or marker)"
            )));
        }
        if let Some(version) = version.filter(|v| !is_version(v)) {
            return Err(bad(format!("{version:?} is not a version")));
        }
        requirements.push(Requirement { name: name.to_string(), version: version.map(str::to_string) });
    }
    Ok(requirements)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_pins_parse_and_anything_else_names_its_line() {
        let text = "# popular\nsix\n  attrs==23.2.0  # pinned\n\n";
        let parsed = parse_requirements(Path::new("list.txt"), text).unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].to_string(), "six");
        assert_eq!(parsed[1].to_string(), "attrs==23.2.0");
        let err = parse_requirements(Path::new("list.txt"), "six\nrequests>=2\n").unwrap_err().to_string();
        assert!(err.starts_with("list.txt:2:"), "{err}");
        let err = parse_requirements(Path::new("list.txt"), "six==../x\n").unwrap_err().to_string();
        assert!(err.contains("not a version"), "{err}");
    }
}
