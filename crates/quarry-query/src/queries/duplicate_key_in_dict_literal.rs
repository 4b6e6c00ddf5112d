//! Q29 "Duplicate key in dict literal": a key written twice in one dict
//! display; all but the last value are silently lost.
//!
//! ```python
//! COLORS = {"red": 1, "green": 2, "red": 3}
//! #         ^^^^^ answer              ^^^^^ supporting fact (overwrites it)
//! ```
//!
//! Keys are compared as constants: strings by value (prefix and quoting
//! ignored), numbers by value. Negative form: dict displays with two or more
//! constant keys, all distinct; their keys are the plausible answers.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "duplicate-key-in-dict-literal",
        name: "Duplicate key in dict literal",
        index: 29,
        hops: Hops::Single,
        description: "Duplicate key in dict literal. All but the last will be lost.",
        codeql: "python/ql/src/Expressions/DuplicateKeyInDictionaryLiteral.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &dict in cx.nodes(Kind::Dictionary) {
        let keys: Vec<(Node<'_>, String)> = crate::ast::named_children(dict)
            .into_iter()
            .filter(|c| c.py_kind() == Kind::Pair)
            .filter_map(|pair| pair.field(Field::Key))
            .filter_map(|key| constant_key(cx, key).map(|value| (key, value)))
            .collect();
        let mut duplicates = Vec::new();
        for (i, (first, value)) in keys.iter().enumerate() {
            // Report a key once, against the next key that overwrites it.
            if let Some((later, _)) = keys[i + 1..].iter().find(|(_, v)| v == value) {
                duplicates.push((*first, *later, value.clone()));
            }
        }
        match polarity {
            Polarity::Positive => {
                for (first, later, value) in duplicates {
                    findings.push(
                        RawFinding::answer(
                            cx.location(first),
                            format!("Dictionary key {value} is subsequently overwritten."),
                        )
                        .with_facts([cx.location(later)]),
                    );
                }
            }
            Polarity::Negative if duplicates.is_empty() && keys.len() >= 2 => {
                findings.push(RawFinding::new(
                    keys.iter().map(|(k, _)| cx.location(*k)).collect(),
                    Vec::new(),
                    "Dictionary keys are all distinct.",
                ));
            }
            Polarity::Negative => {}
        }
    }
    findings
}

/// A canonical value for a constant key: `s:text` for strings, `n:value` for numbers.
fn constant_key(cx: &FileContext<'_>, key: Node<'_>) -> Option<String> {
    let text = cx.text(key);
    match key.py_kind() {
        Kind::String => {
            let mut cursor = key.walk();
            if key.children(&mut cursor).any(|c| c.py_kind() == Kind::Interpolation) {
                return None;
            }
            let prefix_end = text.find(['\'', '"'])?;
            let prefix = text[..prefix_end].to_ascii_lowercase();
            let quote_len =
                if text[prefix_end..].starts_with("\"\"\"") || text[prefix_end..].starts_with("'''") { 3 } else { 1 };
            let body = text.get(prefix_end + quote_len..text.len().checked_sub(quote_len)?)?;
            let kind = if prefix.contains('b') { "b" } else { "s" };
            Some(format!("{kind}:{body}"))
        }
        Kind::Integer => {
            let digits = text.replace('_', "").to_ascii_lowercase();
            let digits = digits.trim_end_matches('l');
            let value = if let Some(hex) = digits.strip_prefix("0x") {
                i128::from_str_radix(hex, 16).ok()?
            } else if let Some(oct) = digits.strip_prefix("0o") {
                i128::from_str_radix(oct, 8).ok()?
            } else if let Some(bin) = digits.strip_prefix("0b") {
                i128::from_str_radix(bin, 2).ok()?
            } else {
                digits.parse().ok()?
            };
            Some(format!("n:{value}"))
        }
        _ => None,
    }
}
