//! The mutations of the incorrect-code tasks. Each returns the mutated
//! tokens, or `None` when the method offers nothing to mutate; a returned
//! mutation always differs from the original.

use quarry_stdx::rng::SplitMix64;
use quarry_syntax::kinds::java::{Field, JavaNode, Kind};
use quarry_syntax::walk::Preorder;
use quarry_syntax::TokenKind;

use crate::corpus::Method;
use crate::java::{parse_method, CLASS_PREFIX};

/// Java's primitive type names (TYP misspells one of them).
pub const PRIMITIVE_TYPES: &[&str] = &["boolean", "byte", "char", "short", "int", "long", "float", "double"];

/// Keyword categories: SCK swaps a keyword for another of its category.
pub const KEYWORD_CATEGORIES: &[&[&str]] = &[
    PRIMITIVE_TYPES,
    &[
        "public",
        "private",
        "protected",
        "static",
        "final",
        "abstract",
        "synchronized",
        "native",
        "transient",
        "volatile",
        "strictfp",
    ],
    &["if", "else", "for", "while", "do", "switch", "case", "default", "break", "continue", "return"],
    &["try", "catch", "finally", "throw", "throws", "assert"],
    &["class", "interface", "enum", "extends", "implements", "new", "this", "super", "instanceof", "void"],
];

/// Relational operators (REA replaces one).
pub const RELATIONAL: &[&str] = &["<", ">", "<=", ">=", "==", "!="];

/// The Java grammar's kinds of the [`RELATIONAL`] operators, in the same order.
const RELATIONAL_KINDS: &[Kind] =
    &[Kind::Less, Kind::Greater, Kind::LessEqual, Kind::GreaterEqual, Kind::EqualEqual, Kind::NotEqual];

/// Assignment operators (REA's replacements).
pub const ASSIGNMENT: &[&str] = &["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>="];

fn all_keywords() -> impl Iterator<Item = &'static str> {
    KEYWORD_CATEGORIES.iter().flat_map(|c| c.iter().copied())
}

fn pick<T: Copy>(rng: &mut SplitMix64, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| items[rng.below(items.len())])
}

/// TYP: one occurrence of a primitive type misspelled (two adjacent letters
/// swapped, one dropped or one doubled), never into another keyword.
pub fn misspell_type(method: &Method, rng: &mut SplitMix64) -> Option<Vec<String>> {
    let mut tokens = method.token_texts();
    let positions: Vec<usize> = (0..tokens.len()).filter(|&i| PRIMITIVE_TYPES.contains(&tokens[i].as_str())).collect();
    let at = pick(rng, &positions)?;
    let word: Vec<char> = tokens[at].chars().collect();
    let mut variants: Vec<String> = Vec::new();
    for i in 0..word.len() {
        if i + 1 < word.len() && word[i] != word[i + 1] {
            let mut w = word.clone();
            w.swap(i, i + 1);
            variants.push(w.into_iter().collect());
        }
        let mut dropped = word.clone();
        dropped.remove(i);
        variants.push(dropped.into_iter().collect());
        let mut doubled = word.clone();
        doubled.insert(i, word[i]);
        variants.push(doubled.into_iter().collect());
    }
    variants.sort();
    variants.dedup();
    variants.retain(|v| v != &tokens[at] && !all_keywords().any(|k| k == v) && !v.is_empty());
    if variants.is_empty() {
        return None;
    }
    tokens[at] = variants[rng.below(variants.len())].clone();
    Some(tokens)
}

/// REA: one relational operator of a comparison (not a generic bracket)
/// replaced by an assignment operator.
pub fn relational_to_assignment(method: &Method, rng: &mut SplitMix64) -> Option<Vec<String>> {
    let mut tokens = method.token_texts();
    let text = method.text();
    let parsed = parse_method(&text)?;
    let mut starts = Vec::with_capacity(tokens.len());
    let mut offset = CLASS_PREFIX.len();
    for t in &tokens {
        starts.push(offset);
        offset += t.len() + 1;
    }
    let mut positions = Vec::new();
    for node in Preorder::new(parsed.root()) {
        if node.java_kind() == Kind::BinaryExpression {
            if let Some(op) = node.java_field(Field::Operator) {
                if RELATIONAL_KINDS.contains(&op.java_kind()) {
                    if let Ok(i) = starts.binary_search(&op.start_byte()) {
                        positions.push(i);
                    }
                }
            }
        }
    }
    let at = pick(rng, &positions)?;
    tokens[at] = pick(rng, ASSIGNMENT)?.to_string();
    Some(tokens)
}

/// JBL: two consecutive, different tokens swapped.
pub fn swap_adjacent(method: &Method, rng: &mut SplitMix64) -> Option<Vec<String>> {
    let mut tokens = method.token_texts();
    let positions: Vec<usize> = (0..tokens.len().saturating_sub(1)).filter(|&i| tokens[i] != tokens[i + 1]).collect();
    let at = pick(rng, &positions)?;
    tokens.swap(at, at + 1);
    Some(tokens)
}

/// SRI: one identifier occurrence replaced by another identifier of the method.
pub fn switch_identifier(method: &Method, rng: &mut SplitMix64) -> Option<Vec<String>> {
    let mut tokens = method.token_texts();
    let positions: Vec<usize> = (0..tokens.len()).filter(|&i| method.tokens[i].0 == TokenKind::Identifier).collect();
    let mut names: Vec<&str> = positions.iter().map(|&i| method.tokens[i].1.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    if names.len() < 2 {
        return None;
    }
    let at = pick(rng, &positions)?;
    let others: Vec<&str> = names.iter().copied().filter(|n| *n != tokens[at]).collect();
    tokens[at] = pick(rng, &others)?.to_string();
    Some(tokens)
}

/// SRK: one keyword replaced by a different random keyword.
pub fn switch_random_keyword(method: &Method, rng: &mut SplitMix64) -> Option<Vec<String>> {
    let keywords: Vec<&str> = all_keywords().collect();
    replace_keyword(method, rng, |_| keywords.clone())
}

/// SCK: one keyword replaced by a different keyword of the same category.
pub fn switch_compatible_keyword(method: &Method, rng: &mut SplitMix64) -> Option<Vec<String>> {
    replace_keyword(method, rng, |word| {
        KEYWORD_CATEGORIES.iter().find(|c| c.contains(&word)).map(|c| c.to_vec()).unwrap_or_default()
    })
}

fn replace_keyword(
    method: &Method,
    rng: &mut SplitMix64,
    choices: impl Fn(&str) -> Vec<&'static str>,
) -> Option<Vec<String>> {
    let mut tokens = method.token_texts();
    let positions: Vec<usize> = (0..tokens.len())
        .filter(|&i| method.tokens[i].0 == TokenKind::Keyword && choices(&tokens[i]).iter().any(|k| *k != tokens[i]))
        .collect();
    let at = pick(rng, &positions)?;
    let options: Vec<&str> = choices(&tokens[at]).into_iter().filter(|k| *k != tokens[at]).collect();
    tokens[at] = pick(rng, &options)?.to_string();
    Some(tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relational_kinds_are_the_relational_operators() {
        let names: Vec<&str> = RELATIONAL_KINDS.iter().map(|k| k.grammar_name().0).collect();
        assert_eq!(names, RELATIONAL);
    }
}
