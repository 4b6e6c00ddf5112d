//! The code metrics behind the deterministic tasks (LEN, OCU, VCU, CSC, MXN,
//! CPX; NPT lives in `npath`). Each is defined on the code tokens of one
//! method, or on its syntax tree where tokens cannot tell (variables).
//!
//! The definitions were fixed against INSPECT's released datasets: they
//! reproduce the released labels (see ARCHITECTURE.md for the agreement).

use quarry_syntax::kinds::java::{Field, JavaNode, Kind};
use quarry_syntax::walk::Preorder;
use quarry_syntax::ParsedFile;

use crate::java::first_method;

/// The operators counted by OCU. Angle brackets of generics and the colon
/// of for-each loops count too: the released labels count operator tokens.
pub const OPERATORS: &[&str] = &[
    "=", "+", "-", "*", "/", "%", "++", "--", "!", "==", "!=", "<", ">", "<=", ">=", "&&", "||", "?", ":", "~", "<<",
    ">>", ">>>", "&", "|", "^", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", ">>>=", "->", "::",
];

/// Operators that every reading of "operator" includes: no generic angle
/// brackets, no `?`/`:` that could be wildcards, labels or for-each colons.
pub const CORE_OPERATORS: &[&str] =
    &["=", "==", "!=", "+", "-", "*", "/", "%", "&&", "||", "!", "++", "--", "+=", "-=", "*=", "/=", "<=", ">="];

/// Number of distinct [`CORE_OPERATORS`]: a lower bound of the OCU count
/// under any definition of operator.
pub fn unique_core_operators(tokens: &[String]) -> usize {
    let mut seen: Vec<&str> = tokens.iter().map(String::as_str).filter(|t| CORE_OPERATORS.contains(t)).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// Keywords that open a code structure (CSC). A do-while counts once, by its `while`.
pub const STRUCTURE_KEYWORDS: &[&str] = &["if", "for", "while", "switch", "try"];

/// Tokens that each add one decision point (CPX).
pub const DECISION_TOKENS: &[&str] = &["if", "for", "while", "case", "catch", "&&", "||", "?"];

/// Number of code tokens.
pub fn token_count(tokens: &[String]) -> usize {
    tokens.len()
}

/// LEN's bin for a token count: A up to 50, B up to 100, C up to 150, D up to 200, E up to 250.
pub fn length_bin(count: usize) -> Option<&'static str> {
    match count {
        1..=50 => Some("A"),
        51..=100 => Some("B"),
        101..=150 => Some("C"),
        151..=200 => Some("D"),
        201..=250 => Some("E"),
        _ => None,
    }
}

/// Number of distinct operators used.
pub fn unique_operators(tokens: &[String]) -> usize {
    let mut seen: Vec<&str> = tokens.iter().map(String::as_str).filter(|t| OPERATORS.contains(t)).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

/// Number of code structures (if, for, while, do-while, switch, try).
pub fn code_structures(tokens: &[String]) -> usize {
    tokens.iter().filter(|t| STRUCTURE_KEYWORDS.contains(&t.as_str())).count()
}

/// Deepest nesting of braces; a method body alone is 1.
pub fn max_nesting(tokens: &[String]) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for token in tokens {
        match token.as_str() {
            "{" => {
                depth += 1;
                max = max.max(depth);
            }
            "}" => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// Decision points: cyclomatic complexity minus one.
pub fn decision_points(tokens: &[String]) -> usize {
    tokens.iter().filter(|t| DECISION_TOKENS.contains(&t.as_str())).count()
}

/// Number of distinct local variable names declared in the method: declarators
/// (locals, including those of for loops) and for-each variables. Parameters,
/// catch parameters and lambda parameters are not counted.
pub fn unique_variables(parsed: &ParsedFile) -> usize {
    let root = first_method(parsed.root()).unwrap_or(parsed.root());
    let mut names: Vec<&str> = Vec::new();
    for node in Preorder::new(root) {
        if matches!(node.java_kind(), Kind::VariableDeclarator | Kind::EnhancedForStatement) {
            if let Some(name) = node.java_field(Field::Name) {
                names.push(parsed.node_text(name));
            }
        }
    }
    names.sort_unstable();
    names.dedup();
    names.len()
}

/// NPT's bin (1 to 10) for an NPath value: 1, 2, 3, 4–6, 7–8, 9–10, 11–15, 16–20, 21–30, 31–100.
pub fn npath_bin(npath: u64) -> Option<u32> {
    match npath {
        1 => Some(1),
        2 => Some(2),
        3 => Some(3),
        4..=6 => Some(4),
        7..=8 => Some(5),
        9..=10 => Some(6),
        11..=15 => Some(7),
        16..=20 => Some(8),
        21..=30 => Some(9),
        31..=100 => Some(10),
        _ => None,
    }
}
