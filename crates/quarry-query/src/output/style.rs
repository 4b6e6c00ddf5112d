//! Colours of the human-readable output. Styles are ANSI escapes from
//! `anstyle`; whether they are written at all (terminal, `--color`,
//! `NO_COLOR`) is the caller's decision, passed as [`Palette::enabled`].

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
