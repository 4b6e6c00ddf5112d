//! Python regular expressions, as spaCy's tokenizer stores them, compiled
//! for Rust. spaCy's patterns use look-behind and look-ahead, so they go to
//! `fancy-regex`; the few Python spellings it does not take are rewritten.

use fancy_regex::Regex;

/// How a pattern is applied: Python's `search` (anywhere) or `match`
/// (anchored at the start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `re.search` / `re.finditer`.
    Search,
    /// `re.match`.
    Match,
}

/// Compiles a Python pattern; the error is the regex engine's message.
pub fn compile(pattern: &str, mode: Mode) -> Result<Regex, String> {
    let mut p = pattern.strip_prefix("(?u)").unwrap_or(pattern).to_string();
    p = split_lookbehind_alternations(&p);
    if mode == Mode::Match {
        p = format!(r"\A(?:{p})");
    }
    fancy_regex::RegexBuilder::new(&p).backtrack_limit(1_000_000).build().map_err(|e| e.to_string())
}

/// Python accepts `(?<=a|bc)` when every branch has a fixed width; the
/// Rust engine wants one width per look-behind, so the group becomes
/// `(?:(?<=a)|(?<=bc))`, which matches the same positions.
fn split_lookbehind_alternations(p: &str) -> String {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len());
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\\' && i + 1 < chars.len() {
            out.push(chars[i]);
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if chars[i..].starts_with(&['(', '?', '<', '=']) || chars[i..].starts_with(&['(', '?', '<', '!']) {
            let kind = chars[i + 3];
            // Find the matching close paren and the top-level branches.
            let start = i + 4;
            let mut depth = 0;
            let mut in_class = false;
            let mut j = start;
            let mut branches = Vec::new();
            let mut branch_start = start;
            while j < chars.len() {
                let c = chars[j];
                if c == '\\' {
                    j += 2;
                    continue;
                }
                if in_class {
                    if c == ']' {
                        in_class = false;
                    }
                } else if c == '[' {
                    in_class = true;
                    // A ']' right after '[' or '[^' is literal.
                    if j + 1 < chars.len() && chars[j + 1] == '^' {
                        j += 1;
                    }
                    if j + 1 < chars.len() && chars[j + 1] == ']' {
                        j += 1;
                    }
                } else if c == '(' {
                    depth += 1;
                } else if c == ')' {
                    if depth == 0 {
                        break;
                    }
                    depth -= 1;
                } else if c == '|' && depth == 0 {
                    branches.push(chars[branch_start..j].iter().collect::<String>());
                    branch_start = j + 1;
                }
                j += 1;
            }
            if j >= chars.len() {
                // Unbalanced: leave it to the regex engine to report.
                out.extend(&chars[i..]);
                break;
            }
            branches.push(chars[branch_start..j].iter().collect::<String>());
            if branches.len() == 1 {
                out.push_str("(?<");
                out.push(kind);
                out.push_str(&split_lookbehind_alternations(&branches[0]));
                out.push(')');
            } else if kind == '=' {
                out.push_str("(?:");
                let parts: Vec<String> =
                    branches.iter().map(|b| format!("(?<={})", split_lookbehind_alternations(b))).collect();
                out.push_str(&parts.join("|"));
                out.push(')');
            } else {
                // (?<!a|b) is "not a and not b".
                for b in &branches {
                    out.push_str(&format!("(?<!{})", split_lookbehind_alternations(b)));
                }
            }
            i = j + 1;
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookbehind_alternation_is_split() {
        assert_eq!(split_lookbehind_alternations(r"(?<=a|bc)\.$"), r"(?:(?<=a)|(?<=bc))\.$");
        assert_eq!(split_lookbehind_alternations(r"(?<=[|a])x"), r"(?<=[|a])x");
        let re = compile(r"(?<=a|bc)\.$", Mode::Search).unwrap();
        assert!(re.is_match("bc.").unwrap());
        assert!(!re.is_match("c.").unwrap());
    }

    #[test]
    fn match_mode_is_anchored() {
        let re = compile("(?u)b", Mode::Match).unwrap();
        assert!(!re.is_match("ab").unwrap());
        assert!(re.is_match("ba").unwrap());
    }
}
