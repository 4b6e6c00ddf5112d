//! spaCy's `attribute_ruler`: token patterns (the subset of spaCy's Matcher
//! they use: fixed-length sequences of token specs with exact values,
//! `IN`, `NOT_IN` and `REGEX`) that set POS, TAG, MORPH, LEMMA or DEP.
//! All patterns are matched on the doc as it is, then applied in pattern
//! order, so later patterns win.

use std::path::Path;

use fancy_regex::Regex;
use rmpv::Value;

use crate::doc::Token;
use crate::lexeme::is_space;
use crate::msgpack::{self, as_text, get};
use crate::pyregex::{self, Mode};
use crate::NlpError;

/// A token attribute a pattern can test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Orth,
    Lower,
    Tag,
    Pos,
    Dep,
    Lemma,
    Morph,
    IsSpace,
}

const FIELDS: &str = "ORTH, TEXT, LOWER, TAG, POS, DEP, LEMMA, MORPH, IS_SPACE";
const SETTABLE: &str = "POS, TAG, MORPH, LEMMA, DEP";

#[derive(Debug)]
enum Test {
    Eq(String),
    Bool(bool),
    In(Vec<String>),
    NotIn(Vec<String>),
    Regex(Box<Regex>),
}

#[derive(Debug)]
struct Rule {
    /// Alternative token sequences, each a list of (field, test) per token.
    patterns: Vec<Vec<Vec<(Field, Test)>>>,
    attrs: Vec<(Field, String)>,
    index: i64,
}

/// The attribute ruler's rules.
#[derive(Debug)]
pub struct AttributeRuler {
    rules: Vec<Rule>,
}

fn field(name: &str, path: &Path) -> Result<Field, NlpError> {
    Ok(match name {
        "ORTH" | "TEXT" => Field::Orth,
        "LOWER" => Field::Lower,
        "TAG" => Field::Tag,
        "POS" => Field::Pos,
        "DEP" => Field::Dep,
        "LEMMA" => Field::Lemma,
        "MORPH" => Field::Morph,
        "IS_SPACE" => Field::IsSpace,
        other => {
            return Err(NlpError::Unsupported {
                path: path.to_path_buf(),
                what: "token pattern attribute".into(),
                name: other.into(),
                supported: FIELDS.into(),
            })
        }
    })
}

fn text_list(v: &Value) -> Vec<String> {
    match v {
        Value::Array(a) => a.iter().filter_map(as_text).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

fn test(v: &Value, path: &Path) -> Result<Test, NlpError> {
    match v {
        Value::Boolean(b) => Ok(Test::Bool(*b)),
        Value::Map(m) => {
            let (op, arg) = m.first().ok_or_else(|| NlpError::corrupt(path, "empty pattern operator"))?;
            match as_text(op).unwrap_or("") {
                "IN" => Ok(Test::In(text_list(arg))),
                "NOT_IN" => Ok(Test::NotIn(text_list(arg))),
                "REGEX" => {
                    let p = as_text(arg).ok_or_else(|| NlpError::corrupt(path, "REGEX is not a string"))?;
                    let re = pyregex::compile(p, Mode::Search)
                        .map_err(|e| NlpError::corrupt(path, format!("REGEX {p:?}: {e}")))?;
                    Ok(Test::Regex(Box::new(re)))
                }
                other => Err(NlpError::Unsupported {
                    path: path.to_path_buf(),
                    what: "token pattern operator".into(),
                    name: other.into(),
                    supported: "IN, NOT_IN, REGEX".into(),
                }),
            }
        }
        other => match as_text(other) {
            Some(s) => Ok(Test::Eq(s.to_string())),
            None => Err(NlpError::corrupt(path, format!("unsupported pattern value {other}"))),
        },
    }
}

fn value<'a>(f: Field, t: &'a Token, lower: &'a str) -> &'a str {
    match f {
        Field::Orth => &t.text,
        Field::Lower => lower,
        Field::Tag => &t.tag,
        Field::Pos => &t.pos,
        Field::Dep => &t.dep,
        Field::Lemma => &t.lemma,
        Field::Morph => &t.morph,
        Field::IsSpace => "",
    }
}

fn passes(tests: &[(Field, Test)], t: &Token, lower: &str) -> bool {
    tests.iter().all(|(f, test)| {
        if *f == Field::IsSpace {
            return match test {
                Test::Bool(b) => is_space(&t.text) == *b,
                _ => false,
            };
        }
        let v = value(*f, t, lower);
        match test {
            Test::Eq(s) => v == s,
            Test::Bool(_) => false,
            Test::In(list) => list.iter().any(|s| s == v),
            Test::NotIn(list) => !list.iter().any(|s| s == v),
            Test::Regex(re) => re.is_match(v).unwrap_or(false),
        }
    })
}

impl AttributeRuler {
    /// Loads `attribute_ruler/patterns`.
    pub fn load(path: &Path) -> Result<AttributeRuler, NlpError> {
        let v = msgpack::read_file(path)?;
        let Value::Array(entries) = v else {
            return Err(NlpError::corrupt(path, "patterns are not a list"));
        };
        let mut rules = Vec::new();
        for e in &entries {
            let Some(Value::Array(pats)) = get(e, "patterns") else {
                return Err(NlpError::corrupt(path, "entry without patterns"));
            };
            let mut patterns = Vec::new();
            for pat in pats {
                let Value::Array(toks) = pat else {
                    return Err(NlpError::corrupt(path, "pattern is not a list of tokens"));
                };
                let mut seq = Vec::new();
                for tok in toks {
                    let Value::Map(spec) = tok else {
                        return Err(NlpError::corrupt(path, "token pattern is not a map"));
                    };
                    let mut tests = Vec::new();
                    for (k, val) in spec {
                        let name = as_text(k).unwrap_or("");
                        if name == "OP" {
                            return Err(NlpError::Unsupported {
                                path: path.to_path_buf(),
                                what: "token pattern operator".into(),
                                name: "OP".into(),
                                supported: "fixed-length patterns".into(),
                            });
                        }
                        tests.push((field(name, path)?, test(val, path)?));
                    }
                    seq.push(tests);
                }
                if !seq.is_empty() {
                    patterns.push(seq);
                }
            }
            let mut attrs = Vec::new();
            if let Some(Value::Map(m)) = get(e, "attrs") {
                for (k, val) in m {
                    let name = as_text(k).unwrap_or("");
                    let f = field(name, path)?;
                    if !matches!(f, Field::Pos | Field::Tag | Field::Morph | Field::Lemma | Field::Dep) {
                        return Err(NlpError::Unsupported {
                            path: path.to_path_buf(),
                            what: "attribute to set".into(),
                            name: name.into(),
                            supported: SETTABLE.into(),
                        });
                    }
                    let s = as_text(val).ok_or_else(|| NlpError::corrupt(path, "attribute value is not a string"))?;
                    attrs.push((f, s.to_string()));
                }
            }
            let index = get(e, "index").and_then(|i| i.as_i64()).unwrap_or(0);
            rules.push(Rule { patterns, attrs, index });
        }
        Ok(AttributeRuler { rules })
    }

    /// Applies the rules to the tokens.
    pub fn apply(&self, tokens: &mut [Token]) {
        let lowers: Vec<String> = tokens.iter().map(|t| t.text.to_lowercase()).collect();
        let n = tokens.len();
        let mut sets: Vec<(usize, usize)> = Vec::new();
        for (r, rule) in self.rules.iter().enumerate() {
            let mut spans: Vec<(usize, usize)> = Vec::new();
            for pat in &rule.patterns {
                let len = pat.len();
                for s in 0..n.saturating_sub(len - 1) {
                    if pat.iter().enumerate().all(|(k, tests)| passes(tests, &tokens[s + k], &lowers[s + k]))
                        && !spans.contains(&(s, s + len))
                    {
                        spans.push((s, s + len));
                    }
                }
            }
            spans.sort();
            for (s, e) in spans {
                let len = (e - s) as i64;
                let idx = if rule.index < 0 { len + rule.index } else { rule.index };
                if idx >= 0 && idx < len {
                    sets.push((r, s + idx as usize));
                }
            }
        }
        for (r, t) in sets {
            let tok = &mut tokens[t];
            for (f, v) in &self.rules[r].attrs {
                match f {
                    Field::Pos => tok.pos = v.clone(),
                    Field::Tag => tok.tag = v.clone(),
                    Field::Morph => tok.morph = if v == "_" { String::new() } else { v.clone() },
                    Field::Lemma => tok.lemma = v.clone(),
                    Field::Dep => tok.dep = v.clone(),
                    _ => {}
                }
            }
        }
    }
}
