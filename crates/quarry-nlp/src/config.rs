//! Reading and checking a spaCy `config.cfg`: which components run, and
//! whether quarry implements every architecture and setting they name.

use std::path::Path;

use crate::NlpError;

/// A parsed config: sections of `key = value` lines, values as written.
#[derive(Debug, Default)]
pub struct Config {
    sections: Vec<(String, Vec<(String, String)>)>,
}

impl Config {
    /// Parses config text (spaCy's INI dialect).
    pub fn parse(text: &str, path: &Path) -> Result<Config, NlpError> {
        let mut cfg = Config::default();
        for (no, raw) in text.lines().enumerate() {
            let line = raw.trim_end();
            let trimmed = line.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with(';') {
                continue;
            }
            if let Some(name) = trimmed.strip_prefix('[').and_then(|s| s.strip_suffix(']')) {
                cfg.sections.push((name.trim().to_string(), Vec::new()));
                continue;
            }
            let Some((_, entries)) = cfg.sections.last_mut() else {
                return Err(NlpError::corrupt(path, format!("line {}: setting outside any section", no + 1)));
            };
            if line.starts_with(char::is_whitespace) {
                // A continuation of the previous value.
                if let Some((_, v)) = entries.last_mut() {
                    v.push(' ');
                    v.push_str(trimmed);
                    continue;
                }
            }
            let Some((k, v)) = trimmed.split_once('=') else {
                return Err(NlpError::corrupt(path, format!("line {}: expected `key = value`", no + 1)));
            };
            entries.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok(cfg)
    }

    /// The raw value of `key` in `section`.
    pub fn get(&self, section: &str, key: &str) -> Option<&str> {
        self.sections
            .iter()
            .filter(|(s, _)| s == section)
            .flat_map(|(_, e)| e.iter())
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// A string value with its JSON quotes removed.
    pub fn get_str(&self, section: &str, key: &str) -> Option<String> {
        let v = self.get(section, key)?;
        match serde_json::from_str::<serde_json::Value>(v) {
            Ok(serde_json::Value::String(s)) => Some(s),
            _ => Some(v.to_string()),
        }
    }

    /// A list of strings (`["a","b"]`).
    pub fn get_list(&self, section: &str, key: &str) -> Vec<String> {
        self.get(section, key).and_then(|v| serde_json::from_str::<Vec<String>>(v).ok()).unwrap_or_default()
    }

    /// Section names, in order.
    pub fn section_names(&self) -> impl Iterator<Item = &str> {
        self.sections.iter().map(|(s, _)| s.as_str())
    }

    /// The value of an inline table such as `{"@tokenizers":"spacy.Tokenizer.v1"}`
    /// at `key`.
    pub fn inline_entry(&self, section: &str, key: &str, inner: &str) -> Option<String> {
        let v = self.get(section, key)?;
        let obj: serde_json::Value = serde_json::from_str(v).ok()?;
        obj.get(inner)?.as_str().map(str::to_string)
    }
}

/// The architectures quarry runs.
pub const ARCHITECTURES: &[&str] = &[
    "spacy.Tok2Vec.v2",
    "spacy.MultiHashEmbed.v2",
    "spacy.MaxoutWindowEncoder.v2",
    "spacy.Tagger.v2",
    "spacy.Tok2VecListener.v1",
    "spacy.TransitionBasedParser.v2",
];

/// The component factories quarry runs.
pub const FACTORIES: &[&str] = &["tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer"];

/// Factories quarry knows and leaves out (their annotations are not part
/// of a quarry `Doc`).
pub const SKIPPED: &[&str] = &["ner"];

/// Fails unless every architecture named under `prefix` is one quarry runs.
pub fn check_architectures(cfg: &Config, prefix: &str, path: &Path) -> Result<(), NlpError> {
    for section in cfg.section_names() {
        if section != prefix && !section.starts_with(&format!("{prefix}.")) {
            continue;
        }
        if let Some(arch) = cfg.get_str(section, "@architectures") {
            if !ARCHITECTURES.contains(&arch.as_str()) {
                return Err(NlpError::Unsupported {
                    path: path.to_path_buf(),
                    what: format!("architecture (in [{section}])"),
                    name: arch,
                    supported: ARCHITECTURES.join(", "),
                });
            }
        }
    }
    Ok(())
}

/// Fails unless `section.key` has the value `want` (compared as written,
/// JSON quotes removed); a missing key counts as the default `default_ok`.
pub fn require(cfg: &Config, section: &str, key: &str, want: &str, path: &Path) -> Result<(), NlpError> {
    match cfg.get_str(section, key) {
        Some(v) if v == want => Ok(()),
        None => Ok(()),
        Some(v) => Err(NlpError::Unsupported {
            path: path.to_path_buf(),
            what: format!("setting [{section}] {key}"),
            name: v,
            supported: want.to_string(),
        }),
    }
}
