//! A reader for the WordNet 3.0 database files (`index.*`, `data.*`, `*.exc`)
//! that answers the one question nltk's METEOR asks: the lemma names of all
//! synsets of a word, found through nltk's `morphy` lemmatization.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::EvalError;

/// Where Debian's `wordnet-base` package installs the database.
pub const DEFAULT_DIR: &str = "/usr/share/wordnet";

/// Environment variable naming a WordNet `dict` directory.
pub const ENV_VAR: &str = "QUARRY_WORDNET_DIR";

/// Parts of speech in nltk's `POS_LIST` order, with their file suffixes.
const POS: [(char, &str); 4] = [('n', "noun"), ('v', "verb"), ('a', "adj"), ('r', "adv")];

/// nltk's `MORPHOLOGICAL_SUBSTITUTIONS` per part of speech.
const SUBSTITUTIONS: [&[(&str, &str)]; 4] = [
    &[
        ("s", ""),
        ("ses", "s"),
        ("ves", "f"),
        ("xes", "x"),
        ("zes", "z"),
        ("ches", "ch"),
        ("shes", "sh"),
        ("men", "man"),
        ("ies", "y"),
    ],
    &[("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", "")],
    &[("er", ""), ("est", ""), ("er", "e"), ("est", "e")],
    &[],
];

/// One part of speech of the database.
#[derive(Debug, Default)]
struct PosData {
    /// lemma -> synset offsets (from `index.POS`).
    index: HashMap<String, Vec<usize>>,
    /// inflected form -> base forms (from `POS.exc`).
    exceptions: HashMap<String, Vec<String>>,
    /// The whole `data.POS` file.
    data: Vec<u8>,
}

/// The WordNet database, loaded into memory.
#[derive(Debug)]
pub struct WordNet {
    pos: Vec<PosData>,
    dir: PathBuf,
}

fn read(path: &Path) -> Result<Vec<u8>, EvalError> {
    quarry_stdx::read::read_bytes(path, quarry_stdx::read::MAX_DATA_FILE_BYTES).map_err(EvalError::Io)
}

fn format_err(path: &Path, line: usize, message: &str) -> EvalError {
    EvalError::WordNetFormat { path: path.to_path_buf(), line, message: message.to_string() }
}

impl WordNet {
    /// The directory to use: `explicit`, else `$QUARRY_WORDNET_DIR`, else
    /// [`DEFAULT_DIR`].
    pub fn resolve_dir(explicit: Option<&Path>) -> PathBuf {
        if let Some(p) = explicit {
            return p.to_path_buf();
        }
        match std::env::var_os(ENV_VAR) {
            Some(v) if !v.is_empty() => PathBuf::from(v),
            _ => PathBuf::from(DEFAULT_DIR),
        }
    }

    /// True when `dir` holds the files this reader needs.
    pub fn is_present(dir: &Path) -> bool {
        POS.iter().all(|(_, s)| {
            dir.join(format!("index.{s}")).is_file()
                && dir.join(format!("data.{s}")).is_file()
                && dir.join(format!("{s}.exc")).is_file()
        })
    }

    /// Loads the database from a WordNet 3.0 `dict` directory.
    pub fn open(dir: &Path) -> Result<WordNet, EvalError> {
        let mut pos = Vec::with_capacity(4);
        for (p, suffix) in POS {
            let mut d = PosData::default();
            let index_path = dir.join(format!("index.{suffix}"));
            let text = String::from_utf8_lossy(&read(&index_path)?).into_owned();
            for (lineno, line) in text.lines().enumerate() {
                if line.starts_with(' ') || line.is_empty() {
                    continue;
                }
                let (lemma, offsets) =
                    parse_index_line(line).ok_or_else(|| format_err(&index_path, lineno + 1, "bad index entry"))?;
                if !lemma.1.starts_with(p) {
                    return Err(format_err(&index_path, lineno + 1, "unexpected part of speech"));
                }
                d.index.insert(lemma.0, offsets);
            }
            let exc_path = dir.join(format!("{suffix}.exc"));
            let text = String::from_utf8_lossy(&read(&exc_path)?).into_owned();
            for line in text.lines() {
                let mut terms = line.split_whitespace();
                if let Some(first) = terms.next() {
                    d.exceptions.insert(first.to_string(), terms.map(str::to_string).collect());
                }
            }
            d.data = read(&dir.join(format!("data.{suffix}")))?;
            pos.push(d);
        }
        Ok(WordNet { pos, dir: dir.to_path_buf() })
    }

    /// The directory the database was read from.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// nltk's `_morphy(form, pos)`: the form and its rule- or exception-based
    /// base forms that WordNet knows for this part of speech, in order.
    fn morphy(&self, form: &str, pos: usize) -> Vec<String> {
        let d = &self.pos[pos];
        let candidates: Vec<String> = match d.exceptions.get(form) {
            Some(bases) => bases.clone(),
            None => SUBSTITUTIONS[pos]
                .iter()
                .filter(|(old, _)| form.ends_with(old))
                .map(|(old, new)| format!("{}{}", &form[..form.len() - old.len()], new))
                .collect(),
        };
        let mut out: Vec<String> = Vec::new();
        for f in std::iter::once(form.to_string()).chain(candidates) {
            if d.index.contains_key(&f) && !out.contains(&f) {
                out.push(f);
            }
        }
        out
    }

    /// Lemma names of the synset at `offset` in `data.POS`, with nltk's
    /// adjective markers such as `(a)` removed.
    fn lemma_names(&self, pos: usize, offset: usize) -> Vec<String> {
        let data = &self.pos[pos].data;
        if offset >= data.len() {
            return Vec::new();
        }
        let end = data[offset..].iter().position(|&b| b == b'\n').map_or(data.len(), |e| offset + e);
        let line = String::from_utf8_lossy(&data[offset..end]);
        let columns = line.split('|').next().unwrap_or("");
        let mut it = columns.split_whitespace();
        let (Some(_off), Some(_lex), Some(_ty), Some(count)) = (it.next(), it.next(), it.next(), it.next()) else {
            return Vec::new();
        };
        let n = usize::from_str_radix(count, 16).unwrap_or(0);
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            let Some(name) = it.next() else { break };
            it.next(); // lex_id
            names.push(strip_marker(name).to_string());
        }
        names
    }

    /// The union of lemma names of every synset of `word` in any part of
    /// speech, as nltk's METEOR collects them (`wordnet.synsets(word)`).
    pub fn synonym_names(&self, word: &str) -> HashSet<String> {
        let lemma = crate::pytext::lower(word);
        let mut out = HashSet::new();
        for pos in 0..POS.len() {
            for form in self.morphy(&lemma, pos) {
                for &offset in &self.pos[pos].index[&form] {
                    out.extend(self.lemma_names(pos, offset));
                }
            }
        }
        out
    }
}

/// Strips a trailing syntactic marker `(x)` (nltk: `(.*?)(\([^()]*\))?$`).
fn strip_marker(name: &str) -> &str {
    if let (Some(open), true) = (name.rfind('('), name.ends_with(')')) {
        let inner = &name[open + 1..name.len() - 1];
        if !inner.contains(['(', ')']) {
            return &name[..open];
        }
    }
    name
}

/// Parses `lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...`.
#[allow(clippy::type_complexity)]
fn parse_index_line(line: &str) -> Option<((String, String), Vec<usize>)> {
    let mut it = line.split_whitespace();
    let lemma = it.next()?.to_string();
    let pos = it.next()?.to_string();
    let n_synsets: usize = it.next()?.parse().ok()?;
    let n_pointers: usize = it.next()?.parse().ok()?;
    for _ in 0..n_pointers {
        it.next()?;
    }
    let _n_senses: usize = it.next()?.parse().ok()?;
    it.next()?;
    let offsets = (0..n_synsets).map(|_| it.next()?.parse().ok()).collect::<Option<Vec<usize>>>()?;
    Some(((lemma, pos), offsets))
}

#[cfg(test)]
mod tests {
    use super::strip_marker;

    #[test]
    fn markers() {
        assert_eq!(strip_marker("beautiful(a)"), "beautiful");
        assert_eq!(strip_marker("a(b)(c)"), "a(b)");
        assert_eq!(strip_marker("plain"), "plain");
    }
}
