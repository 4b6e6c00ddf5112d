//! The one entry point to lexing: picks the lexer of a language.

use crate::language::Language;
use crate::token::Token;

/// Splits `text` into tokens of `language`. Never fails: text that forms no
/// token comes back as [`crate::TokenKind::Error`] tokens.
pub fn tokenize(text: &str, language: Language) -> Vec<Token> {
    match language {
        Language::Python => crate::python_lexer::tokenize(text),
        Language::Java => crate::java_lexer::tokenize(text),
    }
}
