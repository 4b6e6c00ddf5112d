//! Python regular expressions, as spaCy's tokenizer stores them, compiled
//! for Rust. spaCy's patterns use look-behind and look-ahead, so they go to
//! `fancy-regex`; the few Python spellings it does not take are rewritten.

/// A compiled spaCy pattern: the full (look-around) regex, and a plain
/// regex without the look-arounds that matches wherever the full one can,
/// checked first because it runs as a fast automaton. Most tokens have no
/// prefix, suffix or infix, and the automaton says so cheaply.
#[derive(Debug)]
pub struct Regex {
    full: fancy_regex::Regex,
    pre: Option<regex::Regex>,
}

/// A match: byte offsets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Match {
    start: usize,
    end: usize,
}

impl Match {
    /// Start offset.
    pub fn start(&self) -> usize {
        self.start
    }

    /// End offset.
    pub fn end(&self) -> usize {
        self.end
    }
}

impl Regex {
    fn maybe(&self, s: &str) -> bool {
        self.pre.as_ref().is_none_or(|p| p.is_match(s))
    }

    /// Python's `search`; `None` also when the engine gives up.
    pub fn find(&self, s: &str) -> Result<Option<Match>, String> {
        if !self.maybe(s) {
            return Ok(None);
        }
        self.full_from(s, 0)
    }

    /// Search from byte `pos`, look-behind seeing the text before it.
    pub fn find_from_pos(&self, s: &str, pos: usize) -> Result<Option<Match>, String> {
        if !self.maybe(&s[pos..]) {
            return Ok(None);
        }
        self.full_from(s, pos)
    }

    /// The full pattern's leftmost match at or after `pos`. The backtracking
    /// engine tries every start in turn, each at the cost of the whole
    /// pattern (spaCy's suffix rules are hundreds of alternatives), which made
    /// the tokenizer's affix loop slow on long runs of punctuation; the plain
    /// automaton finds the leftmost start at which the pattern can match in
    /// one linear pass (a match of the full pattern is one of the plain one,
    /// anchors and word boundaries read alike in both), so the full pattern
    /// starts there: the same match, without the hopeless starts before it.
    fn full_from(&self, s: &str, pos: usize) -> Result<Option<Match>, String> {
        let start = match &self.pre {
            Some(pre) => match pre.find_at(s, pos) {
                Some(m) => m.start(),
                None => return Ok(None),
            },
            None => pos,
        };
        self.full
            .find_from_pos(s, start)
            .map(|m| m.map(|m| Match { start: m.start(), end: m.end() }))
            .map_err(|e| e.to_string())
    }

    /// Python's `finditer` (matches the engine gives up on are dropped).
    pub fn find_iter(&self, s: &str) -> Vec<Match> {
        if !self.maybe(s) {
            return Vec::new();
        }
        self.full.find_iter(s).filter_map(|m| m.ok()).map(|m| Match { start: m.start(), end: m.end() }).collect()
    }

    /// Whether it matches.
    pub fn is_match(&self, s: &str) -> Result<bool, String> {
        if !self.maybe(s) {
            return Ok(false);
        }
        self.full.is_match(s).map_err(|e| e.to_string())
    }
}

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
    let full = fancy_regex::RegexBuilder::new(&p).backtrack_limit(1_000_000).build().map_err(|e| e.to_string())?;
    let pre = regex::Regex::new(&strip_lookarounds(&p)).ok();
    Ok(Regex { full, pre })
}

/// The pattern with every look-around group removed: it matches wherever
/// the pattern matches (and more).
fn strip_lookarounds(p: &str) -> String {
    let chars: Vec<char> = p.chars().collect();
    let mut out = String::with_capacity(p.len());
    let mut i = 0;
    let mut in_class = false;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() {
            out.push(c);
            out.push(chars[i + 1]);
            i += 2;
            continue;
        }
        if in_class {
            if c == ']' {
                in_class = false;
            }
            out.push(c);
            i += 1;
            continue;
        }
        if c == '[' {
            in_class = true;
            out.push(c);
            i += 1;
            for lit in ['^', ']'] {
                if i < chars.len() && chars[i] == lit {
                    out.push(lit);
                    i += 1;
                }
            }
            continue;
        }
        let look = chars[i..].starts_with(&['(', '?', '='])
            || chars[i..].starts_with(&['(', '?', '!'])
            || chars[i..].starts_with(&['(', '?', '<', '='])
            || chars[i..].starts_with(&['(', '?', '<', '!']);
        if look {
            // Skip to the matching close paren.
            let mut depth = 0;
            let mut j = i;
            let mut cls = false;
            while j < chars.len() {
                let d = chars[j];
                if d == '\\' {
                    j += 2;
                    continue;
                }
                if cls {
                    if d == ']' {
                        cls = false;
                    }
                } else if d == '[' {
                    cls = true;
                    if j + 1 < chars.len() && chars[j + 1] == '^' {
                        j += 1;
                    }
                    if j + 1 < chars.len() && chars[j + 1] == ']' {
                        j += 1;
                    }
                } else if d == '(' {
                    depth += 1;
                } else if d == ')' {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                j += 1;
            }
            i = j + 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    out
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
    fn lookarounds_are_stripped_for_the_prefilter() {
        assert_eq!(strip_lookarounds(r"(?<=[0-9])\+$|(?<=a|b(c))\.(?=[(x])y"), r"\+$|\.y");
    }

    #[test]
    fn searches_start_where_the_automaton_finds_the_first_possible_match() {
        // Suffix-like patterns with look-behinds, anchors and boundaries: the
        // search that skips the starts the automaton rules out finds what
        // the backtracking engine finds from the given position.
        let patterns = [
            r"(?<=[a-z0-9)\]\x22'%])\.$|\)$|(?<=[0-9])(?:km|kg)$|\.\.+$|(?<![a-z])'s$",
            r"^\(|^\[|\A'",
            r"\b[a-z]+(?=\))",
            r"(?<=\()(?:x|y)\B",
        ];
        let texts = ["((((word))))", "x))).", "12km", "a.....", "((x)", "it's'x's", "((((x", "[('s)]", ""];
        for pattern in patterns {
            let re = compile(pattern, Mode::Search).unwrap();
            for text in texts {
                for pos in (0..=text.len()).filter(|&p| text.is_char_boundary(p)) {
                    let full = re.full.find_from_pos(text, pos).unwrap().map(|m| (m.start(), m.end()));
                    let ours = re.full_from(text, pos).unwrap().map(|m| (m.start(), m.end()));
                    assert_eq!(ours, full, "{pattern} on {text:?} from {pos}");
                }
            }
        }
    }

    #[test]
    fn match_mode_is_anchored() {
        let re = compile("(?u)b", Mode::Match).unwrap();
        assert!(!re.is_match("ab").unwrap());
        assert!(re.is_match("ba").unwrap());
    }
}
