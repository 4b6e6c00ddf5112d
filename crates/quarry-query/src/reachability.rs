//! Statement reachability: which statements can complete normally, and which
//! statements can never run because every path to them leaves the block first.
//!
//! A statement cannot complete normally when it is `return`, `raise`,
//! `break` or `continue`; an `if` whose branches (including an `else`) all
//! cannot complete; a `while True:` (or `while 1:`) loop without a `break`;
//! a `try` whose body (with its `else`) and every handler cannot complete, or
//! whose `finally` cannot complete; a `match` with a wildcard case whose
//! cases all cannot complete. A `with` statement always may complete: its
//! context manager may suppress an exception raised in the body. Statements
//! after such a statement in the same block are unreachable, as is the
//! `else` clause of an infinite `while` loop. Everything is computed bottom-up
//! over one pre-order listing of the tree, without recursion.

use crate::builtins::{is_builtin_in, PythonVersion};
use crate::syntax::{Field, Kind, SyntaxNode};
use std::collections::HashSet;

use crate::node_tree::NodeTree;
use quarry_syntax::walk::NodeIdMap;
use quarry_syntax::ParsedFile;
use tree_sitter::Node;

use crate::file_syntax::FileSyntax;

use crate::ast::{named_children, statements};

/// Reachability facts about every statement of a file.
pub struct Reachability {
    completes: NodeIdMap<bool>,
    loops_with_break: HashSet<usize>,
    /// `try` statements whose body cannot raise, so their handlers never run.
    silent_tries: HashSet<usize>,
}

/// Statements that transfer control away unconditionally.
const JUMPS: &[Kind] = &[Kind::ReturnStatement, Kind::RaiseStatement, Kind::BreakStatement, Kind::ContinueStatement];

impl Reachability {
    /// Analyses a whole file from its node index and parent
    /// index (no walk of its own).
    pub fn build(syntax: &FileSyntax<'_>) -> Reachability {
        let (file, parents) = (syntax.file(), syntax.parents());
        let mut loops_with_break = HashSet::new();
        for node in syntax.nodes(Kind::BreakStatement) {
            if let Some(target) = loop_of_jump(*node, parents) {
                loops_with_break.insert(target.id());
            }
        }
        let bound = bound_names(file, syntax.nodes(Kind::Identifier), parents);
        let silent_tries = syntax
            .nodes(Kind::TryStatement)
            .iter()
            .filter(|n| n.field(Field::Body).is_some_and(|b| cannot_raise(file, b, &bound, parents)))
            .map(|n| n.id())
            .collect();
        let mut reach = Reachability { completes: NodeIdMap::default(), loops_with_break, silent_tries };
        // The statements are the children of blocks and of the module.
        // Blocks in reverse pre-order, each block's statements last to
        // first, visit every statement after the statements nested in it.
        let holders = std::iter::once(file.root()).chain(syntax.nodes(Kind::Block).iter().copied());
        let holders: Vec<Node<'_>> = holders.collect();
        let mut items: Vec<Node<'_>> = Vec::new();
        for holder in holders.iter().rev() {
            items.clear();
            items.extend(statements_in(parents, *holder));
            for node in items.iter().rev() {
                let value = reach.compute(*node, file, parents);
                reach.completes.insert(node.id(), value);
            }
        }
        reach
    }

    /// Whether the statement can complete normally (control can reach the
    /// statement after it). Unknown nodes are assumed to complete.
    pub fn completes(&self, statement: Node<'_>) -> bool {
        self.completes.get(&statement.id()).copied().unwrap_or(true)
    }

    /// Whether every statement of a block (or module) can complete, i.e.
    /// control can fall off its end.
    pub fn block_completes(&self, block: Node<'_>) -> bool {
        statements(block).iter().all(|s| self.completes(*s))
    }

    /// [`Reachability::block_completes`], the statements read from the
    /// file's node arrays.
    fn block_completes_in(&self, tree: &NodeTree<'_>, block: Node<'_>) -> bool {
        statements_in(tree, block).all(|s| self.completes(s))
    }

    /// Whether the loop statement has a `break` that leaves it.
    pub fn has_break(&self, loop_statement: Node<'_>) -> bool {
        self.loops_with_break.contains(&loop_statement.id())
    }

    /// Every unreachable statement that is not inside, or after, another
    /// unreachable statement: the first dead statement of each dead run, in
    /// source order.
    pub fn unreachable<'f>(&self, syntax: &FileSyntax<'f>) -> Vec<Node<'f>> {
        let (file, parents) = (syntax.file(), syntax.parents());
        let mut firsts = Vec::new();
        let mut dead: HashSet<usize> = HashSet::new();
        // The module, then every block, in pre-order.
        let holders = std::iter::once(file.root()).chain(syntax.nodes(Kind::Block).iter().copied());
        for node in holders {
            let items: Vec<Node<'f>> = statements_in(parents, node).collect();
            if let Some(stop) = items.iter().position(|s| !self.completes(*s)) {
                if let Some(first) = items.get(stop + 1) {
                    firsts.push(*first);
                    dead.extend(items[stop + 1..].iter().map(|s| s.id()));
                }
            }
            // Branches that a constant condition rules out.
            if let Some(dead_first) = self.dead_branch(file, node, parents) {
                firsts.push(dead_first);
                dead.extend(statements_in(parents, node).map(|s| s.id()));
                if dead_first.py_kind() == Kind::ElifClause {
                    dead.insert(dead_first.id());
                }
            }
            // The handlers of a `try` whose body cannot raise never run; the
            // first one is reported, the others follow it.
            let parent = parents.parent(node);
            if parent.is_some_and(|t| t.py_kind() == Kind::TryStatement && self.silent_tries.contains(&t.id())) {
                if let Some(try_statement) = parent {
                    let handlers: Vec<Node<'f>> = named_children(try_statement)
                        .into_iter()
                        .filter(|c| matches!(c.py_kind(), Kind::ExceptClause))
                        .collect();
                    if let Some(first) = handlers.first() {
                        firsts.push(*first);
                        dead.extend(handlers.iter().map(|h| h.id()));
                    }
                }
            }
            // The `else` of an infinite `while` never runs.
            if let Some(owner) = parent.filter(|p| p.py_kind() == Kind::ElseClause) {
                let infinite = parents
                    .parent(owner)
                    .is_some_and(|w| w.py_kind() == Kind::WhileStatement && is_infinite_while(file, w));
                if infinite {
                    if let Some(first) = items.first() {
                        firsts.push(*first);
                        dead.extend(items.iter().map(|s| s.id()));
                    }
                }
            }
        }
        let mut result: Vec<Node<'f>> = firsts
            .into_iter()
            .filter(|s| {
                let mut current = parents.parent(*s);
                while let Some(n) = current {
                    if dead.contains(&n.id()) {
                        return false;
                    }
                    current = parents.parent(n);
                }
                true
            })
            .collect();
        result.sort_by_key(|n| n.start_byte());
        result.dedup_by_key(|n| n.id());
        result
    }

    /// For a block that a constant condition rules out (`if False:` body,
    /// `while 0:` body, the `else` or `elif` after `if True:`), the first
    /// dead node: its first statement, or the `elif` clause itself.
    fn dead_branch<'t>(&self, file: &ParsedFile, block: Node<'t>, parents: &NodeTree<'t>) -> Option<Node<'t>> {
        let owner = parents.parent(block)?;
        let first = statements_in(parents, block).next();
        match owner.py_kind() {
            Kind::IfStatement | Kind::ElifClause | Kind::WhileStatement => {
                let is_body = owner
                    .field(Field::Consequence)
                    .or_else(|| owner.field(Field::Body))
                    .is_some_and(|b| b.id() == block.id());
                if is_body && constant_condition(file, owner) == Some(false) {
                    return first;
                }
                // An `elif` after a condition that is always true.
                let statement = parents
                    .parent(owner)
                    .filter(|p| owner.py_kind() == Kind::ElifClause && p.py_kind() == Kind::IfStatement)?;
                let previous = previous_alternative(statement, owner)?;
                (is_body && constant_condition(file, previous) == Some(true)).then_some(owner)
            }
            Kind::ElseClause => {
                let statement = parents.parent(owner).filter(|p| p.py_kind() == Kind::IfStatement)?;
                let previous = previous_alternative(statement, owner)?;
                (constant_condition(file, previous) == Some(true)).then_some(first).flatten()
            }
            _ => None,
        }
    }

    fn compute(&self, node: Node<'_>, file: &ParsedFile, tree: &NodeTree<'_>) -> bool {
        match node.py_kind() {
            k if JUMPS.contains(&k) => false,
            Kind::IfStatement => {
                let consequence = node.field(Field::Consequence).is_none_or(|b| self.block_completes_in(tree, b));
                match constant_condition(file, node) {
                    Some(true) => return consequence,
                    Some(false) => {
                        let mut alternatives = named_children(node)
                            .into_iter()
                            .filter(|c| matches!(c.py_kind(), Kind::ElifClause | Kind::ElseClause))
                            .peekable();
                        if alternatives.peek().is_none() {
                            return true;
                        }
                        return alternatives.any(|c| clause_block(c).is_none_or(|b| self.block_completes_in(tree, b)))
                            || !named_children(node).iter().any(|c| c.py_kind() == Kind::ElseClause);
                    }
                    None => {}
                }
                let mut any = consequence;
                let mut has_else = false;
                for clause in named_children(node) {
                    match clause.py_kind() {
                        Kind::ElifClause => {
                            any |= clause.field(Field::Consequence).is_none_or(|b| self.block_completes_in(tree, b));
                        }
                        Kind::ElseClause => {
                            has_else = true;
                            any |= clause_block(clause).is_none_or(|b| self.block_completes_in(tree, b));
                        }
                        _ => {}
                    }
                }
                any || !has_else
            }
            Kind::WhileStatement | Kind::ForStatement => {
                let infinite = node.py_kind() == Kind::WhileStatement && is_infinite_while(file, node);
                if self.has_break(node) {
                    return true;
                }
                if infinite {
                    return false;
                }
                match else_clause(node).and_then(clause_block) {
                    Some(block) => self.block_completes_in(tree, block),
                    None => true,
                }
            }
            Kind::TryStatement => {
                let mut body = node.field(Field::Body).is_none_or(|b| self.block_completes_in(tree, b));
                let mut handler = false;
                let mut finally = true;
                for clause in named_children(node) {
                    let completes = clause_block(clause).is_none_or(|b| self.block_completes_in(tree, b));
                    match clause.py_kind() {
                        Kind::ExceptClause => {
                            handler |= completes && !self.silent_tries.contains(&node.id());
                        }
                        Kind::ElseClause => body &= completes,
                        Kind::FinallyClause => finally = completes,
                        _ => {}
                    }
                }
                (body || handler) && finally
            }
            // A context manager's `__exit__` may swallow an exception raised
            // in the body, so control may continue after any `with`.
            Kind::WithStatement => true,
            Kind::MatchStatement => {
                let cases: Vec<Node<'_>> = node
                    .field(Field::Body)
                    .map(named_children)
                    .unwrap_or_default()
                    .into_iter()
                    .filter(|c| c.py_kind() == Kind::CaseClause)
                    .collect();
                let wildcard = cases.iter().any(|c| {
                    c.named_child(0)
                        .is_some_and(|p| p.py_kind() == Kind::CasePattern && file.node_text(p).trim() == "_")
                        && c.field(Field::Guard).is_none()
                });
                !wildcard || cases.iter().any(|c| clause_block(*c).is_none_or(|b| self.block_completes_in(tree, b)))
            }
            _ => true,
        }
    }
}

/// The statements of a block or module (its named children but comments),
/// read from the file's node arrays, as [`statements`] lists them.
fn statements_in<'a, 't>(tree: &'a NodeTree<'t>, block: Node<'_>) -> impl Iterator<Item = Node<'t>> + use<'a, 't> {
    tree.named_children(block).filter(|c| c.py_kind() != Kind::Comment)
}

/// The literal truth value of an `if`, `elif` or `while` condition that is
/// `True`, `False` or an integer literal.
pub fn constant_condition(file: &ParsedFile, node: Node<'_>) -> Option<bool> {
    let condition = crate::ast::strip_parentheses(node.field(Field::Condition)?);
    match condition.py_kind() {
        Kind::True => Some(true),
        Kind::False => Some(false),
        Kind::Integer => Some(file.node_text(condition).chars().any(|c| c.is_ascii_digit() && c != '0')),
        _ => None,
    }
}

/// The `if` or `elif` whose condition decides whether `clause` (an `elif`
/// or `else` clause of `statement`) runs: the clause before it, or the `if`.
fn previous_alternative<'t>(statement: Node<'t>, clause: Node<'t>) -> Option<Node<'t>> {
    let mut previous = statement;
    for c in named_children(statement) {
        if c.id() == clause.id() {
            return Some(previous);
        }
        if c.py_kind() == Kind::ElifClause {
            previous = c;
        }
    }
    None
}

/// Whether a node is a statement (simple or compound) held by a block or module.
pub fn is_statement(node: Node<'_>) -> bool {
    is_statement_in(node, node.parent())
}

/// [`is_statement`] with the node's parent already known.
pub fn is_statement_in(node: Node<'_>, parent: Option<Node<'_>>) -> bool {
    parent.is_some_and(|p| p.py_kind() == Kind::Block || p.py_kind() == Kind::Module)
        && node.py_kind() != Kind::Comment
        && node.is_named()
}

/// Names bound somewhere in the file (assigned, defined, imported, loop or
/// `with` targets, parameters, declared global).
fn bound_names<'f, 't>(file: &'f ParsedFile, nodes: &[Node<'t>], parents: &NodeTree<'t>) -> HashSet<&'f str> {
    nodes
        .iter()
        .filter(|n| n.py_kind() == Kind::Identifier)
        .filter(|n| {
            parents.parent(**n).is_some_and(|p| {
                matches!(
                    p.py_kind(),
                    Kind::Assignment
                        | Kind::AugmentedAssignment
                        | Kind::FunctionDefinition
                        | Kind::ClassDefinition
                        | Kind::AliasedImport
                        | Kind::DottedName
                        | Kind::PatternList
                        | Kind::TuplePattern
                        | Kind::ForStatement
                        | Kind::AsPatternTarget
                        | Kind::GlobalStatement
                        | Kind::NonlocalStatement
                        | Kind::Parameters
                        | Kind::DefaultParameter
                        | Kind::TypedParameter
                        | Kind::TypedDefaultParameter
                        | Kind::NamedExpression
                )
            })
        })
        .map(|n| file.node_text(*n))
        .collect()
}

/// Whether a `try` body can never raise: it only holds `pass`, literals,
/// assignments of literals or builtins to plain names, and loads of Python 3
/// builtins that the file does not rebind (CodeQL's flow graph has
/// exceptional edges only from nodes that may raise).
fn cannot_raise<'t>(file: &ParsedFile, body: Node<'t>, bound: &HashSet<&str>, parents: &NodeTree<'t>) -> bool {
    for node in quarry_syntax::walk::Preorder::new(body) {
        if !node.is_named() {
            continue;
        }
        let allowed = match node.py_kind() {
            Kind::Block
            | Kind::PassStatement
            | Kind::ReturnStatement
            | Kind::ExpressionStatement
            | Kind::Comment
            | Kind::Integer
            | Kind::Float
            | Kind::True
            | Kind::False
            | Kind::None
            | Kind::String
            | Kind::StringStart
            | Kind::StringContent
            | Kind::StringEnd
            | Kind::PatternList
            | Kind::ExpressionList
            | Kind::Tuple
            | Kind::ParenthesizedExpression => true,
            Kind::Assignment => node.field(Field::Type).is_none(),
            Kind::Identifier => {
                let name = file.node_text(node);
                let is_target = parents.parent(node).is_some_and(|p| {
                    (p.py_kind() == Kind::Assignment && p.field(Field::Left).is_some_and(|l| l.id() == node.id()))
                        || p.py_kind() == Kind::PatternList
                });
                is_target || (is_builtin_in(name, PythonVersion::Three) && !bound.contains(name))
            }
            _ => false,
        };
        if !allowed {
            return false;
        }
    }
    true
}

/// The body block of a clause (`else:`, `except ...:`, `finally:`, `case ...:`).
pub fn clause_block(clause: Node<'_>) -> Option<Node<'_>> {
    clause
        .field(Field::Body)
        .or_else(|| clause.field(Field::Consequence))
        .or_else(|| named_children(clause).into_iter().find(|c| c.py_kind() == Kind::Block))
}

/// The `else` clause of a loop or `try`.
pub fn else_clause(node: Node<'_>) -> Option<Node<'_>> {
    named_children(node).into_iter().find(|c| c.py_kind() == Kind::ElseClause)
}

/// Whether a `while` loop's condition is a literal true value (`True`, or
/// a nonzero integer such as `1`).
pub fn is_infinite_while(file: &ParsedFile, node: Node<'_>) -> bool {
    constant_condition(file, node) == Some(true)
}

/// The loop a `break` or `continue` belongs to: the nearest enclosing `for`
/// or `while` whose body (or else clause) holds it, within the same function.
pub fn loop_of_jump<'t>(jump: Node<'t>, parents: &NodeTree<'t>) -> Option<Node<'t>> {
    let mut child = jump;
    let mut current = parents.parent(jump);
    while let Some(n) = current {
        match n.py_kind() {
            // A jump in a loop's `else` clause belongs to an outer loop.
            Kind::ForStatement | Kind::WhileStatement if child.py_kind() != Kind::ElseClause => return Some(n),
            Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda | Kind::Module => return None,
            _ => {}
        }
        child = n;
        current = parents.parent(n);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FileContext;
    use quarry_syntax::{Language, SourceFile};

    fn unreachable_lines(source: &str) -> Vec<usize> {
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap();
        let cx = FileContext::new(&file);
        let reach = Reachability::build(cx.syntax());
        reach.unreachable(cx.syntax()).iter().map(|n| n.start_position().row).collect()
    }

    #[test]
    fn after_jumps() {
        let src = "def f(x):\n    return x\n    x = 1\n    y = 2\nfor i in x:\n    continue\n    g()\n";
        assert_eq!(unreachable_lines(src), vec![2, 6]);
    }

    #[test]
    fn if_else_all_exit() {
        let src = "def f(x):\n    if x:\n        return 1\n    elif x > 2:\n        raise E\n    else:\n        return 2\n    g()\n";
        assert_eq!(unreachable_lines(src), vec![7]);
        let src = "def f(x):\n    if x:\n        return 1\n    elif x > 2:\n        pass\n    else:\n        return 2\n    g()\n";
        assert!(unreachable_lines(src).is_empty());
        let src = "def f(x):\n    if x:\n        return 1\n    g()\n";
        assert!(unreachable_lines(src).is_empty());
    }

    #[test]
    fn infinite_loops() {
        let src = "while True:\n    work()\nafter()\n";
        assert_eq!(unreachable_lines(src), vec![2]);
        let src = "while 1:\n    if work():\n        break\nafter()\n";
        assert!(unreachable_lines(src).is_empty());
        let src = "while True:\n    for x in y:\n        break\nafter()\n";
        assert_eq!(unreachable_lines(src), vec![3]);
        let src = "while True:\n    pass\nelse:\n    never()\n";
        assert_eq!(unreachable_lines(src), vec![3]);
        let src = "while x:\n    pass\nafter()\n";
        assert!(unreachable_lines(src).is_empty());
    }

    #[test]
    fn try_statements() {
        let src = "def f():\n    try:\n        return g()\n    except E:\n        raise\n    h()\n";
        assert_eq!(unreachable_lines(src), vec![5]);
        let src = "def f():\n    try:\n        return g()\n    except E:\n        pass\n    h()\n";
        assert!(unreachable_lines(src).is_empty());
        let src = "def f():\n    try:\n        g()\n    finally:\n        return 1\n    h()\n";
        assert_eq!(unreachable_lines(src), vec![5]);
    }

    #[test]
    fn only_first_of_a_dead_run_and_not_nested() {
        let src = "def f():\n    return\n    if x:\n        return\n        y()\n    z()\n";
        assert_eq!(unreachable_lines(src), vec![2]);
    }

    #[test]
    fn constant_conditions() {
        let src = "def f(x):\n    while 0:\n        a = 1\n    while False:\n        return 2\n    if False:\n        g()\n    else:\n        h()\n    return 5\n";
        assert_eq!(unreachable_lines(src), vec![2, 4, 6]);
        let src = "def h():\n    if True:\n        g()\n    else:\n        dead()\n    after()\n";
        assert_eq!(unreachable_lines(src), vec![4]);
        let src = "def h():\n    if True:\n        return 1\n    elif x:\n        dead()\n    after()\n";
        assert_eq!(unreachable_lines(src), vec![3, 5]);
        let src = "while 7:\n    pass\nafter()\n";
        assert_eq!(unreachable_lines(src), vec![2]);
    }

    #[test]
    fn with_may_suppress_exceptions() {
        let src = "def f(self):\n    with suppress(AttributeError):\n        return self.x\n    return None\n";
        assert!(unreachable_lines(src).is_empty());
    }

    #[test]
    fn handlers_of_a_try_that_cannot_raise() {
        let src = "try:\n    str\nexcept NameError:\n    pass\nexcept E:\n    pass\n";
        assert_eq!(unreachable_lines(src), vec![2]);
        let src = "try:\n    unicode\nexcept NameError:\n    unicode = str\n";
        assert!(unreachable_lines(src).is_empty());
        let src = "def f(n):\n    test = 0\n    try:\n        test += n\n    except:\n        return False\n    return True\n";
        assert!(unreachable_lines(src).is_empty());
        let src = "def f():\n    try:\n        return 1\n    except E:\n        pass\n    after()\n";
        assert_eq!(unreachable_lines(src), vec![3, 5]);
    }

    #[test]
    fn jumps_in_nested_functions_do_not_count() {
        let src = "def f():\n    def g():\n        return 1\n    h()\n";
        assert!(unreachable_lines(src).is_empty());
    }
}
