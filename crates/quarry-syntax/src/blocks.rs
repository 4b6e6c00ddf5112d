//! CodeQueries code blocks for Python files.
//!
//! A file is cut into blocks as the CodeQueries preparation code does:
//!
//! * one block per module-level function and one per method, holding the whole
//!   definition with its decorators;
//! * one class-level block per class: its header and every line of its body
//!   that is not inside one of its methods;
//! * one module-level block: every line in no class and no function.
//!
//! Definitions nested inside `if`, `elif`, `else`, `try`, `except`, `finally`,
//! `with`, `for`, `while` and `match` statements count as if they stood at the
//! level of the statement. A function nested in a function belongs to the
//! outer function's block, and so does a class defined in a function. A class
//! nested in a class belongs, methods included, to the outer class's
//! class-level block, as in the reference preparation code, which treats
//! inner classes and methods as part of their surroundings.
//!
//! Blocks are made of whole source lines, line terminators included, so a
//! block's text is a sequence of the file's own lines and a position inside a
//! block maps to the file by a line offset alone. Class-level and module-level
//! blocks may be non-contiguous. Every line belongs to at most one block, and
//! every line that holds code (anything but whitespace) to exactly one. A line
//! that starts before a definition (`if x: def f(): ...`) belongs to the
//! enclosing block, and so does the rest of that definition's first line.

use serde::{Deserialize, Serialize};
use tree_sitter::Node;

use crate::kinds::python::{Field, Kind, SyntaxNode, TRANSPARENT};
use crate::parse::ParsedFile;
use crate::position::Span;

/// The four kinds of CodeQueries code block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// Statements at module level, in no class or function.
    ModuleLevel,
    /// A function defined at module level.
    ModuleFunction,
    /// A class header and the statements of its body outside its methods.
    ClassLevel,
    /// A method defined directly in a class body.
    ClassMethod,
}

impl BlockKind {
    /// The block type name used by the CodeQueries preparation code.
    pub fn codequeries_name(self) -> &'static str {
        match self {
            BlockKind::ModuleLevel => "MODULE_OTHER",
            BlockKind::ModuleFunction => "MODULE_FUNCTION",
            BlockKind::ClassLevel => "CLASS_OTHER",
            BlockKind::ClassMethod => "CLASS_FUNCTION",
        }
    }
}

/// A run of consecutive lines, both ends inclusive and 0-based.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineRun {
    /// First line of the run.
    pub start: usize,
    /// Last line of the run (inclusive).
    pub end: usize,
}

/// One code block of a file.
#[derive(Debug, Clone, Serialize)]
pub struct CodeBlock {
    /// Position of the block in the file's block list (ordered by first line).
    pub index: usize,
    /// Module-level, module function, class-level or class method.
    pub kind: BlockKind,
    /// Dotted name path: `""` for the module, `Cls`, `Cls.method`, `func`.
    pub name: String,
    /// For class-level and method blocks, the class header up to its colon.
    pub class_header: Option<String>,
    /// The lines of the block, in runs of consecutive lines.
    pub lines: Vec<LineRun>,
    /// For function, method and class blocks, the span of the definition
    /// (decorators included); `None` for the module-level block.
    #[serde(skip)]
    pub definition: Option<Span>,
}

impl CodeBlock {
    /// The block's source text: its lines, terminators included, in order.
    pub fn content(&self, file: &ParsedFile) -> String {
        let lines = file.source().lines();
        let text = file.text();
        let mut content = String::new();
        for run in &self.lines {
            let start = lines.line_range_with_terminator(run.start).map_or(text.len(), |r| r.start);
            let end = lines.line_range_with_terminator(run.end).map_or(text.len(), |r| r.end);
            content.push_str(&text[start..end]);
        }
        content
    }

    /// The block's name in the CodeQueries `metadata` style: `root`, `root.Cls`,
    /// `root.Cls.method`, `root.func`.
    pub fn metadata(&self) -> String {
        if self.name.is_empty() {
            "root".to_string()
        } else {
            format!("root.{}", self.name)
        }
    }

    /// The CodeQueries `header` of the block: the class header for class-level
    /// and method blocks, `module` otherwise.
    pub fn header(&self) -> &str {
        self.class_header.as_deref().unwrap_or("module")
    }

    /// Whether the block holds `line`.
    pub fn contains_line(&self, line: usize) -> bool {
        self.lines.iter().any(|run| run.start <= line && line <= run.end)
    }

    /// The block's first and last line, as one run. Blocks share no line, so
    /// the block holds exactly the lines of its extent that no other block
    /// holds: a module-level block's extent spans the functions and classes
    /// between its statements, a class-level block's its methods. It stands
    /// for the block in constant size where [`CodeBlock::lines`], one run per
    /// stretch between definitions, would grow with the file.
    pub fn extent(&self) -> LineRun {
        let start = self.lines.first().map_or(0, |run| run.start);
        LineRun { start, end: self.lines.last().map_or(start, |run| run.end) }
    }

    /// Number of lines in the block.
    pub fn line_count(&self) -> usize {
        self.lines.iter().map(|run| run.end - run.start + 1).sum()
    }
}

/// All code blocks of a file, with a map from each line to its block.
#[derive(Debug, Clone, Default)]
pub struct Blocks {
    blocks: Vec<CodeBlock>,
    block_of_line: Vec<Option<usize>>,
}

impl Blocks {
    /// The blocks in order of their first line.
    pub fn all(&self) -> &[CodeBlock] {
        &self.blocks
    }

    /// The block holding `line`, if any.
    pub fn block_of_line(&self, line: usize) -> Option<&CodeBlock> {
        self.block_of_line.get(line).copied().flatten().map(|i| &self.blocks[i])
    }

    /// The block holding the start of `span`, if any.
    pub fn block_of_span(&self, span: &Span) -> Option<&CodeBlock> {
        self.block_of_line(span.start.line)
    }

    /// The module-level block, if the file has code outside classes and functions.
    pub fn module_level(&self) -> Option<&CodeBlock> {
        self.blocks.iter().find(|b| b.kind == BlockKind::ModuleLevel)
    }
}

/// A definition found while walking the tree, before lines are assigned.
struct Definition {
    kind: BlockKind,
    name: String,
    class_header: Option<String>,
    span: Span,
}

/// Where a statement stands while walking: at module level or in a class body.
#[derive(Clone)]
enum Scope {
    Module,
    Class { name: String, header: String },
}

/// Cuts a parsed Python file into CodeQueries code blocks.
pub fn code_blocks(file: &ParsedFile) -> Blocks {
    let definitions = find_definitions(file);
    assign_lines(file, definitions)
}

fn find_definitions(file: &ParsedFile) -> Vec<Definition> {
    let mut definitions = Vec::new();
    let mut stack: Vec<(Node<'_>, Scope)> = Vec::new();
    push_children(&mut stack, file.root(), &Scope::Module);
    while let Some((node, scope)) = stack.pop() {
        let definition =
            if node.py_kind() == Kind::DecoratedDefinition { node.field(Field::Definition) } else { Some(node) };
        match definition.map(|d| (d, d.py_kind())) {
            Some((def, Kind::FunctionDefinition)) => {
                let name = field_text(file, def, Field::Name);
                let (kind, name, class_header) = match &scope {
                    Scope::Module => (BlockKind::ModuleFunction, name, None),
                    Scope::Class { name: class, header } => {
                        (BlockKind::ClassMethod, format!("{class}.{name}"), Some(header.clone()))
                    }
                };
                definitions.push(Definition { kind, name, class_header, span: file.span_of(node) });
            }
            Some((def, Kind::ClassDefinition)) if matches!(scope, Scope::Module) => {
                let name = field_text(file, def, Field::Name);
                let header = class_header(file, def);
                definitions.push(Definition {
                    kind: BlockKind::ClassLevel,
                    name: name.clone(),
                    class_header: Some(header.clone()),
                    span: file.span_of(node),
                });
                if let Some(body) = def.field(Field::Body) {
                    push_children(&mut stack, body, &Scope::Class { name, header });
                }
            }
            _ if TRANSPARENT.contains(&node.py_kind()) => push_children(&mut stack, node, &scope),
            _ => {}
        }
    }
    definitions
}

/// Pushes the children of `node` so that they pop in source order.
fn push_children<'t>(stack: &mut Vec<(Node<'t>, Scope)>, node: Node<'t>, scope: &Scope) {
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
    for child in children.into_iter().rev() {
        stack.push((child, scope.clone()));
    }
}

fn field_text(file: &ParsedFile, node: Node<'_>, field: Field) -> String {
    node.field(field).map(|n| file.node_text(n).to_string()).unwrap_or_default()
}

/// The class header from `class` up to and including the colon before the body.
fn class_header(file: &ParsedFile, class: Node<'_>) -> String {
    let end = class
        .field(Field::Body)
        .and_then(|body| body.prev_sibling())
        .map_or(class.end_byte(), |colon| colon.end_byte());
    file.text()[class.start_byte()..end.max(class.start_byte())].to_string()
}

/// Gives each line to its block: module first, then classes, then functions
/// and methods, each claiming the lines of its definition that do not start
/// before it.
fn assign_lines(file: &ParsedFile, mut definitions: Vec<Definition>) -> Blocks {
    let lines = file.source().lines();
    let text = file.text();
    let line_count = lines.line_count();
    // Slot 0 is the module-level block; definition i is slot i + 1.
    let mut owner: Vec<usize> = vec![0; line_count];
    definitions.sort_by_key(|d| (d.kind != BlockKind::ClassLevel, d.span.start_byte));
    for (i, def) in definitions.iter().enumerate() {
        // The last line holding a byte of the definition: a node that ends at
        // the start of a line (after its final newline) does not own that line.
        let last_line = lines.line_of(def.span.end_byte.saturating_sub(1).max(def.span.start_byte));
        for (line, slot) in owner.iter_mut().enumerate().take(last_line + 1).skip(def.span.start.line) {
            let range = lines.line_range(line).unwrap_or(0..0);
            let first_code = text[range.clone()].find(|c: char| !c.is_whitespace()).map(|offset| range.start + offset);
            if first_code.is_none_or(|offset| offset >= def.span.start_byte) {
                *slot = i + 1;
            }
        }
    }
    let mut has_code = vec![false; definitions.len() + 1];
    for (line, &slot) in owner.iter().enumerate() {
        let range = lines.line_range(line).unwrap_or(0..0);
        if text[range].chars().any(|c| !c.is_whitespace()) {
            has_code[slot] = true;
        }
    }
    let mut runs: Vec<Vec<LineRun>> = vec![Vec::new(); definitions.len() + 1];
    for (line, &slot) in owner.iter().enumerate() {
        match runs[slot].last_mut() {
            Some(run) if run.end + 1 == line => run.end = line,
            _ => runs[slot].push(LineRun { start: line, end: line }),
        }
    }
    let module = CodeBlock {
        index: 0,
        kind: BlockKind::ModuleLevel,
        name: String::new(),
        class_header: None,
        lines: std::mem::take(&mut runs[0]),
        definition: None,
    };
    let mut candidates = vec![(has_code[0], module)];
    for (i, def) in definitions.into_iter().enumerate() {
        candidates.push((
            has_code[i + 1],
            CodeBlock {
                index: 0,
                kind: def.kind,
                name: def.name,
                class_header: def.class_header,
                lines: std::mem::take(&mut runs[i + 1]),
                definition: Some(def.span),
            },
        ));
    }
    let mut blocks: Vec<CodeBlock> = candidates.into_iter().filter(|(code, _)| *code).map(|(_, b)| b).collect();
    blocks.sort_by_key(|b| b.lines[0].start);
    let mut block_of_line = vec![None; line_count];
    for (index, block) in blocks.iter_mut().enumerate() {
        block.index = index;
        for run in &block.lines {
            for slot in &mut block_of_line[run.start..=run.end] {
                *slot = Some(index);
            }
        }
    }
    Blocks { blocks, block_of_line }
}
