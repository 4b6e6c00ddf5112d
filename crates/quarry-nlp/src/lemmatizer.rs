//! spaCy's rule-based English lemmatizer (`mode = "rule"`): base-form
//! checks from the morphology, then suffix rules, the index of known
//! lemmas and the exception table, per coarse part of speech.

use std::path::Path;

use rmpv::Value;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::hash::string_id;
use crate::msgpack::{self, as_text};
use crate::NlpError;

#[derive(Debug, Default)]
struct PosTables {
    rules: Vec<(String, String)>,
    exc: FxHashMap<String, Vec<String>>,
    index: FxHashSet<String>,
}

/// The lemmatizer's tables, per part of speech.
#[derive(Debug)]
pub struct Lemmatizer {
    by_pos: FxHashMap<u64, PosTables>,
}

/// A lookups table: spaCy string id of the key, value.
pub type Table = Vec<(u64, Value)>;

/// Reads a spaCy `Lookups` file: table name → table (keys are spaCy string
/// ids).
pub fn read_lookups(path: &Path) -> Result<Vec<(String, Table)>, NlpError> {
    let v = msgpack::read_file(path)?;
    let Value::Map(tables) = v else {
        return Err(NlpError::corrupt(path, "lookups are not a map of tables"));
    };
    let mut out = Vec::new();
    for (name, table) in tables {
        let name = as_text(&name).ok_or_else(|| NlpError::corrupt(path, "table name is not a string"))?.to_string();
        let Value::Map(entries) = table else {
            return Err(NlpError::corrupt(path, format!("table {name} is not a map")));
        };
        let mut rows = Vec::with_capacity(entries.len());
        for (k, v) in entries {
            let key = match &k {
                Value::Integer(i) => i.as_u64(),
                other => as_text(other).map(string_id),
            }
            .ok_or_else(|| NlpError::corrupt(path, format!("table {name}: bad key")))?;
            rows.push((key, v));
        }
        out.push((name, rows));
    }
    Ok(out)
}

fn strings(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().filter_map(as_text).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

impl Lemmatizer {
    /// Loads `lemmatizer/lookups/lookups.bin`.
    pub fn load(path: &Path) -> Result<Lemmatizer, NlpError> {
        let mut by_pos: FxHashMap<u64, PosTables> = FxHashMap::default();
        let mut have_rules = false;
        for (name, rows) in read_lookups(path)? {
            for (pos, v) in rows {
                let t = by_pos.entry(pos).or_default();
                match name.as_str() {
                    "lemma_rules" => {
                        have_rules = true;
                        if let Value::Array(rules) = &v {
                            for r in rules {
                                let pair = strings(r);
                                if pair.len() != 2 {
                                    return Err(NlpError::corrupt(path, "lemma rule is not a pair"));
                                }
                                t.rules.push((pair[0].clone(), pair[1].clone()));
                            }
                        }
                    }
                    "lemma_exc" => {
                        if let Value::Map(m) = &v {
                            for (k, forms) in m {
                                if let Some(k) = as_text(k) {
                                    t.exc.insert(k.to_string(), strings(forms));
                                }
                            }
                        }
                    }
                    "lemma_index" => t.index.extend(strings(&v)),
                    _ => {}
                }
            }
        }
        if !have_rules {
            return Err(NlpError::corrupt(path, "no lemma_rules table (needed by mode \"rule\")"));
        }
        Ok(Lemmatizer { by_pos })
    }

    /// The lemma of a token with text `text`, coarse tag `pos` and
    /// morphology `morph` (UD `Key=Value|...`).
    pub fn lemmatize(&self, text: &str, pos: &str, morph: &str) -> String {
        let univ_pos = pos.to_lowercase();
        if univ_pos.is_empty() || univ_pos == "eol" || univ_pos == "space" {
            return text.to_lowercase();
        }
        if is_base_form(&univ_pos, morph) {
            return text.to_lowercase();
        }
        let tables = self.by_pos.get(&string_id(&univ_pos));
        let Some(t) = tables.filter(|t| !t.rules.is_empty() || !t.exc.is_empty() || !t.index.is_empty()) else {
            return if univ_pos == "propn" { text.to_string() } else { text.to_lowercase() };
        };
        let string = text.to_lowercase();
        let mut forms: Vec<String> = Vec::new();
        let mut oov: Vec<String> = Vec::new();
        for (old, new) in &t.rules {
            if let Some(stem) = string.strip_suffix(old.as_str()) {
                let form = format!("{stem}{new}");
                if form.is_empty() {
                    continue;
                }
                if t.index.contains(&form) {
                    forms.insert(0, form);
                } else if !form.chars().all(char::is_alphabetic) {
                    forms.push(form);
                } else {
                    oov.push(form);
                }
            }
        }
        let mut dedup: Vec<String> = Vec::new();
        for f in forms {
            if !dedup.contains(&f) {
                dedup.push(f);
            }
        }
        let mut forms = dedup;
        if let Some(exc) = t.exc.get(&string) {
            for f in exc {
                if !forms.contains(f) {
                    forms.insert(0, f.clone());
                }
            }
        }
        if forms.is_empty() {
            forms = oov;
        }
        forms.into_iter().next().unwrap_or_else(|| text.to_string())
    }
}

/// spaCy's English `is_base_form`: forms that are their own lemma.
fn is_base_form(univ_pos: &str, morph: &str) -> bool {
    let feat =
        |k: &str| morph.split('|').find_map(|kv| kv.split_once('=').filter(|(key, _)| *key == k).map(|(_, v)| v));
    let verb_form = feat("VerbForm");
    if univ_pos == "noun" && feat("Number") == Some("Sing") {
        return true;
    }
    if univ_pos == "verb" && verb_form == Some("Inf") {
        return true;
    }
    if univ_pos == "verb" && verb_form == Some("Fin") && feat("Tense") == Some("Pres") && feat("Number").is_none() {
        return true;
    }
    if univ_pos == "adj" && feat("Degree") == Some("Pos") {
        return true;
    }
    verb_form == Some("Inf") || verb_form == Some("None") || feat("Degree") == Some("Pos")
}
