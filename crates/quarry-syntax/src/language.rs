//! The languages quarry parses and how a file's language is chosen.

use std::path::Path;

/// A source language quarry can parse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// Python 3, with Python 2 constructs (print statements, exec) accepted.
    Python,
    /// Java.
    Java,
}

impl Language {
    /// The language of a file, chosen by its extension (`.py`, `.pyw`, `.pyi`, `.java`).
    pub fn from_path(path: &Path) -> Option<Language> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "py" | "pyw" | "pyi" => Some(Language::Python),
            "java" => Some(Language::Java),
            _ => None,
        }
    }

    /// Parses a language name such as `python`, `py` or `java`.
    pub fn from_name(name: &str) -> Option<Language> {
        match name.to_ascii_lowercase().as_str() {
            "python" | "py" | "python3" | "python2" => Some(Language::Python),
            "java" => Some(Language::Java),
            _ => None,
        }
    }

    /// The lowercase name of the language.
    pub fn name(self) -> &'static str {
        match self {
            Language::Python => "python",
            Language::Java => "java",
        }
    }

    /// The tree-sitter grammar for this language.
    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Python => tree_sitter_python::LANGUAGE.into(),
            Language::Java => tree_sitter_java::LANGUAGE.into(),
        }
    }
}

impl std::str::FromStr for Language {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Language::from_name(name).ok_or_else(|| format!("unknown language `{name}` (expected python or java)"))
    }
}
