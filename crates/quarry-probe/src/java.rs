//! Java method code as INSPECT stores it: tokens joined by spaces.

use quarry_syntax::kinds::java::{JavaNode, Kind};
use quarry_syntax::{tokenize, Language, ParsedFile, SourceFile, TokenKind};
use tree_sitter::Node;

/// Text placed before a method so it parses as a class member.
pub const CLASS_PREFIX: &str = "class __InspectProbe {\n";
/// Text placed after a method so it parses as a class member.
pub const CLASS_SUFFIX: &str = "\n}\n";

/// The code tokens of `text` (comments dropped), as strings.
pub fn code_tokens(text: &str) -> Vec<String> {
    tokenize(text, Language::Java)
        .iter()
        .filter(|t| t.kind != TokenKind::Comment)
        .map(|t| t.text(text).to_string())
        .collect()
}

/// The code tokens of `text` with their kinds (comments dropped).
pub fn kinded_tokens(text: &str) -> Vec<(TokenKind, String)> {
    tokenize(text, Language::Java)
        .iter()
        .filter(|t| t.kind != TokenKind::Comment)
        .map(|t| (t.kind, t.text(text).to_string()))
        .collect()
}

/// Parses one method's text, wrapped in a class so it is a member declaration.
pub fn parse_method(text: &str) -> Option<ParsedFile> {
    let wrapped = format!("{CLASS_PREFIX}{text}{CLASS_SUFFIX}");
    ParsedFile::parse(SourceFile::from_text("method.java", wrapped), Language::Java).ok()
}

/// The first method or constructor declaration under `root`, if any.
pub fn first_method(root: Node<'_>) -> Option<Node<'_>> {
    quarry_syntax::walk::Preorder::new(root)
        .find(|n| matches!(n.java_kind(), Kind::MethodDeclaration | Kind::ConstructorDeclaration))
}
