//! Colours of the human-readable output. Styles are ANSI escapes from
//! `anstyle`; whether they are written at all (terminal, `--color`,
//! `NO_COLOR`) is the caller's decision, passed as [`Palette::enabled`].

use std::borrow::Cow;

use anstyle::{AnsiColor, Style};

/// The styles of each part of a diagnostic, on or off.
#[derive(Debug, Clone, Copy)]
pub struct Palette {
    /// Whether styles are written.
    pub enabled: bool,
}

impl Palette {
    /// A palette writing styles when `enabled`.
    pub fn new(enabled: bool) -> Palette {
        Palette { enabled }
    }

    /// No styles.
    pub fn plain() -> Palette {
        Palette { enabled: false }
    }

    /// `text` in `style` (unchanged when disabled).
    pub fn paint(&self, style: Style, text: &str) -> String {
        if self.enabled && !text.is_empty() {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    }
}

/// The header of a positive finding (`answer[...]`).
pub const ANSWER: Style = AnsiColor::Red.on_default().bold();
/// The header of a negative finding.
pub const NEGATIVE: Style = AnsiColor::Cyan.on_default().bold();
/// Warnings (unused suppressions).
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
/// The query id in brackets.
pub const QUERY: Style = Style::new().bold();
/// Arrows, gutters and line numbers.
pub const GUTTER: Style = AnsiColor::Blue.on_default().bold();
/// `^` under answer spans.
pub const ANSWER_MARK: Style = AnsiColor::Red.on_default().bold();
/// `-` under supporting facts.
pub const FACT_MARK: Style = AnsiColor::Cyan.on_default();
/// Counts and file names in the summary.
pub const EMPHASIS: Style = Style::new().bold();
/// The all-clear summary.
pub const SUCCESS: Style = AnsiColor::Green.on_default().bold();

/// `text` (a file name, a comment's text) safe to write to a terminal:
/// every control character (escape sequences, carriage returns, newlines,
/// C1 controls) is written as its Rust escape (`\u{1b}`, `\r`), as
/// ripgrep shows such file names, whether colours are on or not.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut escaped = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            escaped.extend(c.escape_debug());
        } else {
            escaped.push(c);
        }
    }
    Cow::Owned(escaped)
}

/// A source line safe to write to a terminal with its columns kept: each
/// control character but the tab becomes one visible character, its
/// Unicode control picture (`␛` for ESC, `␡` for DEL) or `�` for a C1
/// control, so the marks under the line stay aligned.
pub fn visible_controls(line: &str) -> Cow<'_, str> {
    if !line.chars().any(|c| c.is_control() && c != '\t') {
        return Cow::Borrowed(line);
    }
    let visible = line
        .chars()
        .map(|c| match c {
            '\t' => c,
            '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
            '\u{7f}' => '\u{2421}',
            c if c.is_control() => '\u{fffd}',
            c => c,
        })
        .collect();
    Cow::Owned(visible)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped() {
        assert_eq!(escape_controls("plain/é.py"), "plain/é.py");
        assert_eq!(escape_controls("a\u{1b}[31mred\r\n.py"), "a\\u{1b}[31mred\\r\\n.py");
        assert_eq!(escape_controls("c1\u{9b}.py"), "c1\\u{9b}.py");
        assert_eq!(visible_controls("\tx = '\u{1b}[2J'\u{7f}"), "\tx = '\u{241b}[2J'\u{2421}");
        assert_eq!(visible_controls("x\u{85}").chars().count(), 2);
    }
}
