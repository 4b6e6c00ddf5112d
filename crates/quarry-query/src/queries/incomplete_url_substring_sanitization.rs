//! Q51 "Incomplete URL substring sanitization": checking an unparsed URL
//! with a substring test against a host name (`"example.com" in url`,
//! `url.startswith("example.com")`, `url.endswith("example.com")`) is easy
//! to bypass: `https://example.com.evil.net/` or `https://evil.net/?example.com`
//! pass it (CWE-20).
//!
//! ```python
//! if "example.com" in redirect:      # answer: the comparison
//!     return redirect_to(redirect)
//! ```
//!
//! A string looks like a URL, as in CodeQL, when it is a host name on a
//! common top-level domain (`com`, `org`, `edu`, `gov`, `uk`, `net`, `io`),
//! optionally with a scheme, a leading dot, a port and a trailing slash, or
//! an `http(s)://` URL on any domain. `startswith` is safe when the literal
//! is a full `http(s)://host/` prefix; `endswith` when it is a `.domain.tld`
//! suffix with a leading dot.
//!
//! Negative form: the safe `startswith`/`endswith` checks, and equality
//! comparisons (`==`, `!=`) with URL-like strings.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{call_arguments, children, string_literal_value, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "incomplete-url-substring-sanitization",
        name: "Incomplete URL substring sanitization",
        index: 51,
        hops: Hops::Single,
        description: "Security checks on the substrings of an unparsed URL are often vulnerable to bypassing.",
        codeql: "python/ql/src/Security/CWE-020/IncompleteUrlSubstringSanitization.ql",
    },
    find,
};

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &comparison in cx.nodes(Kind::ComparisonOperator) {
        let parts = children(comparison);
        for (i, op) in parts.iter().enumerate().filter(|(_, n)| !n.is_named()) {
            let op_text: String = cx.text(*op).split_whitespace().collect::<Vec<_>>().join(" ");
            let Some(left) = i.checked_sub(1).and_then(|j| parts.get(j)) else { continue };
            let right = parts.get(i + 1);
            let url = |n: Option<&Node<'_>>| n.and_then(|n| url_literal(cx, *n));
            let hit = match (polarity, op_text.as_str()) {
                (Polarity::Positive, "in") => url(Some(left)).map(|u| (u, "may be at an arbitrary position")),
                (Polarity::Negative, "==" | "!=") => {
                    url(Some(left)).or_else(|| url(right)).map(|u| (u, "is compared as a whole"))
                }
                _ => None,
            };
            if let Some((text, what)) = hit {
                findings
                    .push(RawFinding::answer(cx.span(comparison), format!("'{text}' {what} in the sanitized URL.")));
                break;
            }
        }
    }
    for &call in cx.nodes(Kind::Call) {
        let Some(function) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Attribute) else {
            continue;
        };
        let method = function.field(Field::Attribute).map(|a| cx.text(a)).unwrap_or_default();
        if method != "startswith" && method != "endswith" {
            continue;
        }
        let Some(text) = call_arguments(call).first().and_then(|a| url_literal(cx, *a)) else { continue };
        let safe = if method == "startswith" { is_full_url_prefix(text) } else { is_domain_suffix(text) };
        if safe != (polarity == Polarity::Negative) {
            continue;
        }
        let message = if safe {
            format!("'{text}' is checked at a fixed position in the sanitized URL.")
        } else {
            format!("'{text}' may be at an arbitrary position in the sanitized URL.")
        };
        findings.push(RawFinding::answer(cx.span(call), message));
    }
    findings
}

/// The text of a string literal that looks like a URL.
fn url_literal<'f>(cx: &FileContext<'f>, node: Node<'_>) -> Option<&'f str> {
    let text = string_literal_value(cx.file(), strip_parentheses(node))?;
    looks_like_url(text).then_some(text)
}

const COMMON_TLDS: &[&str] = &["com", "org", "edu", "gov", "uk", "net", "io"];

fn is_label(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

/// `host(:port)?/?` with at least two labels, the last one accepted by `tld`.
fn host_port_slash(s: &str, tld: impl Fn(&str) -> bool) -> bool {
    let s = s.strip_suffix('/').unwrap_or(s);
    let host = match s.split_once(':') {
        Some((host, port)) => {
            if port.is_empty() || !port.chars().all(|c| c.is_ascii_digit()) {
                return false;
            }
            host
        }
        None => s,
    };
    let labels: Vec<&str> = host.split('.').collect();
    labels.len() >= 2 && labels[..labels.len() - 1].iter().all(|l| is_label(l)) && tld(labels[labels.len() - 1])
}

/// CodeQL's `looksLikeUrl`.
pub fn looks_like_url(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    // ([a-z]*:?//)?\.?([a-z0-9-]+\.)+(com|org|...)(:[0-9]+)?/?
    let rest = match lower.find("//") {
        Some(i) => {
            let scheme = &lower[..i];
            let scheme = scheme.strip_suffix(':').unwrap_or(scheme);
            if !scheme.chars().all(|c| c.is_ascii_lowercase()) {
                None
            } else {
                Some(&lower[i + 2..])
            }
        }
        None => Some(lower.as_str()),
    };
    let first = rest.is_some_and(|r| {
        let r = r.strip_prefix('.').unwrap_or(r);
        host_port_slash(r, |tld| COMMON_TLDS.contains(&tld))
    });
    // https?://([a-z0-9-]+\.)+([a-z]+)(:[0-9]+)?/?
    let second = ["http://", "https://"].iter().any(|scheme| {
        lower
            .strip_prefix(scheme)
            .is_some_and(|r| host_port_slash(r, |tld| !tld.is_empty() && tld.chars().all(|c| c.is_ascii_lowercase())))
    });
    first || second
}

/// `(?i)https?://[\.a-z0-9-]+/.*`: a scheme, a host and a path slash.
fn is_full_url_prefix(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    ["http://", "https://"].iter().any(|scheme| {
        lower.strip_prefix(scheme).is_some_and(|r| match r.split_once('/') {
            Some((host, path)) => {
                !host.is_empty()
                    && host.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.')
                    && !path.contains('\n')
            }
            None => false,
        })
    })
}

/// `(?i)\.([a-z0-9-]+)(\.[a-z0-9-]+)+`: a dotted domain suffix.
fn is_domain_suffix(text: &str) -> bool {
    let Some(rest) = text.strip_prefix('.') else { return false };
    let labels: Vec<&str> = rest.split('.').collect();
    labels.len() >= 2 && labels.iter().all(|l| is_label(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_shapes() {
        assert!(looks_like_url("example.com"));
        assert!(looks_like_url(".example.com"));
        assert!(looks_like_url("https://example.com/"));
        assert!(looks_like_url("http://localhost.test:8080"));
        assert!(looks_like_url("//cdn.example.org"));
        assert!(looks_like_url("WWW.Example.IO"));
        assert!(!looks_like_url("example"));
        assert!(!looks_like_url("example.foo"));
        assert!(!looks_like_url("https://example.com/path"));
        assert!(is_full_url_prefix("https://example.com/"));
        assert!(!is_full_url_prefix("https://example.com"));
        assert!(is_domain_suffix(".example.com"));
        assert!(!is_domain_suffix("example.com"));
        assert!(!is_domain_suffix(".com"));
    }
}
