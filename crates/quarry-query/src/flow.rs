//! Definition–use flow within one scope: for every definition of a name,
//! whether its value can be read (a use is reachable from it without an
//! intervening redefinition) and which definitions immediately overwrite it.
//!
//! A statement-level control-flow graph is built for the scope's body: a node
//! per statement, per `elif`, `except` and `case` clause and per `for` iterable
//! (evaluated once, before the loop head binds the target), with edges for
//! sequencing, branches, loops (back edges, `break`, `continue`, infinite
//! `while True:`; no edges into branches that a literal condition such as
//! `if False:` rules out), `return` and `raise`, and exceptional edges from every
//! statement that may raise in a `try` body to its handlers and `finally`, and
//! in a `with` body to the statement after the `with` (the context manager may
//! suppress the exception). Within a node the names it reads are read before
//! the names it binds (`x = x + 1` reads the old `x`). Reaching definitions are
//! then propagated to a fixpoint, one name at a time. In module and class
//! scopes every definition that reaches the end of the scope counts as used
//! (the namespace is exported); `del x` counts as a use. Built without
//! recursion.

use crate::node_tree::NodeTree;
use crate::syntax::{Field, Kind, SyntaxNode};
use std::collections::{BTreeSet, HashMap, HashSet};

use quarry_syntax::{ParsedFile, Span};
use tree_sitter::Node;

use crate::ast::named_children;
use crate::file_syntax::FileSyntax;
use crate::reachability::{clause_block, constant_condition, loop_of_jump};
use crate::scopes::{BindingKind, ScopeId, ScopeKind, Scopes};
use quarry_syntax::walk::NodeIdMap;

/// One definition of a name in a scope and what becomes of its value.
#[derive(Debug, Clone)]
pub struct FlowDef<'f> {
    /// The name.
    pub name: String,
    /// The identifier that is bound.
    pub node: Node<'f>,
    /// Its span.
    pub span: Span,
    /// How it is bound.
    pub kind: BindingKind,
    /// Whether some use of the name can read this value.
    pub used: bool,
    /// The identifier's parent node.
    pub parent: Option<Node<'f>>,
    /// Whether the parent sits in a `decorated_definition`.
    pub decorated: bool,
    /// Indices (into [`ScopeFlow::defs`]) of the definitions that overwrite
    /// this one with no other definition in between.
    pub redefs: Vec<usize>,
}

/// The definitions of one scope.
#[derive(Debug, Clone)]
pub struct ScopeFlow<'f> {
    /// The scope analysed.
    pub scope: ScopeId,
    /// Its definitions, in source order.
    pub defs: Vec<FlowDef<'f>>,
    /// Names read or written in a nested scope (free variables of closures),
    /// or declared `global`/`nonlocal` here: their definitions escape.
    pub escaping: HashSet<String>,
    /// Whether the scope calls `locals()` or `vars()` (which read every local).
    pub reads_locals: bool,
    /// Indices into `defs` by the id of the bound identifier.
    by_node: HashMap<usize, Vec<usize>>,
}

impl<'f> ScopeFlow<'f> {
    /// Whether the definition's value is never read: not used, not escaping,
    /// and not read through `locals()`/`vars()`.
    pub fn is_unused(&self, def: &FlowDef<'_>) -> bool {
        !def.used && !self.escaping.contains(&def.name) && !self.reads_locals
    }

    /// The definitions binding the identifier `node` (one lookup, not a scan of `defs`).
    pub fn defs_of(&self, node: Node<'_>) -> impl Iterator<Item = &FlowDef<'f>> + '_ {
        self.by_node.get(&node.id()).into_iter().flatten().map(|&i| &self.defs[i])
    }

    fn new(scope: ScopeId, defs: Vec<FlowDef<'f>>, escaping: HashSet<String>, reads_locals: bool) -> Self {
        let mut by_node: HashMap<usize, Vec<usize>> = HashMap::new();
        for (i, def) in defs.iter().enumerate() {
            by_node.entry(def.node.id()).or_default().push(i);
        }
        ScopeFlow { scope, defs, escaping, reads_locals, by_node }
    }
}

/// Analyses every module, class and function scope of the file.
pub fn analyse_file<'f>(syntax: &FileSyntax<'f>, scopes: &Scopes) -> Vec<ScopeFlow<'f>> {
    let mut by_id: NodeIdMap<Node<'f>> = NodeIdMap::default();
    for kind in [Kind::FunctionDefinition, Kind::ClassDefinition] {
        for node in syntax.nodes(kind) {
            by_id.insert(node.id(), *node);
        }
    }
    let root = syntax.file().root();
    by_id.insert(root.id(), root);
    let mut result = Vec::new();
    for (id, scope) in ScopeId::enumerate(scopes.all()) {
        if !matches!(scope.kind, ScopeKind::Module | ScopeKind::Class | ScopeKind::Function) {
            continue;
        }
        let Some(node) = by_id.get(&scope.node_id) else { continue };
        result.push(analyse_scope(syntax, scopes, id, *node));
    }
    result
}

const EXIT: usize = usize::MAX;

/// The multiplicative hash of node-id maps, for the short names the flow
/// keys its events by (their order never matters: names are sorted).
type FastHash = std::hash::BuildHasherDefault<quarry_syntax::walk::NodeIdHasher>;

/// A read (`None`) or a write (the definition) of a name, at a position
/// of a basic block: `(block, position, definition)`.
type Event = (usize, usize, Option<usize>);

struct Graph<'t, 'p> {
    nodes: Vec<Node<'t>>,
    index: NodeIdMap<usize>,
    body: Node<'t>,
    file: &'t ParsedFile,
    /// The file's parent index (tree-sitter's `Node::parent` scans from the root).
    parents: &'p NodeTree<'t>,
    /// For every named statement of a block or module walked here (comments
    /// aside), the next one, as `next_named_sibling` past comments finds it
    /// (tree-sitter's own finds the parent from the root).
    next_in_block: NodeIdMap<Option<Node<'t>>>,
}

fn analyse_scope<'f>(
    syntax: &FileSyntax<'f>,
    scopes: &Scopes,
    scope_id: ScopeId,
    scope_node: Node<'f>,
) -> ScopeFlow<'f> {
    let scope = scopes.get(scope_id);
    let body = if scope_node.py_kind() == Kind::Module { Some(scope_node) } else { scope_node.field(Field::Body) };
    let mut escaping: HashSet<String> = scope.globals.iter().chain(&scope.nonlocals).cloned().collect();
    escaping.extend(free_in_children(scopes, scope_id));
    let reads_locals =
        scope.kind == ScopeKind::Function && scope.uses.iter().any(|u| u.name == "locals" || u.name == "vars");
    let mut defs: Vec<FlowDef<'f>> = Vec::new();
    let Some(body) = body else {
        return ScopeFlow::new(scope_id, defs, escaping, reads_locals);
    };
    let graph = Graph::build(body, syntax.file(), syntax.parents());
    let n = graph.nodes.len();
    let entry_node = n;
    // Events per graph node: names read, then definitions made.
    let mut reads: Vec<Vec<&str>> = vec![Vec::new(); n + 1];
    let mut writes: Vec<Vec<usize>> = vec![Vec::new(); n + 1];
    let ranges = graph.own_ranges();
    let locate = |byte: usize| -> Option<usize> {
        let i = ranges.partition_point(|r| r.0 <= byte);
        let (start, end, node) = *ranges.get(i.checked_sub(1)?)?;
        (start <= byte && byte < end).then_some(node)
    };
    for binding in &scope.bindings {
        let Some(kind) = binding.kind else { continue };
        let ident = syntax.parents().node_of_id(binding.node_id).filter(|n| n.py_kind() == Kind::Identifier);
        let Some(ident) = ident.as_ref() else { continue };
        let at = if kind == BindingKind::Parameter { Some(entry_node) } else { locate(binding.start_byte) };
        let Some(at) = at else { continue };
        if kind == BindingKind::Delete {
            reads[at].push(binding.name.as_str());
            continue;
        }
        writes[at].push(defs.len());
        defs.push(FlowDef {
            name: binding.name.clone(),
            node: *ident,
            span: binding.span,
            kind,
            used: false,
            parent: syntax.parent(*ident),
            decorated: syntax
                .parent(*ident)
                .and_then(|p| syntax.parent(p))
                .is_some_and(|g| g.py_kind() == Kind::DecoratedDefinition),
            redefs: Vec::new(),
        });
    }
    for usage in &scope.uses {
        if let Some(at) = locate(usage.start_byte) {
            reads[at].push(usage.name.as_str());
        }
    }
    let (normal, exceptional) = graph.successors();
    let mut entry_succ = Vec::new();
    if let Some(first) = graph.entry_of_block(body) {
        entry_succ.push(first);
    } else {
        entry_succ.push(EXIT);
    }
    let exit_slot = n + 1;
    let slot = |target: usize| if target == EXIT { exit_slot } else { target };
    // Successors of every node, with the entry (n) and the exit (n + 1).
    let mut succ: Vec<Vec<usize>> = normal.iter().map(|s| s.iter().map(|&t| slot(t)).collect()).collect();
    succ.push(entry_succ.iter().map(|&t| slot(t)).collect());
    succ.push(Vec::new());
    let mut exc: Vec<Vec<usize>> = exceptional.iter().map(|s| s.iter().map(|&t| slot(t)).collect()).collect();
    exc.push(Vec::new());
    exc.push(Vec::new());
    let blocks = BasicBlocks::new(&succ, &exc, entry_node, exit_slot);
    // Reads and writes of each name, in block order: (block, position, def or
    // `None` for a read). Within a node reads come before writes.
    let mut events: HashMap<&str, Vec<Event>, FastHash> = HashMap::default();
    // Reads of names never defined here need no events (a set: one lookup per read, not a
    // scan of every definition).
    let defined: HashSet<&str, FastHash> = defs.iter().map(|d| d.name.as_str()).collect();
    for node in 0..=entry_node {
        let (block, position) = (blocks.block_of[node], blocks.position[node]);
        for &name in &reads[node] {
            if let Some(list) = events.get_mut(name) {
                list.push((block, position, None));
            } else if defined.contains(name) {
                events.insert(name, vec![(block, position, None)]);
            }
        }
        for &d in &writes[node] {
            events.entry(defs[d].name.as_str()).or_default().push((block, position, Some(d)));
        }
    }
    let mut redefs: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); defs.len()];
    let mut used = vec![false; defs.len()];
    // Names are analysed one at a time over basic blocks, so states stay
    // small (the reaching definitions of one name) and straight-line code
    // costs one step per name. Buffers are reused between names.
    let block_count = blocks.nodes.len();
    let mut states: Vec<Vec<usize>> = vec![Vec::new(); block_count];
    let mut touched: Vec<usize> = Vec::new();
    let mut queued = vec![false; block_count];
    // The range of each block's events in the list of the name at hand
    // (`NO_EVENTS` for a block with none), reset after each name.
    const NO_EVENTS: (usize, usize) = (usize::MAX, usize::MAX);
    let mut ranges: Vec<(usize, usize)> = vec![NO_EVENTS; block_count];
    let mut names: Vec<&str> = events.keys().copied().collect();
    names.sort_unstable();
    for name in names {
        let mut list = events.remove(name).unwrap_or_default();
        list.sort_by_key(|&(block, position, def)| (block, position, def.is_some()));
        for (i, &(block, _, _)) in list.iter().enumerate() {
            if ranges[block] == NO_EVENTS {
                ranges[block] = (i, i + 1);
            } else {
                ranges[block].1 = i + 1;
            }
        }
        let mut worklist: Vec<usize> = Vec::new();
        for &(block, _, def) in &list {
            if def.is_some() && !queued[block] {
                queued[block] = true;
                worklist.push(block);
                touched.push(block);
            }
        }
        while let Some(current) = worklist.pop() {
            queued[current] = false;
            // The state before the block, which its exceptional successors
            // receive (kept only when it has some).
            let before = if blocks.exc[current].is_empty() { Vec::new() } else { states[current].clone() };
            let mut state = states[current].clone();
            if let Some(&(from, to)) = Some(&ranges[current]).filter(|r| **r != NO_EVENTS) {
                for &(_, _, def) in &list[from..to] {
                    match def {
                        None => state.iter().for_each(|&d| used[d] = true),
                        Some(d) => {
                            for &r in &state {
                                if r != d {
                                    redefs[r].insert(d);
                                }
                            }
                            state.clear();
                            state.push(d);
                        }
                    }
                }
            }
            let normal_targets = blocks.succ[current].iter().map(|&t| (t, &state));
            let exceptional_targets = blocks.exc[current].iter().map(|&t| (t, &before));
            for (t, incoming) in normal_targets.chain(exceptional_targets) {
                let mut grew = false;
                for &d in incoming {
                    if !states[t].contains(&d) {
                        states[t].push(d);
                        grew = true;
                    }
                }
                if grew {
                    touched.push(t);
                    if !queued[t] {
                        queued[t] = true;
                        worklist.push(t);
                    }
                }
            }
        }
        if matches!(scope.kind, ScopeKind::Module | ScopeKind::Class) {
            for &d in &states[blocks.block_of[exit_slot]] {
                used[d] = true;
            }
        }
        for t in touched.drain(..) {
            states[t].clear();
        }
        for &(block, _, _) in &list {
            ranges[block] = NO_EVENTS;
        }
    }
    for (i, def) in defs.iter_mut().enumerate() {
        def.used = used[i];
        def.redefs = redefs[i].iter().copied().collect();
    }
    ScopeFlow::new(scope_id, defs, escaping, reads_locals)
}

/// Maximal straight-line runs of graph nodes. A node with exceptional
/// successors is a block of its own, so the state those successors receive
/// (the state before the node) is the block's incoming state.
struct BasicBlocks {
    /// The nodes of each block, in order.
    nodes: Vec<Vec<usize>>,
    /// The block of each node.
    block_of: Vec<usize>,
    /// The position of each node in its block.
    position: Vec<usize>,
    /// Normal successor blocks of each block.
    succ: Vec<Vec<usize>>,
    /// Exceptional successor blocks of each block.
    exc: Vec<Vec<usize>>,
}

impl BasicBlocks {
    fn new(succ: &[Vec<usize>], exc: &[Vec<usize>], entry: usize, exit: usize) -> BasicBlocks {
        let total = succ.len();
        let mut preds = vec![0usize; total];
        let mut leader = vec![false; total];
        for i in 0..total {
            for &t in &succ[i] {
                preds[t] += 1;
            }
            for &t in &exc[i] {
                leader[t] = true;
            }
        }
        leader[entry] = true;
        leader[exit] = true;
        for i in 0..total {
            if preds[i] != 1 || !exc[i].is_empty() {
                leader[i] = true;
            }
            if succ[i].len() != 1 || !exc[i].is_empty() {
                for &t in &succ[i] {
                    leader[t] = true;
                }
            }
        }
        let mut block_of = vec![usize::MAX; total];
        let mut position = vec![0; total];
        let mut nodes: Vec<Vec<usize>> = Vec::new();
        // Leaders first; any node left over (an isolated cycle) starts its own block.
        let starts: Vec<usize> = (0..total).filter(|&i| leader[i]).chain(0..total).collect();
        for start in starts {
            if block_of[start] != usize::MAX {
                continue;
            }
            let block = nodes.len();
            let mut chain = vec![start];
            block_of[start] = block;
            let mut current = start;
            while succ[current].len() == 1 && exc[current].is_empty() {
                let next = succ[current][0];
                if leader[next] || block_of[next] != usize::MAX {
                    break;
                }
                block_of[next] = block;
                position[next] = chain.len();
                chain.push(next);
                current = next;
            }
            nodes.push(chain);
        }
        let mut block_succ = Vec::with_capacity(nodes.len());
        let mut block_exc = Vec::with_capacity(nodes.len());
        for chain in &nodes {
            let last = chain.last().copied().unwrap_or(exit);
            block_succ.push(succ[last].iter().map(|&t| block_of[t]).collect());
            block_exc.push(exc[last].iter().map(|&t| block_of[t]).collect());
        }
        BasicBlocks { nodes, block_of, position, succ: block_succ, exc: block_exc }
    }
}

/// Names read or written in scopes nested in `scope` that do not bind them
/// locally, or that they declare `nonlocal`.
fn free_in_children(scopes: &Scopes, scope: ScopeId) -> HashSet<String> {
    let mut names = HashSet::new();
    let mut stack: Vec<ScopeId> = scopes.get(scope).children.clone();
    while let Some(id) = stack.pop() {
        let s = scopes.get(id);
        for u in &s.uses {
            if !s.is_local(&u.name) {
                names.insert(u.name.clone());
            }
        }
        names.extend(s.nonlocals.iter().cloned());
        stack.extend(s.children.iter().copied());
    }
    names
}

/// Node kinds whose evaluation may raise an exception.
const MAY_RAISE: &[Kind] = &[
    Kind::Call,
    Kind::Attribute,
    Kind::Subscript,
    Kind::BinaryOperator,
    Kind::RaiseStatement,
    Kind::AssertStatement,
    Kind::ImportStatement,
    Kind::ImportFromStatement,
    Kind::Await,
    Kind::Yield,
    Kind::ComparisonOperator,
    Kind::UnaryOperator,
    // Unpacking `a, b = value` raises when the lengths differ.
    Kind::PatternList,
    Kind::TuplePattern,
    Kind::ListPattern,
];

/// Statements that hold no block, so no statement or clause of the graph:
/// the graph's walk does not enter them (unless they hold a syntax error,
/// where the parser may have put anything inside).
const SIMPLE_STATEMENTS: &[Kind] = &[
    Kind::ExpressionStatement,
    Kind::ReturnStatement,
    Kind::ImportStatement,
    Kind::ImportFromStatement,
    Kind::FutureImportStatement,
    Kind::AssertStatement,
    Kind::RaiseStatement,
    Kind::DeleteStatement,
    Kind::PassStatement,
    Kind::BreakStatement,
    Kind::ContinueStatement,
    Kind::GlobalStatement,
    Kind::NonlocalStatement,
    Kind::PrintStatement,
    Kind::ExecStatement,
    Kind::TypeAliasStatement,
];

impl<'t, 'p> Graph<'t, 'p> {
    fn build(body: Node<'t>, file: &'t ParsedFile, parents: &'p NodeTree<'t>) -> Graph<'t, 'p> {
        let mut nodes = Vec::new();
        let mut next_in_block: NodeIdMap<Option<Node<'t>>> = NodeIdMap::default();
        // The last named statement seen in each block (the walk visits every
        // child of a block it enters, in order).
        let mut last_in_block: NodeIdMap<Node<'t>> = NodeIdMap::default();
        let mut walk = parents.walk(body);
        while let Some((position, node)) = walk.next() {
            if node.id() == body.id() {
                continue;
            }
            let parent = parents.parent_at(position);
            let is_clause = matches!(node.py_kind(), Kind::ElifClause | Kind::ExceptClause | Kind::CaseClause);
            if is_clause || crate::reachability::is_statement_in(node, parent) {
                nodes.push(node);
            }
            if let Some(block) = parent.filter(|p| matches!(p.py_kind(), Kind::Block | Kind::Module)) {
                if node.is_named() && node.py_kind() != Kind::Comment {
                    if let Some(previous) = last_in_block.insert(block.id(), node) {
                        next_in_block.insert(previous.id(), Some(node));
                    }
                    next_in_block.insert(node.id(), None);
                }
            }
            // A `for` loop's iterable is evaluated once, before the loop; its
            // target is bound on the way into the body only, so a loop that
            // runs no iteration leaves earlier values of the target alive.
            if node.py_kind() == Kind::ForStatement {
                nodes.extend(node.field(Field::Right));
                nodes.extend(node.field(Field::Left));
            }
            if matches!(node.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda)
                || (SIMPLE_STATEMENTS.contains(&node.py_kind()) && !node.has_error())
            {
                walk.skip_children();
            }
        }
        let index = nodes.iter().enumerate().map(|(i, n)| (n.id(), i)).collect();
        Graph { nodes, index, body, file, parents, next_in_block }
    }

    /// Byte ranges of each node's own code (its header for compound
    /// statements and clauses), sorted by start: `(start, end, node)`.
    fn own_ranges(&self) -> Vec<(usize, usize, usize)> {
        let mut ranges: Vec<(usize, usize, usize)> = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| {
                let end = first_block(*node).map_or(node.end_byte(), |b| b.start_byte());
                (node.start_byte(), end, i)
            })
            .collect();
        ranges.sort_unstable();
        ranges
    }

    fn idx(&self, node: Node<'_>) -> usize {
        self.index.get(&node.id()).copied().unwrap_or(EXIT)
    }

    /// Where control enters a statement: a `for` loop is entered through
    /// its iterable, other statements directly.
    fn entry_idx(&self, statement: Node<'_>) -> usize {
        match statement.py_kind() {
            Kind::ForStatement => statement.field(Field::Right).map_or(self.idx(statement), |r| self.idx(r)),
            _ => self.idx(statement),
        }
    }

    fn entry_of_block(&self, block: Node<'_>) -> Option<usize> {
        let first = self.parents.named_children(block).find(|c| c.py_kind() != Kind::Comment);
        first.map(|s| self.entry_idx(s))
    }

    fn entry_or_follow(&self, block: Option<Node<'_>>, owner: Node<'_>) -> usize {
        block.and_then(|b| self.entry_of_block(b)).unwrap_or_else(|| self.follow(owner))
    }

    fn finally_entry(&self, try_statement: Node<'_>) -> Option<usize> {
        self.parents
            .named_children(try_statement)
            .find(|c| c.py_kind() == Kind::FinallyClause)
            .and_then(clause_block)
            .and_then(|b| self.entry_of_block(b))
    }

    /// Where control goes after `statement` completes normally.
    fn follow(&self, statement: Node<'_>) -> usize {
        let mut current = statement;
        for _ in 0..10_000 {
            let in_block =
                self.parents.parent(current).is_some_and(|p| p.py_kind() == Kind::Block || p.py_kind() == Kind::Module);
            if in_block {
                let sibling = match self.next_in_block.get(&current.id()) {
                    Some(next) => *next,
                    None => {
                        let mut sibling = current.next_named_sibling();
                        while let Some(s) = sibling.filter(|s| s.py_kind() == Kind::Comment) {
                            sibling = s.next_named_sibling();
                        }
                        sibling
                    }
                };
                if let Some(next) = sibling {
                    return self.entry_idx(next);
                }
            }
            let Some(parent) = self.parents.parent(current) else { return EXIT };
            if parent.id() == self.body.id() {
                return EXIT;
            }
            let (block, owner) = if parent.py_kind() == Kind::Block {
                match self.parents.parent(parent) {
                    Some(owner) => (parent, owner),
                    None => return EXIT,
                }
            } else {
                (current, parent)
            };
            match owner.py_kind() {
                Kind::ForStatement | Kind::WhileStatement => {
                    if owner.field(Field::Body).is_some_and(|b| b.id() == block.id()) {
                        return self.idx(owner);
                    }
                    current = owner;
                }
                Kind::ElifClause | Kind::ExceptClause | Kind::FinallyClause | Kind::ElseClause => {
                    let Some(statement) = self.parents.parent(owner) else { return EXIT };
                    if statement.py_kind() == Kind::TryStatement && owner.py_kind() != Kind::FinallyClause {
                        if let Some(finally) = self.finally_entry(statement) {
                            return finally;
                        }
                    }
                    current = statement;
                }
                Kind::TryStatement => {
                    if let Some(else_block) = crate::reachability::else_clause(owner).and_then(clause_block) {
                        if let Some(entry) = self.entry_of_block(else_block) {
                            return entry;
                        }
                    }
                    if let Some(finally) = self.finally_entry(owner) {
                        return finally;
                    }
                    current = owner;
                }
                Kind::CaseClause => match self.parents.parent(owner).and_then(|b| self.parents.parent(b)) {
                    Some(statement) => current = statement,
                    None => return EXIT,
                },
                Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Module => return EXIT,
                _ => current = owner,
            }
        }
        EXIT
    }

    /// The next alternative of an `if` after `after` (an `elif` clause), or
    /// the first alternative when `after` is the `if` itself.
    fn next_alternative(&self, if_statement: Node<'_>, after: Option<Node<'_>>) -> usize {
        let mut seen = after.is_none();
        for clause in self.parents.named_children(if_statement) {
            if !seen {
                seen = Some(clause.id()) == after.map(|a| a.id());
                continue;
            }
            match clause.py_kind() {
                Kind::ElifClause => return self.idx(clause),
                Kind::ElseClause => return self.entry_or_follow(clause_block(clause), if_statement),
                _ => {}
            }
        }
        self.follow(if_statement)
    }

    fn successors(&self) -> (Vec<Vec<usize>>, Vec<Vec<usize>>) {
        let mut normal = Vec::with_capacity(self.nodes.len());
        let mut exceptional = Vec::with_capacity(self.nodes.len());
        for node in &self.nodes {
            let node = *node;
            let loop_of = |field: Field| {
                self.parents.parent(node).filter(|p| {
                    p.py_kind() == Kind::ForStatement && p.field(field).is_some_and(|r| r.id() == node.id())
                })
            };
            let (loop_of_iterable, loop_of_target) = (loop_of(Field::Right), loop_of(Field::Left));
            let succ = match node.py_kind() {
                _ if loop_of_iterable.is_some() => loop_of_iterable.map(|l| self.idx(l)).into_iter().collect(),
                _ if loop_of_target.is_some() => {
                    loop_of_target.map(|l| self.entry_or_follow(l.field(Field::Body), l)).into_iter().collect()
                }
                Kind::ReturnStatement | Kind::RaiseStatement => vec![EXIT],
                Kind::BreakStatement => vec![loop_of_jump(node, self.parents).map_or(EXIT, |l| self.follow(l))],
                Kind::ContinueStatement => vec![loop_of_jump(node, self.parents).map_or(EXIT, |l| self.idx(l))],
                // Branches ruled out by a literal condition get no edge.
                Kind::IfStatement | Kind::ElifClause => {
                    let statement = if node.py_kind() == Kind::IfStatement {
                        node
                    } else {
                        self.parents.parent(node).unwrap_or(node)
                    };
                    let after = (node.py_kind() == Kind::ElifClause).then_some(node);
                    let body = self.entry_or_follow(node.field(Field::Consequence), statement);
                    match constant_condition(self.file, node) {
                        Some(true) => vec![body],
                        Some(false) => vec![self.next_alternative(statement, after)],
                        None => vec![body, self.next_alternative(statement, after)],
                    }
                }
                Kind::WhileStatement | Kind::ForStatement => {
                    let body = match node.field(Field::Left).filter(|_| node.py_kind() == Kind::ForStatement) {
                        Some(target) => self.idx(target),
                        None => self.entry_or_follow(node.field(Field::Body), node),
                    };
                    let mut succ = vec![body];
                    let constant =
                        if node.py_kind() == Kind::WhileStatement { constant_condition(self.file, node) } else { None };
                    if constant == Some(false) {
                        succ.clear();
                    }
                    if constant != Some(true) {
                        let else_block = crate::reachability::else_clause(node).and_then(clause_block);
                        succ.push(else_block.and_then(|b| self.entry_of_block(b)).unwrap_or_else(|| self.follow(node)));
                    }
                    succ
                }
                Kind::TryStatement | Kind::WithStatement => {
                    vec![self.entry_or_follow(node.field(Field::Body), node)]
                }
                Kind::ExceptClause | Kind::CaseClause => match self.parents.parent(node) {
                    Some(_) => vec![self.entry_or_follow(clause_block(node), node)],
                    None => vec![EXIT],
                },
                Kind::MatchStatement => {
                    let mut succ: Vec<usize> = node
                        .field(Field::Body)
                        .map(named_children)
                        .unwrap_or_default()
                        .into_iter()
                        .filter(|c| c.py_kind() == Kind::CaseClause)
                        .map(|c| self.idx(c))
                        .collect();
                    succ.push(self.follow(node));
                    succ
                }
                _ => vec![self.follow(node)],
            };
            normal.push(succ);
            // Most statements sit in no `try` or `with`: their handlers are
            // found first, so that only those that have some walk their code.
            let handlers = self.handlers_of(node);
            exceptional.push(if !handlers.is_empty() && may_raise(node, self.parents) { handlers } else { Vec::new() });
        }
        (normal, exceptional)
    }

    /// Handlers (and `finally` blocks) of every `try` whose body holds `node`,
    /// the `finally` blocks of every `try` whose `except` or `else` clause
    /// holds it, and the statement after every `with` whose body holds it.
    fn handlers_of(&self, node: Node<'_>) -> Vec<usize> {
        let mut targets = Vec::new();
        let mut child = node;
        let mut current = self.parents.parent(node);
        while let Some(n) = current {
            if n.id() == self.body.id() {
                break;
            }
            if n.py_kind() == Kind::TryStatement && n.field(Field::Body).is_some_and(|b| b.id() == child.id()) {
                for clause in self.parents.named_children(n) {
                    if matches!(clause.py_kind(), Kind::ExceptClause) {
                        targets.push(self.idx(clause));
                    }
                }
                if let Some(finally) = self.finally_entry(n) {
                    targets.push(finally);
                }
            }
            // What an `except` or `else` clause raises runs the `finally` too.
            if n.py_kind() == Kind::TryStatement && matches!(child.py_kind(), Kind::ExceptClause | Kind::ElseClause) {
                targets.extend(self.finally_entry(n));
            }
            // The context manager may suppress the exception.
            if n.py_kind() == Kind::WithStatement && n.field(Field::Body).is_some_and(|b| b.id() == child.id()) {
                targets.push(self.follow(n));
            }
            child = n;
            current = self.parents.parent(n);
        }
        targets
    }
}

/// The first block that belongs to a compound statement or clause (its body).
fn first_block(node: Node<'_>) -> Option<Node<'_>> {
    let node =
        if node.py_kind() == Kind::DecoratedDefinition { node.field(Field::Definition).unwrap_or(node) } else { node };
    match node.py_kind() {
        Kind::IfStatement | Kind::ElifClause => node.field(Field::Consequence),
        Kind::MatchStatement
        | Kind::ForStatement
        | Kind::WhileStatement
        | Kind::TryStatement
        | Kind::WithStatement
        | Kind::FunctionDefinition
        | Kind::ClassDefinition => node.field(Field::Body),
        Kind::ExceptClause | Kind::CaseClause => clause_block(node),
        _ => None,
    }
}

/// Whether evaluating the node's own code (not its nested blocks) may raise.
fn may_raise(node: Node<'_>, tree: &NodeTree<'_>) -> bool {
    let mut walk = tree.walk(node);
    while let Some((_, n)) = walk.next() {
        if n.id() != node.id() && (n.py_kind() == Kind::Block || n.py_kind() == Kind::Lambda) {
            walk.skip_children();
            continue;
        }
        if MAY_RAISE.contains(&n.py_kind()) {
            return true;
        }
    }
    false
}

/// Whether a definition is one CodeQL considers for "unused" and "multiply
/// defined" alerts: a name whose parent is an assignment or a tuple, that is
/// a target of a plain assignment (also inside a tuple, in assignments and
/// loop or `with` targets) or the name of an undecorated `def` or `class`.
/// Augmented assignments are not (CodeQL's target of `x += 1` is a child of
/// the binary operation), nor are annotated assignments, list targets and
/// starred targets.
pub fn is_relevant(def: &FlowDef<'_>) -> bool {
    let Some(parent) = def.parent else { return false };
    match def.kind {
        BindingKind::Definition => {
            !def.decorated && matches!(parent.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition)
        }
        BindingKind::Assign => match parent.py_kind() {
            Kind::Assignment => parent.field(Field::Type).is_none(),
            kind => is_tuple(kind),
        },
        BindingKind::LoopTarget | BindingKind::WithTarget => is_tuple(parent.py_kind()),
        _ => false,
    }
}

fn is_tuple(kind: Kind) -> bool {
    matches!(kind, Kind::PatternList | Kind::TuplePattern | Kind::Tuple | Kind::ExpressionList)
}

/// The other names of the tuple target that holds `def` (empty when the
/// definition is not an element of a tuple).
pub fn tuple_siblings<'f>(def: &FlowDef<'f>) -> Vec<Node<'f>> {
    match def.parent {
        Some(parent) if is_tuple(parent.py_kind()) => named_children(parent)
            .into_iter()
            .filter(|c| c.py_kind() == Kind::Identifier && c.id() != def.node.id())
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether a name is conventionally used for values that are meant to be
/// unused: `_`, `__`, `empty`, `dummy`, anything containing `unused`, or
/// starting with `__`.
pub fn name_acceptable_for_unused(name: &str) -> bool {
    (!name.is_empty() && name.chars().all(|c| c == '_'))
        || name == "empty"
        || name.contains("unused")
        || name == "dummy"
        || name.starts_with("__")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileContext;
    use quarry_syntax::{Language, ParsedFile, SourceFile};

    fn summary(source: &str) -> Vec<String> {
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap();
        let cx = FileContext::new(&file);
        let mut out = Vec::new();
        for flow in analyse_file(cx.syntax(), cx.scopes()) {
            for def in &flow.defs {
                let redefs: Vec<usize> = def.redefs.iter().map(|&r| flow.defs[r].span.start.line).collect();
                out.push(format!(
                    "{}@{} unused={} redefs={:?}",
                    def.name,
                    def.span.start.line,
                    flow.is_unused(def),
                    redefs
                ));
            }
        }
        out
    }

    #[test]
    fn straight_line() {
        let s = summary("def f(a):\n    x = 1\n    y = a\n    x = 2\n    return x\n");
        assert!(s.contains(&"x@1 unused=true redefs=[3]".to_string()), "{s:?}");
        assert!(s.contains(&"y@2 unused=true redefs=[]".to_string()), "{s:?}");
        assert!(s.contains(&"x@3 unused=false redefs=[]".to_string()), "{s:?}");
        assert!(s.contains(&"a@0 unused=false redefs=[]".to_string()), "{s:?}");
    }

    #[test]
    fn try_and_branches() {
        let src = "def g():\n    try:\n        bad = os.environ['X']\n        bad = 1\n    except KeyError:\n        bad = 0\n    return bad\n";
        let s = summary(src);
        assert!(s.contains(&"bad@2 unused=true redefs=[3]".to_string()), "{s:?}");
        let src = "def g(c):\n    x = 1\n    if c:\n        x = 2\n    return x\n";
        let s = summary(src);
        assert!(s.contains(&"x@1 unused=false redefs=[3]".to_string()), "{s:?}");
        let src = "def g():\n    x = 1\n    if False:\n        return x\n    x = 2\n    while 0:\n        print(x)\n    return x\n";
        let s = summary(src);
        assert!(s.contains(&"x@1 unused=true redefs=[4]".to_string()), "{s:?}");
        let src = "def g(items):\n    for x in items:\n        items = x\n    return 0\n";
        let s = summary(src);
        assert!(s.contains(&"items@2 unused=true redefs=[]".to_string()), "{s:?}");
        let src = "def g(xs):\n    doc = ''\n    for x in xs:\n        doc += x\n    return doc\n";
        let s = summary(src);
        assert!(s.contains(&"doc@1 unused=false redefs=[3]".to_string()), "{s:?}");
        assert!(s.contains(&"doc@3 unused=false redefs=[]".to_string()), "{s:?}");
        // A handler that re-raises runs the `finally`, which reads its values.
        let src = "def g(pool):\n    clean = False\n    try:\n        pool.get()\n        clean = True\n    except KeyError:\n        clean = True\n        raise\n    finally:\n        print(clean)\n";
        let s = summary(src);
        assert!(s.contains(&"clean@6 unused=false redefs=[]".to_string()), "{s:?}");
        // Unpacking may raise: the handler sees the values before the `try`.
        let src = "def g(t):\n    table = {}\n    try:\n        a, b = t\n    except ValueError:\n        return table\n    return a\n";
        let s = summary(src);
        assert!(s.contains(&"table@1 unused=false redefs=[]".to_string()), "{s:?}");
        // A loop that runs no iteration leaves the value before it alive.
        let src = "def g(xs):\n    i = -1\n    for i in xs:\n        print(i)\n    return i\n";
        let s = summary(src);
        assert!(s.contains(&"i@1 unused=false redefs=[2]".to_string()), "{s:?}");
        let src = "def g(xs):\n    i = -1\n    i = 0\n    for i in xs:\n        print(i)\n    return i\n";
        let s = summary(src);
        assert!(s.contains(&"i@1 unused=true redefs=[2]".to_string()), "{s:?}");
    }

    #[test]
    fn loops_and_exports() {
        let src = "x = 1\nx = 2\ndef f():\n    return y\ny = 3\n";
        let s = summary(src);
        assert!(s.contains(&"x@0 unused=true redefs=[1]".to_string()), "{s:?}");
        assert!(s.contains(&"x@1 unused=false redefs=[]".to_string()), "{s:?}");
        assert!(s.contains(&"y@4 unused=false redefs=[]".to_string()), "{s:?}");
        let src = "def f():\n    n = 0\n    while True:\n        n = n + 1\n        if n > 3:\n            break\n    return\n";
        let s = summary(src);
        assert!(s.contains(&"n@3 unused=false redefs=[]".to_string()), "{s:?}");
    }
}
