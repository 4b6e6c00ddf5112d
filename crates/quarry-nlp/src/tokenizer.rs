//! spaCy's rule-based tokenizer: whitespace splitting, special cases
//! (exceptions), prefixes, suffixes, infixes and URLs, applied in the order
//! and with the quirks of spaCy's `Tokenizer`.

use std::path::Path;

use fancy_regex::Regex;
use rmpv::Value;
use rustc_hash::FxHashMap;

use crate::lexeme::py_isspace;
use crate::msgpack::{self, as_text, get};
use crate::pyregex::{self, Mode};
use crate::NlpError;

/// One token out of the tokenizer: a byte range of the text, a NORM set by
/// a special case, and whether one space follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawToken {
    /// Byte offset of the token's first byte.
    pub start: usize,
    /// Byte offset after the token's last byte.
    pub end: usize,
    /// The NORM a tokenizer exception gives the token.
    pub norm: Option<String>,
    /// True when a single space follows the token (spaCy's `whitespace_`).
    pub space: bool,
}

/// A piece of a special case: its text and optional NORM.
#[derive(Debug, Clone)]
struct SpecialPiece {
    orth: String,
    norm: Option<String>,
}

/// A special case the tokenizer must also look for after splitting,
/// because affix or infix rules (or spaces) break its string apart.
#[derive(Debug, Clone)]
struct SplitSpecial {
    /// The token texts the rules split the special case into.
    tokens: Vec<String>,
}

/// spaCy's tokenizer, loaded from the model's `tokenizer` file.
#[derive(Debug)]
pub struct Tokenizer {
    prefix: Option<Regex>,
    suffix: Option<Regex>,
    infix: Option<Regex>,
    token_match: Option<Regex>,
    url_match: Option<Regex>,
    specials: FxHashMap<String, Vec<SpecialPiece>>,
    /// Split special cases by their first token.
    split_specials: FxHashMap<String, Vec<SplitSpecial>>,
    /// The longest special case, in bytes.
    max_special_len: usize,
}

/// Bytes of a string the affix rules look at first.
const WINDOW: usize = 256;

/// The largest char boundary of `s` at or below `i`.
fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

// ORTH and NORM attribute ids in spaCy's symbol table.
const ORTH: u64 = 65;
const NORM: u64 = 67;

impl Tokenizer {
    /// Loads the `tokenizer` file of a model directory.
    pub fn load(path: &Path) -> Result<Tokenizer, NlpError> {
        let v = msgpack::read_file(path)?;
        let pattern = |key: &str, mode: Mode| -> Result<Option<Regex>, NlpError> {
            match get(&v, key) {
                None | Some(Value::Nil) => Ok(None),
                Some(p) => {
                    let p = as_text(p).ok_or_else(|| NlpError::corrupt(path, format!("{key} is not a string")))?;
                    pyregex::compile(p, mode)
                        .map(Some)
                        .map_err(|e| NlpError::corrupt(path, format!("{key}: cannot compile: {e}")))
                }
            }
        };
        let mut tok = Tokenizer {
            prefix: pattern("prefix_search", Mode::Search)?,
            suffix: pattern("suffix_search", Mode::Search)?,
            infix: pattern("infix_finditer", Mode::Search)?,
            token_match: pattern("token_match", Mode::Match)?,
            url_match: pattern("url_match", Mode::Match)?,
            specials: FxHashMap::default(),
            split_specials: FxHashMap::default(),
            max_special_len: 0,
        };
        let faster_heuristics = !matches!(get(&v, "faster_heuristics"), Some(Value::Boolean(false)));
        let Some(Value::Map(exceptions)) = get(&v, "exceptions") else {
            return Err(NlpError::corrupt(path, "no `exceptions` map"));
        };
        for (chunk, pieces) in exceptions {
            let chunk = as_text(chunk).ok_or_else(|| NlpError::corrupt(path, "exception key is not a string"))?;
            let Value::Array(pieces) = pieces else {
                return Err(NlpError::corrupt(path, format!("exception {chunk:?} is not a list")));
            };
            let mut out = Vec::new();
            for piece in pieces {
                let Value::Map(attrs) = piece else {
                    return Err(NlpError::corrupt(path, format!("exception {chunk:?}: piece is not a map")));
                };
                let mut orth = None;
                let mut norm = None;
                for (k, val) in attrs {
                    let id = k.as_u64().or_else(|| match as_text(k) {
                        Some("ORTH") => Some(ORTH),
                        Some("NORM") => Some(NORM),
                        _ => None,
                    });
                    match id {
                        Some(ORTH) => orth = as_text(val).map(str::to_string),
                        Some(NORM) => norm = as_text(val).map(str::to_string),
                        _ => {}
                    }
                }
                let orth =
                    orth.ok_or_else(|| NlpError::corrupt(path, format!("exception {chunk:?}: piece without ORTH")))?;
                out.push(SpecialPiece { orth, norm });
            }
            let joined: String = out.iter().map(|p| p.orth.as_str()).collect();
            if joined != chunk || out.is_empty() {
                return Err(NlpError::corrupt(path, format!("exception {chunk:?}: pieces do not spell it")));
            }
            tok.max_special_len = tok.max_special_len.max(chunk.len());
            tok.specials.insert(chunk.to_string(), out);
        }
        // Special cases that the affix rules would split must be found again
        // after splitting (spaCy's special-case matcher).
        let mut chunks: Vec<&String> = tok.specials.keys().collect();
        chunks.sort();
        let mut split = FxHashMap::<String, Vec<SplitSpecial>>::default();
        for chunk in chunks {
            let needs = !faster_heuristics
                || tok.find_prefix(chunk) > 0
                || !tok.find_infix(chunk).is_empty()
                || tok.find_suffix(chunk) > 0
                || chunk.contains(' ');
            if !needs {
                continue;
            }
            let toks = tok.tokenize_affixes(chunk, false);
            let tokens: Vec<String> = toks.iter().map(|t| chunk[t.start..t.end].to_string()).collect();
            if let Some(first) = tokens.first() {
                split.entry(first.clone()).or_default().push(SplitSpecial { tokens });
            }
        }
        tok.split_specials = split;
        Ok(tok)
    }

    /// Splits `text` into tokens.
    pub fn tokenize(&self, text: &str) -> Vec<RawToken> {
        let mut toks = self.tokenize_affixes(text, true);
        self.apply_split_specials(text, &mut toks);
        toks
    }

    /// Length of the prefix rule's match at the start of `s`. The rules
    /// match a few characters, so only the first [`WINDOW`] bytes are
    /// searched unless the match reaches the window's end; long tokens
    /// then cost no more than short ones.
    fn find_prefix(&self, s: &str) -> usize {
        let Some(re) = &self.prefix else { return 0 };
        if s.len() > WINDOW {
            let k = floor_boundary(s, WINDOW);
            if let Ok(Some(m)) = re.find(&s[..k]) {
                if m.end() < k {
                    return m.end() - m.start();
                }
            } else {
                return 0;
            }
        }
        match re.find(s) {
            Ok(Some(m)) => m.end() - m.start(),
            _ => 0,
        }
    }

    /// Length of the suffix rule's match at the end of `s` (the leftmost
    /// start from which a rule reaches the end, as Python's `search`
    /// finds it), looking at the last [`WINDOW`] bytes first.
    fn find_suffix(&self, s: &str) -> usize {
        let Some(re) = &self.suffix else { return 0 };
        if s.len() > WINDOW {
            let pos = floor_boundary(s, s.len() - WINDOW);
            match re.find_from_pos(s, pos) {
                Ok(Some(m)) if m.start() > pos => return m.end() - m.start(),
                Ok(None) => return 0,
                _ => {}
            }
        }
        match re.find(s) {
            Ok(Some(m)) => m.end() - m.start(),
            _ => 0,
        }
    }

    fn find_infix(&self, s: &str) -> Vec<(usize, usize)> {
        match &self.infix {
            Some(re) => re.find_iter(s).filter_map(|m| m.ok()).map(|m| (m.start(), m.end())).collect(),
            None => Vec::new(),
        }
    }

    fn is_match(re: &Option<Regex>, s: &str) -> bool {
        re.as_ref().is_some_and(|re| re.is_match(s).unwrap_or(false))
    }

    fn is_special(&self, s: &str, with_special: bool) -> bool {
        with_special && s.len() <= self.max_special_len && self.specials.contains_key(s)
    }

    /// Whitespace splitting and the affix rules (spaCy's
    /// `_tokenize_affixes`).
    fn tokenize_affixes(&self, text: &str, with_special: bool) -> Vec<RawToken> {
        let mut out = Vec::new();
        let Some(first) = text.chars().next() else {
            return out;
        };
        let mut in_ws = py_isspace(first);
        let mut start = 0;
        for (i, c) in text.char_indices() {
            if py_isspace(c) != in_ws {
                if start < i {
                    self.tokenize_span(text, start, i, with_special, &mut out);
                }
                if c == ' ' {
                    if let Some(last) = out.last_mut() {
                        last.space = true;
                    }
                    start = i + 1;
                } else {
                    start = i;
                }
                in_ws = !in_ws;
            }
        }
        if start < text.len() {
            self.tokenize_span(text, start, text.len(), with_special, &mut out);
            if let Some(last) = out.last_mut() {
                last.space = text.ends_with(' ') && !in_ws;
            }
        }
        out
    }

    fn push_special(&self, key: &str, offset: usize, out: &mut Vec<RawToken>) {
        let mut pos = offset;
        for piece in &self.specials[key] {
            out.push(RawToken { start: pos, end: pos + piece.orth.len(), norm: piece.norm.clone(), space: false });
            pos += piece.orth.len();
        }
    }

    fn plain(start: usize, end: usize) -> RawToken {
        RawToken { start, end, norm: None, space: false }
    }

    /// One whitespace-delimited span (spaCy's specials check, then
    /// `_split_affixes` and `_attach_tokens`).
    fn tokenize_span(&self, text: &str, s0: usize, e0: usize, with_special: bool, out: &mut Vec<RawToken>) {
        let span = &text[s0..e0];
        if self.is_special(span, with_special) {
            self.push_special(span, s0, out);
            return;
        }
        // Split affixes: the remaining string is text[lo..hi].
        let (mut lo, mut hi) = (s0, e0);
        let mut prefixes: Vec<(usize, usize)> = Vec::new();
        let mut suffixes: Vec<(usize, usize)> = Vec::new();
        let mut last_size = usize::MAX;
        while lo < hi && hi - lo != last_size {
            let string = &text[lo..hi];
            if Self::is_match(&self.token_match, string) {
                break;
            }
            if self.is_special(string, with_special) {
                break;
            }
            last_size = hi - lo;
            let pre_len = self.find_prefix(string);
            if pre_len != 0 {
                let minus_pre = &string[pre_len..];
                if !minus_pre.is_empty() && self.is_special(minus_pre, with_special) {
                    prefixes.push((lo, lo + pre_len));
                    lo += pre_len;
                    break;
                }
            }
            let suf_len = self.find_suffix(&string[pre_len..]);
            if suf_len != 0 {
                let minus_suf = &string[..string.len() - suf_len];
                if !minus_suf.is_empty() && self.is_special(minus_suf, with_special) {
                    suffixes.push((hi - suf_len, hi));
                    hi -= suf_len;
                    break;
                }
            }
            if pre_len != 0 && suf_len != 0 && pre_len + suf_len <= string.len() {
                prefixes.push((lo, lo + pre_len));
                suffixes.push((hi - suf_len, hi));
                lo += pre_len;
                hi -= suf_len;
            } else if pre_len != 0 {
                prefixes.push((lo, lo + pre_len));
                lo += pre_len;
            } else if suf_len != 0 {
                suffixes.push((hi - suf_len, hi));
                hi -= suf_len;
            }
        }
        // Attach tokens.
        for &(a, b) in &prefixes {
            out.push(Self::plain(a, b));
        }
        if lo < hi {
            let string = &text[lo..hi];
            if self.is_special(string, with_special) {
                self.push_special(string, lo, out);
            } else if Self::is_match(&self.token_match, string) || Self::is_match(&self.url_match, string) {
                out.push(Self::plain(lo, hi));
            } else {
                let matches = self.find_infix(string);
                if matches.is_empty() {
                    out.push(Self::plain(lo, hi));
                } else {
                    let mut start = 0;
                    for (ms, me) in matches {
                        if ms == 0 {
                            continue;
                        }
                        if ms != start {
                            out.push(Self::plain(lo + start, lo + ms));
                        }
                        if ms != me {
                            out.push(Self::plain(lo + ms, lo + me));
                        }
                        start = me;
                    }
                    if start < string.len() {
                        out.push(Self::plain(lo + start, hi));
                    }
                }
            }
        }
        for &(a, b) in suffixes.iter().rev() {
            out.push(Self::plain(a, b));
        }
    }

    /// spaCy's `_apply_special_cases`: special cases whose string the rules
    /// split are found as token sequences and replaced by their pieces.
    fn apply_split_specials(&self, text: &str, toks: &mut Vec<RawToken>) {
        if self.split_specials.is_empty() || toks.is_empty() {
            return;
        }
        // All matches (start, end) in tokens.
        let mut matches: Vec<(usize, usize)> = Vec::new();
        for i in 0..toks.len() {
            let first = &text[toks[i].start..toks[i].end];
            let Some(cands) = self.split_specials.get(first) else {
                continue;
            };
            for cand in cands {
                let n = cand.tokens.len();
                if i + n <= toks.len()
                    && cand.tokens.iter().enumerate().all(|(k, t)| &text[toks[i + k].start..toks[i + k].end] == t)
                    && !matches.contains(&(i, i + n))
                {
                    matches.push((i, i + n));
                }
            }
        }
        if matches.is_empty() {
            return;
        }
        // Longest first, then leftmost; a span is kept when neither its
        // first nor its last token is already taken.
        matches.sort_by(|a, b| (a.1 - a.0).cmp(&(b.1 - b.0)).then(b.0.cmp(&a.0)));
        let mut seen = vec![false; toks.len()];
        let mut kept = Vec::new();
        for &(s, e) in matches.iter().rev() {
            if !seen[s] && !seen[e - 1] {
                kept.push((s, e));
            }
            for flag in &mut seen[s..e] {
                *flag = true;
            }
        }
        kept.sort();
        let mut out = Vec::with_capacity(toks.len());
        let mut i = 0;
        let mut k = 0;
        while i < toks.len() {
            if k < kept.len() && kept[k].0 == i {
                let (s, e) = kept[k];
                k += 1;
                // The span's text, spaces between tokens included.
                let mut span_text = String::new();
                for (j, t) in toks[s..e].iter().enumerate() {
                    span_text.push_str(&text[t.start..t.end]);
                    if t.space && s + j + 1 < e {
                        span_text.push(' ');
                    }
                }
                if self.specials.contains_key(&span_text) {
                    let final_space = toks[e - 1].space;
                    let before = out.len();
                    // Pieces are laid out from the first token's offset;
                    // they spell the span text, so they line up with it.
                    let mut pos = toks[s].start;
                    for piece in &self.specials[&span_text] {
                        let mut start = pos;
                        // Skip the single spaces between tokens.
                        if text[start..].starts_with(' ') && !piece.orth.starts_with(' ') {
                            start += 1;
                        }
                        out.push(RawToken {
                            start,
                            end: start + piece.orth.len(),
                            norm: piece.norm.clone(),
                            space: false,
                        });
                        pos = start + piece.orth.len();
                    }
                    if out.len() > before {
                        if let Some(last) = out.last_mut() {
                            last.space = final_space;
                        }
                    }
                } else {
                    out.extend_from_slice(&toks[s..e]);
                }
                i = e;
            } else {
                out.push(toks[i].clone());
                i += 1;
            }
        }
        *toks = out;
    }
}
