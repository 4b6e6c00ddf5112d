//! Everything the queries need about one file, computed once and shared.
//!
//! [`FileContext`] is the top of the analysis core: it composes the syntax
//! layer ([`FileSyntax`]) and the analyses, builds each on first use from
//! the inputs it needs, and is the only module that knows all of them. The
//! analyses take their inputs as arguments and never see a `FileContext`.

use std::cell::OnceCell;

use quarry_syntax::walk::NodeIdMap;
use quarry_syntax::{code_blocks, Blocks, ParsedFile, Span};
use tree_sitter::Node;

use crate::calls::{CallResolver, CallTarget};
use crate::classes::Classes;
use crate::file_syntax::FileSyntax;
use crate::flow::ScopeFlow;
use crate::imports::Imports;
use crate::project::{ProjectFile, ProjectView};
use crate::reachability::Reachability;
use crate::scopes::Scopes;
use crate::syntax::Kind;

/// One parsed Python file with its blocks and lazily computed analyses.
/// Parsing and block extraction happen once per file; every query shares them.
pub struct FileContext<'f> {
    syntax: FileSyntax<'f>,
    blocks: Blocks,
    project: Option<ProjectFile<'f>>,
    scopes: OnceCell<Scopes>,
    classes: OnceCell<Classes<'f>>,
    imports: OnceCell<Imports<'f>>,
    reachability: OnceCell<Reachability>,
    flows: OnceCell<Vec<ScopeFlow<'f>>>,
    call_targets: OnceCell<NodeIdMap<Option<CallTarget<'f>>>>,
}

impl<'f> FileContext<'f> {
    /// Prepares the context of a parsed file.
    pub fn new(file: &'f ParsedFile) -> FileContext<'f> {
        FileContext::within(file, None)
    }

    /// Prepares the context of a parsed file that is a module of a project:
    /// names it imports from other modules of the project resolve there.
    pub fn within(file: &'f ParsedFile, project: Option<ProjectView>) -> FileContext<'f> {
        FileContext::with_syntax(FileSyntax::new(file), project)
    }

    /// [`FileContext::within`] on a syntax layer already made (whose depth
    /// may have been checked: [`FileSyntax::check_depth`]).
    pub fn with_syntax(syntax: FileSyntax<'f>, project: Option<ProjectView>) -> FileContext<'f> {
        let file = syntax.file();
        FileContext {
            syntax,
            blocks: code_blocks(file),
            project: project.map(|view| ProjectFile::new(file, view)),
            scopes: OnceCell::new(),
            classes: OnceCell::new(),
            imports: OnceCell::new(),
            reachability: OnceCell::new(),
            flows: OnceCell::new(),
            call_targets: OnceCell::new(),
        }
    }

    /// The file's syntax layer: tree, node index, parent index, each
    /// function's own nodes (the methods below are its most used ones).
    pub fn syntax(&self) -> &FileSyntax<'f> {
        &self.syntax
    }

    /// The parsed file.
    pub fn file(&self) -> &'f ParsedFile {
        self.syntax.file()
    }

    /// The file's code blocks.
    pub fn blocks(&self) -> &Blocks {
        &self.blocks
    }

    /// The scopes and bindings of the file (computed on first use).
    pub fn scopes(&self) -> &Scopes {
        self.scopes.get_or_init(|| Scopes::build(&self.syntax))
    }

    /// Which statements can complete normally (computed on first use).
    pub fn reachability(&self) -> &Reachability {
        self.reachability.get_or_init(|| Reachability::build(&self.syntax))
    }

    /// Definition–use flow of every module, class and function scope
    /// (computed on first use).
    pub fn flows(&self) -> &[ScopeFlow<'f>] {
        self.flows.get_or_init(|| crate::flow::analyse_file(&self.syntax, self.scopes()))
    }

    /// The file's call and reference resolution, over its syntax, scopes,
    /// classes and project.
    pub fn calls(&self) -> CallResolver<'_, 'f> {
        CallResolver {
            syntax: &self.syntax,
            scopes: self.scopes(),
            classes: self.classes(),
            project: self.project.as_ref(),
        }
    }

    /// What a call resolves to ([`CallResolver::resolve_call`]): every call
    /// of the file is resolved once, on first use, and shared by the queries.
    pub fn call_target(&self, call: Node<'f>) -> Option<CallTarget<'f>> {
        let targets = self.call_targets.get_or_init(|| {
            let calls = self.calls();
            self.nodes(Kind::Call).iter().map(|&c| (c.id(), calls.resolve_call(c))).collect()
        });
        match targets.get(&call.id()) {
            Some(target) => *target,
            None => self.calls().resolve_call(call),
        }
    }

    /// The classes of the file with their bases and MROs, across modules
    /// when the file is part of a project (computed on first use).
    pub fn classes(&self) -> &Classes<'f> {
        self.classes.get_or_init(|| {
            Classes::build(&self.syntax, self.nodes(Kind::ClassDefinition), self.scopes(), self.project.as_ref())
        })
    }

    /// The project the file is analysed in, with the file's module.
    pub fn project(&self) -> Option<&ProjectView> {
        self.project.as_ref().map(ProjectFile::view)
    }

    /// The file as a module of its project: module-level bindings and the
    /// project classes its dotted names stand for.
    pub fn project_file(&self) -> Option<&ProjectFile<'f>> {
        self.project.as_ref()
    }

    /// The module-level imports and the uses of names (computed on first use).
    pub fn imports(&self) -> &Imports<'f> {
        self.imports.get_or_init(|| Imports::build(&self.syntax, self.scopes()))
    }

    /// The innermost function definition containing `node`
    /// ([`FileSyntax::enclosing_function`]).
    pub fn enclosing_function(&self, node: Node<'f>) -> Option<Node<'f>> {
        self.syntax.enclosing_function(node)
    }

    /// The named nodes of a function's own scope ([`FileSyntax::own_nodes`]).
    pub fn own_nodes(&self, function: Node<'f>) -> &[Node<'f>] {
        self.syntax.own_nodes(function)
    }

    /// The source text of a node.
    pub fn text(&self, node: Node<'_>) -> &'f str {
        self.syntax.text(node)
    }

    /// The CodeQL-style location of a node (see [`crate::ast::location`]).
    pub fn location(&self, node: Node<'_>) -> Span {
        self.syntax.location(node)
    }

    /// The whole span of a node.
    pub fn span(&self, node: Node<'_>) -> Span {
        self.syntax.span(node)
    }

    /// Every node of the given kind, in source order ([`FileSyntax::nodes`]).
    pub fn nodes(&self, kind: Kind) -> &[Node<'f>] {
        self.syntax.nodes(kind)
    }

    /// The indices of the blocks holding the given spans, sorted and unique.
    pub fn blocks_of(&self, spans: &[Span]) -> Vec<usize> {
        let mut indices: Vec<usize> =
            spans.iter().filter_map(|s| self.blocks.block_of_span(s)).map(|b| b.index).collect();
        indices.sort_unstable();
        indices.dedup();
        indices
    }

    /// The indices of the blocks with at least one line inside one of the
    /// given spans, sorted and unique: a class's span gives its class-level
    /// block and all its methods.
    pub fn blocks_within(&self, spans: &[Span]) -> Vec<usize> {
        let mut indices: Vec<usize> = Vec::new();
        for span in spans {
            for line in span.start.line..=span.end.line {
                if let Some(block) = self.blocks.block_of_line(line) {
                    indices.push(block.index);
                }
            }
        }
        indices.sort_unstable();
        indices.dedup();
        indices
    }
}
