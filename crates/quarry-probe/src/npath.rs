//! NPath complexity (Nejmeh 1988) of a Java method, following the usual
//! static-analysis rules: a sequence multiplies, a branch adds, and each
//! `&&`/`||` in a condition adds one path.
//!
//! - block: product of its statements
//! - `if`: conditions + then + (else, or 1)
//! - `while`, `do`: conditions + body + 1; `for`, for-each: body + 1
//! - `switch`: conditions + for each case label the product of the
//!   statements that follow it (a label that falls through counts 1)
//! - `try`: try block + each catch block + finally block
//! - `return` and expression statements: conditions of their `?:`, at least
//!   1, times the paths of methods of anonymous classes and block lambdas
//!   they hold
//!
//! These rules reproduce INSPECT's released NPT labels (the `for` condition
//! and a missing `default` add nothing there; anonymous classes multiply).
//! The computation is bottom-up over a pre-order list, so nesting depth
//! cannot overflow the stack.

use std::collections::HashMap;

use quarry_syntax::kinds::java::{Field, JavaNode, Kind};
use quarry_syntax::walk::Preorder;
use quarry_syntax::ParsedFile;
use tree_sitter::Node;

use crate::java::first_method;

#[derive(Clone, Copy, Default)]
struct Value {
    /// Paths through the node (statements only; 1 for anything else).
    paths: u64,
    /// `&&` and `||` operators in the node.
    logic: u64,
    /// Added paths of conditional expressions in the node.
    ternary: u64,
    /// Product of the paths of method bodies nested in the expression.
    nested: u64,
}

/// NPath complexity of the first method or constructor in `parsed`
/// (saturating at `u64::MAX`).
pub fn npath(parsed: &ParsedFile) -> u64 {
    let root = parsed.root();
    let Some(method) = first_method(root) else { return 1 };
    let Some(body) = method.java_field(Field::Body) else { return 1 };
    let nodes: Vec<Node<'_>> = Preorder::new(body).collect();
    let mut values: HashMap<usize, Value> = HashMap::with_capacity(nodes.len());
    for node in nodes.iter().rev() {
        let value = evaluate(*node, &values);
        values.insert(node.id(), value);
    }
    values.get(&body.id()).map(|v| v.paths).unwrap_or(1).max(1)
}

fn get(values: &HashMap<usize, Value>, node: Option<Node<'_>>) -> Value {
    node.and_then(|n| values.get(&n.id()).copied()).unwrap_or(Value { paths: 1, logic: 0, ternary: 0, nested: 1 })
}

fn evaluate(node: Node<'_>, values: &HashMap<usize, Value>) -> Value {
    let mut cursor = node.walk();
    let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
    let logic = children.iter().map(|c| get(values, Some(*c)).logic).fold(0u64, u64::saturating_add)
        + u64::from(matches!(node.java_kind(), Kind::AmpersandAmpersand | Kind::PipePipe));
    let inner_ternary = children.iter().map(|c| get(values, Some(*c)).ternary).fold(0u64, u64::saturating_add);
    let inner_nested = children.iter().map(|c| get(values, Some(*c)).nested).fold(1u64, u64::saturating_mul);
    let field = |name: Field| get(values, node.java_field(name));
    let mut nested = 1;
    let (paths, ternary) = match node.java_kind() {
        Kind::Block | Kind::ConstructorBody => {
            (product(children.iter().filter(|c| is_statement(**c)).map(|c| get(values, Some(*c)).paths)), 0)
        }
        Kind::IfStatement => {
            let otherwise = node.java_field(Field::Alternative).map(|n| get(values, Some(n)).paths).unwrap_or(1);
            (field(Field::Condition).logic.saturating_add(field(Field::Consequence).paths).saturating_add(otherwise), 0)
        }
        Kind::WhileStatement | Kind::DoStatement => {
            (field(Field::Condition).logic.saturating_add(field(Field::Body).paths).saturating_add(1), 0)
        }
        Kind::ForStatement | Kind::EnhancedForStatement => (field(Field::Body).paths.saturating_add(1), 0),
        Kind::SwitchExpression => {
            let mut sum = field(Field::Condition).logic;
            if let Some(block) = node.java_field(Field::Body) {
                let mut c = block.walk();
                for group in block.named_children(&mut c) {
                    if matches!(group.java_kind(), Kind::SwitchBlockStatementGroup | Kind::SwitchRule) {
                        sum = sum.saturating_add(get(values, Some(group)).paths);
                    }
                }
            }
            (sum, 0)
        }
        Kind::SwitchBlockStatementGroup => {
            let labels = children.iter().filter(|c| c.java_kind() == Kind::SwitchLabel).count() as u64;
            let body = product(children.iter().filter(|c| is_statement(**c)).map(|c| get(values, Some(*c)).paths));
            (labels.saturating_sub(1).saturating_add(body), 0)
        }
        Kind::SwitchRule => {
            (product(children.iter().filter(|c| is_statement(**c)).map(|c| get(values, Some(*c)).paths)), 0)
        }
        Kind::TryStatement | Kind::TryWithResourcesStatement => {
            let mut sum = field(Field::Body).paths;
            for child in &children {
                let block = match child.java_kind() {
                    Kind::CatchClause => child.java_field(Field::Body),
                    Kind::FinallyClause => {
                        child.named_children(&mut child.walk()).find(|n| n.java_kind() == Kind::Block)
                    }
                    _ => None,
                };
                if block.is_some() {
                    sum = sum.saturating_add(get(values, block).paths);
                }
            }
            (sum, 0)
        }
        Kind::LabeledStatement | Kind::SynchronizedStatement => {
            let inner = children.iter().rev().find(|c| is_statement(**c) || c.java_kind() == Kind::Block);
            (get(values, inner.copied()).paths, 0)
        }
        Kind::TernaryExpression => {
            let added = field(Field::Condition)
                .logic
                .saturating_add(field(Field::Consequence).ternary)
                .saturating_add(field(Field::Alternative).ternary)
                .saturating_add(2);
            (1, added)
        }
        Kind::ReturnStatement | Kind::ExpressionStatement | Kind::LocalVariableDeclaration | Kind::ThrowStatement => {
            (inner_ternary.max(1).saturating_mul(inner_nested), 0)
        }
        Kind::MethodDeclaration | Kind::ConstructorDeclaration => {
            nested = field(Field::Body).paths;
            (1, 0)
        }
        Kind::LambdaExpression => {
            let body = node.java_field(Field::Body);
            nested = match body {
                Some(b) if b.java_kind() == Kind::Block => get(values, Some(b)).paths,
                _ => inner_nested,
            };
            (1, 0)
        }
        _ => {
            nested = inner_nested;
            (1, inner_ternary)
        }
    };
    Value { paths, logic, ternary, nested }
}

fn product(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(1u64, u64::saturating_mul)
}

fn is_statement(node: Node<'_>) -> bool {
    let kind = node.java_kind();
    node.is_named()
        && !matches!(kind, Kind::SwitchLabel | Kind::LineComment | Kind::BlockComment)
        && (kind.is_statement() || kind.is_declaration() || matches!(kind, Kind::Block | Kind::SwitchExpression))
}
