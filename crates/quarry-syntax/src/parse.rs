//! Parsing with tree-sitter. Syntax errors never abort: the tree is kept and
//! its error regions are reported.

use serde::Serialize;
use tree_sitter::{Node, ParseOptions, Parser, Tree};

use crate::budget::Deadline;
use crate::error::SyntaxError;
use crate::language::Language;
use crate::position::{Span, SpanRecord};
use crate::source::SourceFile;
use crate::walk::Preorder;

/// A source file together with its syntax tree (cloning shares the tree's
/// nodes and copies the text).
#[derive(Clone)]
pub struct ParsedFile {
    source: SourceFile,
    language: Language,
    tree: Tree,
    /// The depth of the deepest node and its line, found on first need.
    depth: std::sync::OnceLock<(usize, usize)>,
}

/// What kind of syntax problem an error region is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    /// Text the grammar could not place (a tree-sitter `ERROR` node).
    Unexpected,
    /// A token the parser had to assume (a tree-sitter `MISSING` node).
    Missing,
}

/// One region of a file that does not parse cleanly.
#[derive(Debug, Clone, Serialize)]
pub struct ErrorRegion {
    /// Unexpected text or a missing token.
    pub kind: ErrorKind,
    /// For a missing token, what was expected (e.g. `:` or `identifier`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<String>,
    /// Where, in the CodeQueries span schema.
    #[serde(flatten)]
    pub span: SpanRecord,
}

impl ParsedFile {
    /// Parses a loaded source file as `language`.
    pub fn parse(source: SourceFile, language: Language) -> Result<ParsedFile, SyntaxError> {
        ParsedFile::parse_within(source, language, &Deadline::unlimited())
    }

    /// Parses a loaded source file as `language`, giving up with
    /// [`SyntaxError::TimeBudget`] once `deadline` has passed.
    pub fn parse_within(
        source: SourceFile,
        language: Language,
        deadline: &Deadline,
    ) -> Result<ParsedFile, SyntaxError> {
        ParsedFile::parse_from(source, language, None, deadline)
    }

    /// [`ParsedFile::parse_within`] for a new version of `previous`'s text:
    /// tree-sitter reuses the parts of `previous`'s tree outside the region
    /// that changed ([`crate::text_edit::between`]), so a small edit of a
    /// large file parses in a fraction of the time. The tree is the one a
    /// fresh parse gives.
    pub fn reparse_within(
        source: SourceFile,
        previous: &ParsedFile,
        deadline: &Deadline,
    ) -> Result<ParsedFile, SyntaxError> {
        let Some(edit) = crate::text_edit::between(previous.text(), source.text()) else {
            return Ok(ParsedFile { source, ..previous.clone() });
        };
        let mut old = previous.tree.clone();
        old.edit(&edit);
        ParsedFile::parse_from(source, previous.language, Some(&old), deadline)
    }

    fn parse_from(
        source: SourceFile,
        language: Language,
        old: Option<&Tree>,
        deadline: &Deadline,
    ) -> Result<ParsedFile, SyntaxError> {
        let mut parser = Parser::new();
        parser.set_language(&language.grammar()).expect("bundled grammars match the tree-sitter ABI");
        let tree = match parse_text(&mut parser, source.text(), old, deadline) {
            Some(tree) => tree,
            None => {
                deadline.check(source.path(), || "parsing".to_string())?;
                return Err(SyntaxError::ParseFailed { path: source.path().to_path_buf() });
            }
        };
        Ok(ParsedFile { source, language, tree, depth: std::sync::OnceLock::new() })
    }

    /// Loads and parses a file, choosing the language from its extension
    /// unless `language` is given.
    pub fn load(
        path: &std::path::Path,
        language: Option<Language>,
        options: &crate::source::LoadOptions,
    ) -> Result<ParsedFile, SyntaxError> {
        ParsedFile::load_within(path, language, options, &Deadline::unlimited())
    }

    /// [`ParsedFile::load`], giving up with [`SyntaxError::TimeBudget`] once
    /// `deadline` has passed.
    pub fn load_within(
        path: &std::path::Path,
        language: Option<Language>,
        options: &crate::source::LoadOptions,
        deadline: &Deadline,
    ) -> Result<ParsedFile, SyntaxError> {
        let language = match language.or_else(|| Language::from_path(path)) {
            Some(language) => language,
            None => return Err(SyntaxError::UnknownLanguage { path: path.to_path_buf() }),
        };
        let source = SourceFile::load(path, options)?;
        deadline.check(path, || "reading".to_string())?;
        ParsedFile::parse_within(source, language, deadline)
    }

    /// The source file.
    pub fn source(&self) -> &SourceFile {
        &self.source
    }

    /// The source text.
    pub fn text(&self) -> &str {
        self.source.text()
    }

    /// The language it was parsed as.
    pub fn language(&self) -> Language {
        self.language
    }

    /// The tree-sitter tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The root node of the tree.
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The span of a node, in this file's coordinates.
    pub fn span_of(&self, node: Node<'_>) -> Span {
        self.span(node.start_byte(), node.end_byte())
    }

    /// The span of bytes `start..end`.
    pub fn span(&self, start: usize, end: usize) -> Span {
        Span::from_bytes(self.source.text(), self.source.lines(), start, end)
    }

    /// The source text of a node.
    pub fn node_text(&self, node: Node<'_>) -> &str {
        &self.source.text()[node.start_byte()..node.end_byte()]
    }

    /// Refuses a tree deeper than `limit` ([`SyntaxError::TooDeep`], naming
    /// the file and the line), as [`crate::budget::check_depth`] does; the
    /// tree is walked once per file however often this is asked.
    pub fn check_depth(&self, limit: usize) -> Result<(), SyntaxError> {
        let &(depth, line) = self.depth.get_or_init(|| {
            let (depth, node) = crate::budget::deepest_node(self.root());
            (depth, node.start_position().row)
        });
        if depth > limit {
            return Err(SyntaxError::TooDeep { path: self.source.path().to_path_buf(), depth, limit, line });
        }
        Ok(())
    }

    /// Whether the file parsed without any error or missing node.
    pub fn has_errors(&self) -> bool {
        self.root().has_error()
    }

    /// Every error and missing-token region, outermost first, in source order.
    /// The children of an error region are not reported separately.
    pub fn error_regions(&self) -> Vec<ErrorRegion> {
        let mut regions = Vec::new();
        if !self.has_errors() {
            return regions;
        }
        let mut walk = Preorder::new(self.root());
        while let Some(node) = walk.next() {
            if !node.has_error() {
                walk.skip_children();
                continue;
            }
            let kind = if node.is_missing() {
                ErrorKind::Missing
            } else if node.is_error() {
                ErrorKind::Unexpected
            } else {
                continue;
            };
            regions.push(ErrorRegion {
                kind,
                expected: node.is_missing().then(|| node.kind().to_string()),
                span: self.span_of(node).to_record(self.text()),
            });
            walk.skip_children();
        }
        regions
    }
}

/// Parses `text`. A lone `\r` ends a line for quarry but not for tree-sitter's
/// grammars, so such files are parsed from a copy in which each lone `\r` is a
/// `\n`: the same length, so every byte offset stays valid for the original.
/// `old`: the tree of the previous version, edited to match `text`.
/// Returns `None` when the deadline passes during the parse.
fn parse_text(parser: &mut Parser, text: &str, old: Option<&Tree>, deadline: &Deadline) -> Option<Tree> {
    let bytes = text.as_bytes();
    let has_lone_cr = bytes.iter().enumerate().any(|(i, &b)| b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
    if !has_lone_cr {
        return parse_bytes(parser, bytes, old, deadline);
    }
    let mut copy = bytes.to_vec();
    for i in 0..copy.len() {
        if copy[i] == b'\r' && copy.get(i + 1) != Some(&b'\n') {
            copy[i] = b'\n';
        }
    }
    parse_bytes(parser, &copy, old, deadline)
}

fn parse_bytes(parser: &mut Parser, bytes: &[u8], old: Option<&Tree>, deadline: &Deadline) -> Option<Tree> {
    if !deadline.is_bounded() {
        return parser.parse(bytes, old);
    }
    let mut input = |offset: usize, _: tree_sitter::Point| bytes.get(offset..).unwrap_or_default();
    // tree-sitter calls this every so often; returning true cancels the parse.
    let mut cancel = |_: &tree_sitter::ParseState| deadline.expired();
    parser.parse_with_options(&mut input, old, Some(ParseOptions::new().progress_callback(&mut cancel)))
}
