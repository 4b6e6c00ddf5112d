//! Lone UTF-16 surrogate escapes in JSON text. `"\ud83d"` is valid JSON but no Unicode text:
//! JavaScript clients send one for a string cut inside an emoji, and Python's `json.dumps`
//! writes one for a string holding undecodable bytes, while serde_json refuses the whole
//! value with "unexpected end of hex escape". Callers find them here to name them or to
//! replace them.

/// The escape that stands for U+FFFD, the replacement character: one UTF-16 unit, as long as
/// a lone surrogate, so positions counted in UTF-16 stay right.
pub const REPLACEMENT_ESCAPE: &[u8; 6] = b"\\uFFFD";

/// The byte offset of every `\uXXXX` escape of `json` that is half a surrogate pair without
/// its other half, in order. Other escapes (`\\`, `\"`, ...) are stepped over, so `\\ud800`
/// (a backslash, then text) is not one.
pub fn lone_surrogate_escapes(json: &[u8]) -> Vec<usize> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(offset) = json.get(at..).and_then(|rest| rest.iter().position(|&b| b == b'\\')) {
        let escape = at + offset;
        let Some(unit) = unit_at(json, escape) else {
            at = escape + 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&unit);
        if high && unit_at(json, escape + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low)) {
            at = escape + 12;
            continue;
        }
        if (0xD800..0xE000).contains(&unit) {
            found.push(escape);
        }
        at = escape + 6;
    }
    found
}

/// `json` with every lone surrogate escape replaced by [`REPLACEMENT_ESCAPE`]; `None` when it
/// has none.
pub fn replace_lone_surrogates(json: &[u8]) -> Option<Vec<u8>> {
    let lone = lone_surrogate_escapes(json);
    if lone.is_empty() {
        return None;
    }
    let mut repaired = json.to_vec();
    for at in lone {
        repaired[at..at + 6].copy_from_slice(REPLACEMENT_ESCAPE);
    }
    Some(repaired)
}

/// The code unit of a `\uXXXX` escape starting at `at`, if one does.
fn unit_at(json: &[u8], at: usize) -> Option<u16> {
    let escape = json.get(at..at + 6)?;
    if &escape[..2] != b"\\u" {
        return None;
    }
    let hex = std::str::from_utf8(&escape[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(json: &str) -> Option<String> {
        replace_lone_surrogates(json.as_bytes()).map(|bytes| String::from_utf8(bytes).unwrap())
    }

    #[test]
    fn lone_surrogates_are_found_and_become_replacement_characters() {
        assert_eq!(lone_surrogate_escapes(br#"{"t":"a\ud83d"}"#), vec![7]);
        assert_eq!(repaired(r#"{"t":"a\ud83d"}"#).as_deref(), Some(r#"{"t":"a\uFFFD"}"#));
        assert_eq!(repaired(r#"{"t":"\udE00b"}"#).as_deref(), Some(r#"{"t":"\uFFFDb"}"#));
        // A high surrogate followed by another high one, then a pair.
        assert_eq!(repaired(r#"["\uD83D\uD83D\uDE00"]"#).as_deref(), Some(r#"["\uFFFD\uD83D\uDE00"]"#));
        let parsed: serde_json::Value = serde_json::from_str(&repaired(r#"["x\ud800", "\udfff"]"#).unwrap()).unwrap();
        assert_eq!(parsed, serde_json::json!(["x\u{fffd}", "\u{fffd}"]));
    }

    #[test]
    fn valid_json_is_left_alone() {
        for json in [r#"{"t":"\uD83D\uDE00 \u00e9 \\ud83d \" \\"}"#, r#"{"t":"\u12"}"#, "\\", r#""\\""#] {
            assert_eq!(repaired(json), None, "{json}");
        }
    }
}
