//! Comment preprocessing before parsing, as the CodeQA authors' output shows
//! it (`generation-gold/python_dev.jsonl`): URLs become the word `URL`, the
//! comment is cut at its first full stop (513 of the 518 gold wh-answers lie
//! in that first piece) and before field lines (`:param …`, `@return …`,
//! `>>> …`, `name: …`), lines are joined with single spaces and backticks dropped;
//! comments that are notes rather than descriptions (`TODO`, licences,
//! ownership) are skipped (paper, Section 4.2).

/// Starts of lines that open a docstring's field list or examples
/// (`:param x:`, `@return`, `>>> f()`); the description ends before them.
const FIELD_MARKERS: [&str; 3] = [":", "@", ">>>"];

/// Words that mark a comment as unrelated to its code (paper, Section 4.2).
const NOISE_WORDS: [&str; 5] = ["todo", "license", "licence", "copyright", "ownership"];

/// The text a comment is parsed from, or `None` when the comment gives no
/// pairs (empty, or a note such as `TODO` or a licence).
pub fn comment_text(comment: &str) -> Option<String> {
    let with_urls = replace_urls(comment);
    let first = with_urls.split('.').next().unwrap_or("");
    let mut kept = Vec::new();
    for (i, line) in first.lines().enumerate() {
        let t = line.trim_start();
        if i > 0 && (FIELD_MARKERS.iter().any(|m| t.starts_with(m)) || is_field_line(t)) {
            break;
        }
        kept.push(line);
    }
    let joined = kept.join(" ");
    let lower = joined.to_lowercase();
    if NOISE_WORDS.iter().any(|w| lower.contains(w)) {
        return None;
    }
    let text = joined.replace('`', "");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if text.chars().any(|c| c.is_alphabetic()) {
        Some(text)
    } else {
        None
    }
}

/// True for a parameter line such as `host: The host where …` or
/// `Args:`: one word, then a colon ending the word.
fn is_field_line(line: &str) -> bool {
    let Some((word, rest)) = line.split_once(':') else { return false };
    !word.is_empty()
        && word.chars().all(|c| c.is_alphanumeric() || c == '_' || c == '*')
        && (rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// Verbs whose past form is their base form: "Set …" keeps its form so
/// that, as in the released data, "the code set" reads as a past tense
/// ("Did the code set …").
const SAME_PAST: [&str; 18] = [
    "set",
    "read",
    "put",
    "split",
    "cast",
    "cut",
    "reset",
    "let",
    "hit",
    "spread",
    "shut",
    "quit",
    "broadcast",
    "upset",
    "preset",
    "offset",
    "unset",
    "bid",
];

/// The text with "the code" put before it, for comments without a subject
/// ("Returns the value", "Get the value" → "the code gets the value"): the
/// first word is lower-cased and, when it looks like a base-form verb, put
/// in the third person, as the paper's example reads ("the code attaches
/// votes count …"), which parses far better than "the code get".
pub fn with_code_subject(text: &str) -> String {
    format!("the code {}", as_third_person(text))
}

/// The text with "it" put before it: the fallback when the parser reads
/// "the code stores …" as a noun compound; "it" leaves the verb no other
/// reading, and the generator writes the subject as "the code".
pub fn with_it_subject(text: &str) -> String {
    format!("it {}", as_third_person(text))
}

/// The text with its first word lower-cased and, when it looks like a
/// base-form verb, put in the third person.
fn as_third_person(text: &str) -> String {
    let (first, rest) = match text.find(' ') {
        Some(k) => (&text[..k], &text[k..]),
        None => (text, ""),
    };
    // Keep acronyms ("URL", "HTTP") as they are.
    if first.chars().nth(1).is_some_and(|c| c.is_uppercase()) {
        return text.to_string();
    }
    let lower = first.to_lowercase();
    let third_already = lower.ends_with('s') && !lower.ends_with("ss");
    let base_form = lower.chars().all(|c| c.is_ascii_lowercase())
        && !SAME_PAST.contains(&lower.as_str())
        && !third_already
        && !lower.ends_with("ed")
        && !lower.ends_with("ing")
        && !lower.ends_with("en")
        && lower.len() > 1;
    let word = if base_form { super::verb_group::third_person(&lower) } else { lower };
    format!("{word}{rest}")
}

/// Replaces every URL (`http://…`, `https://…`, `www.…`, up to the next
/// white space) with the word `URL`, as the released files do.
pub fn replace_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    loop {
        let next = ["http://", "https://", "www."].iter().filter_map(|p| find_url_start(rest, p)).min();
        match next {
            Some(start) => {
                out.push_str(&rest[..start]);
                out.push_str("URL");
                let tail = &rest[start..];
                let end = tail.find(char::is_whitespace).unwrap_or(tail.len());
                rest = &tail[end..];
            }
            None => {
                out.push_str(rest);
                return out;
            }
        }
    }
}

/// The start of the first `prefix` in `text` that begins a word.
fn find_url_start(text: &str, prefix: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(pos) = text[from..].find(prefix) {
        let at = from + pos;
        let before = text[..at].chars().next_back();
        if before.is_none_or(|c| !c.is_alphanumeric()) {
            return Some(at);
        }
        from = at + prefix.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_piece_joined_and_urls_replaced() {
        let c = "Validates the birth_day and returns the datetime.date object for\nthe birth_day.";
        assert_eq!(comment_text(c).unwrap(), "Validates the birth_day and returns the datetime");
        assert_eq!(comment_text("Send to https://example.com/x now").unwrap(), "Send to URL now");
        assert_eq!(comment_text("Create `auth`\n  parameter").unwrap(), "Create auth parameter");
        assert_eq!(
            comment_text("Convert a list into a dict\n:param x: the list").unwrap(),
            "Convert a list into a dict"
        );
        assert_eq!(comment_text("Send a shipment\n@ToDo: rewrite").unwrap(), "Send a shipment");
        assert_eq!(comment_text("Sends a request\nhost: The host").unwrap(), "Sends a request");
        assert_eq!(comment_text("Get the status\nCLI Example:").unwrap(), "Get the status CLI Example:");
    }

    #[test]
    fn notes_and_empty_comments_give_nothing() {
        assert_eq!(comment_text("TODO: fix this"), None);
        assert_eq!(comment_text("   "), None);
        assert_eq!(comment_text("..."), None);
        assert_eq!(comment_text("Licensed under the MIT license"), None);
    }

    #[test]
    fn code_subject_lowercases_the_verb_only() {
        assert_eq!(with_code_subject("Returns a value"), "the code returns a value");
        assert_eq!(with_code_subject("Get a value"), "the code gets a value");
        assert_eq!(with_code_subject("Process a value"), "the code processes a value");
        assert_eq!(with_code_subject("Set a value"), "the code set a value");
        assert_eq!(with_code_subject("Given a value"), "the code given a value");
        assert_eq!(with_code_subject("URL encodes"), "the code URL encodes");
        assert_eq!(with_it_subject("Stores the result"), "it stores the result");
    }
}
