//! Q37 "Redundant comparison": a comparison whose result is already decided
//! by an earlier test on the way to it, e.g. a branch that can only be
//! reached when `x < 0` is false, testing `x >= 0` again.
//!
//! ```python
//! if x < 0:                   # supporting fact: `x < 0`
//!     raise ValueError(x)
//! if x >= 0:                  # answer: `x >= 0` (always true here)
//!     grow(x)
//! ```
//!
//! CodeQL derives this from its control-flow graph and its `Comparisons`
//! library. Here the controlling tests are found syntactically: the test of
//! an enclosing `if`/`elif`/`while` branch or conditional expression (true
//! in its body, false in later branches), the left side of an enclosing
//! `and`/`or`, and an earlier `if` in the same statement list with no
//! `else` whose body always leaves (`return`, `raise`, `continue`,
//! `break`). `and`, `or` and `not` split tests as control flow does; chained
//! comparisons (`a < b < c`) never control, though any pair of one can be
//! decided. As in the `Comparisons` library, each comparison is put in the
//! form `v1 op v2 + k` or `v1 op k`, where the `v`s are variables (names;
//! attributes are not tracked), `k` is a number, and an operand may add or
//! subtract a number (`y < z + 2`); implication follows that library's
//! rules (for example `v < k1` makes `v != k2` and `v <= k2` true when
//! `k1 <= k2`, while `v == k` decides only `v == k`). CodeQL's SSA
//! variables are approximated: a variable rebound between the two tests
//! (except in another branch of the same `if`), or anywhere in a loop
//! around the later test that starts after the earlier one, stops the
//! implication. A comparison under `not` is reported as the comparison
//! itself, with its own truth value, as CodeQL reports the innermost
//! redundant test (`elif not 0 <= x:` after `if x < 0:` reports `0 <= x`,
//! always true). Negative form:
//! comparisons controlled by earlier tests of a shared variable that do not
//! decide them.

use std::collections::HashMap;

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{comparison_pairs, named_children, statements, strip_parentheses, CmpOp};

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};
use crate::scopes::innermost_scope;

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "redundant-comparison",
        name: "Redundant comparison",
        index: 37,
        hops: Hops::Single,
        description: "The result of a comparison is implied by a previous comparison.",
        codeql: "python/ql/src/Expressions/Comparisons/UselessComparisonTest.ql",
    },
    find,
};

/// The six comparison operators of CodeQL's `CompareOp`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Op {
    fn parse(op: CmpOp) -> Option<Op> {
        Some(match op {
            CmpOp::Eq => Op::Eq,
            CmpOp::NotEq => Op::Ne,
            CmpOp::Lt => Op::Lt,
            CmpOp::LtE => Op::Le,
            CmpOp::Gt => Op::Gt,
            CmpOp::GtE => Op::Ge,
            _ => return None,
        })
    }

    /// The operator of the negated comparison: `<` becomes `>=`.
    fn invert(self) -> Op {
        match self {
            Op::Eq => Op::Ne,
            Op::Ne => Op::Eq,
            Op::Lt => Op::Ge,
            Op::Le => Op::Gt,
            Op::Gt => Op::Le,
            Op::Ge => Op::Lt,
        }
    }

    /// The operator with its operands swapped: `<` becomes `>`.
    fn reverse(self) -> Op {
        match self {
            Op::Lt => Op::Gt,
            Op::Le => Op::Ge,
            Op::Gt => Op::Lt,
            Op::Ge => Op::Le,
            other => other,
        }
    }

    /// The operator that holds when a comparison with this one has the given result.
    fn conditional(self, truth: bool) -> Op {
        if truth {
            self
        } else {
            self.invert()
        }
    }
}

/// A comparison in canonical form: `v1 op v2 + k`, or `v1 op k` without `v2`.
#[derive(Debug, Clone)]
struct Form {
    v1: String,
    op: Op,
    v2: Option<String>,
    k: f64,
}

/// A comparison with its canonical forms.
struct Test<'t> {
    node: Node<'t>,
    forms: Vec<Form>,
}

impl Test<'_> {
    fn variables(&self) -> impl Iterator<Item = &str> {
        self.forms.iter().flat_map(|f| std::iter::once(f.v1.as_str()).chain(f.v2.as_deref()))
    }
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    let mut guards = Guards::default();
    for &comparison in cx.nodes(Kind::ComparisonOperator) {
        let Some(test) = comparison_test(cx, comparison, true) else { continue };
        let facts: Vec<(Test<'_>, bool)> = controlling_facts(cx, comparison, &mut guards)
            .into_iter()
            .filter(|(fact, _)| {
                fact.variables().any(|v| test.variables().any(|w| w == v)) && !reassigned_between(cx, fact, &test)
            })
            .collect();
        let decided: Vec<(&Test<'_>, bool)> =
            facts.iter().filter_map(|(fact, truth)| implication(fact, *truth, &test).map(|r| (fact, r))).collect();
        match polarity {
            Polarity::Positive => {
                for (fact, result) in decided {
                    findings.push(
                        RawFinding::answer(
                            cx.location(comparison),
                            format!("Test is always {result}, because of this condition."),
                        )
                        .with_facts([cx.location(fact.node)]),
                    );
                }
            }
            Polarity::Negative if decided.is_empty() && !facts.is_empty() => {
                findings.push(
                    RawFinding::answer(cx.location(comparison), "Test is not decided by earlier conditions.")
                        .with_facts(facts.iter().map(|(fact, _)| cx.location(fact.node))),
                );
            }
            Polarity::Negative => {}
        }
    }
    findings
}

/// The canonical forms of a comparison; a chained comparison gives the forms
/// of each pair when `chained` allows it, and nothing otherwise.
fn comparison_test<'t>(cx: &FileContext<'_>, comparison: Node<'t>, chained: bool) -> Option<Test<'t>> {
    let pairs = comparison_pairs(comparison);
    if pairs.len() != 1 && !chained {
        return None;
    }
    let mut forms = Vec::new();
    for (left, op, right) in &pairs {
        let (Some(op), Some((lv, lk)), Some((rv, rk))) = (Op::parse(*op), linear(cx, *left), linear(cx, *right)) else {
            continue;
        };
        match (lv, rv) {
            (Some(a), Some(b)) => {
                forms.push(Form { v1: a.clone(), op, v2: Some(b.clone()), k: rk - lk });
                forms.push(Form { v1: b, op: op.reverse(), v2: Some(a), k: lk - rk });
            }
            (Some(a), None) => forms.push(Form { v1: a, op, v2: None, k: rk - lk }),
            (None, Some(b)) => forms.push(Form { v1: b, op: op.reverse(), v2: None, k: lk - rk }),
            (None, None) => {}
        }
    }
    forms.retain(|f| f.k.abs() < 9007199254740992.0);
    (!forms.is_empty()).then_some(Test { node: comparison, forms })
}

/// An operand as `variable + k`: a name, a number, or a name plus or minus
/// a number (`x + 1`, `1 + x`, `x - 1`). Numbers are unsigned decimal
/// literals, as CodeQL's `Num`.
fn linear(cx: &FileContext<'_>, node: Node<'_>) -> Option<(Option<String>, f64)> {
    let node = strip_parentheses(node);
    match node.py_kind() {
        Kind::Identifier => Some((Some(cx.text(node).to_string()), 0.0)),
        Kind::Integer | Kind::Float => Some((None, number(cx.text(node))?)),
        Kind::BinaryOperator => {
            let operator = node.field(Field::Operator)?.py_kind();
            let left = strip_parentheses(node.field(Field::Left)?);
            let right = strip_parentheses(node.field(Field::Right)?);
            let name_number = |name: Node<'_>, num: Node<'_>| {
                (name.py_kind() == Kind::Identifier && matches!(num.py_kind(), Kind::Integer | Kind::Float))
                    .then(|| number(cx.text(num)).map(|n| (cx.text(name).to_string(), n)))
                    .flatten()
            };
            match operator {
                Kind::Plus => name_number(left, right).or_else(|| name_number(right, left)).map(|(v, n)| (Some(v), n)),
                Kind::Minus => name_number(left, right).map(|(v, n)| (Some(v), -n)),
                _ => None,
            }
        }
        _ => None,
    }
}

fn number(text: &str) -> Option<f64> {
    let cleaned = text.replace('_', "").to_ascii_lowercase();
    let decimal = cleaned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && !cleaned.starts_with("0x")
        && !cleaned.starts_with("0o")
        && !cleaned.starts_with("0b");
    if !decimal {
        return None;
    }
    cleaned.trim_end_matches('l').parse::<f64>().ok().filter(|n| n.abs() < 9007199254740992.0)
}

/// Whether `fact` having operator `fact_op` implies `test` having `test_op`,
/// by the rules of CodeQL's `Comparison.impliesThat`.
fn implies(fact: &Form, fact_op: Op, test: &Form, test_op: Op) -> bool {
    if fact.v1 != test.v1 || fact.v2 != test.v2 {
        return false;
    }
    let (k1, k2) = (fact.k, test.k);
    match (fact_op, test_op) {
        (Op::Eq, Op::Eq) | (Op::Ne, Op::Ne) => k1 == k2,
        (Op::Lt, Op::Ne) => k1 <= k2,
        (Op::Le, Op::Ne) => k1 < k2,
        (Op::Gt, Op::Ne) => k1 >= k2,
        (Op::Ge, Op::Ne) => k1 > k2,
        (Op::Lt, Op::Lt) | (Op::Lt, Op::Le) | (Op::Le, Op::Le) => k1 <= k2,
        (Op::Le, Op::Lt) => k1 < k2,
        (Op::Gt, Op::Gt) | (Op::Gt, Op::Ge) | (Op::Ge, Op::Ge) => k1 >= k2,
        (Op::Ge, Op::Gt) => k1 > k2,
        _ => false,
    }
}

/// The result the test always has when the fact has the given result, if decided.
fn implication(fact: &Test<'_>, truth: bool, test: &Test<'_>) -> Option<bool> {
    [true, false].into_iter().find(|&result| {
        fact.forms
            .iter()
            .any(|f| test.forms.iter().any(|t| implies(f, f.op.conditional(truth), t, t.op.conditional(result))))
    })
}

/// The guard conditions of each statement list seen so far, by the list's node id: the
/// condition of every `if` with no `else` whose body always leaves, with the start of
/// that `if`, in order. Computed once per list, so that the comparisons of a long list
/// cost one binary search each rather than a scan of the statements before them.
type Guards<'t> = HashMap<usize, Vec<(usize, Node<'t>)>>;

/// The comparisons known to be true or false where `node` is evaluated.
fn controlling_facts<'t>(cx: &FileContext<'_>, node: Node<'t>, guards: &mut Guards<'t>) -> Vec<(Test<'t>, bool)> {
    let mut conditions: Vec<(Node<'t>, bool)> = Vec::new();
    let mut child = node;
    while let Some(parent) = child.parent() {
        match parent.py_kind() {
            Kind::FunctionDefinition | Kind::Lambda | Kind::ClassDefinition => break,
            Kind::BooleanOperator => {
                let is_right = parent.field(Field::Right).is_some_and(|r| r.id() == child.id());
                if let (true, Some(left)) = (is_right, parent.field(Field::Left)) {
                    let is_and = parent.field(Field::Operator).is_some_and(|o| o.py_kind() == Kind::KwAnd);
                    conditions.push((left, is_and));
                }
            }
            Kind::IfStatement | Kind::ElifClause | Kind::WhileStatement => {
                let in_body = [Field::Consequence, Field::Body]
                    .into_iter()
                    .any(|f| parent.field(f).is_some_and(|b| b.id() == child.id()));
                if in_body {
                    if let Some(condition) = parent.field(Field::Condition) {
                        conditions.push((condition, true));
                    }
                }
                if parent.py_kind() == Kind::IfStatement
                    && matches!(child.py_kind(), Kind::ElifClause | Kind::ElseClause)
                {
                    if let Some(condition) = parent.field(Field::Condition) {
                        conditions.push((condition, false));
                    }
                    for clause in named_children(parent) {
                        if clause.py_kind() == Kind::ElifClause && clause.start_byte() < child.start_byte() {
                            if let Some(condition) = clause.field(Field::Condition) {
                                conditions.push((condition, false));
                            }
                        }
                    }
                }
            }
            Kind::ConditionalExpression => {
                let operands: Vec<Node<'t>> =
                    named_children(parent).into_iter().filter(|c| c.py_kind() != Kind::Comment).collect();
                if let [then, condition, otherwise] = operands.as_slice() {
                    if then.id() == child.id() {
                        conditions.push((*condition, true));
                    } else if otherwise.id() == child.id() {
                        conditions.push((*condition, false));
                    }
                }
            }
            Kind::Block | Kind::Module => {
                let list = guards.entry(parent.id()).or_insert_with(|| {
                    statements(parent)
                        .into_iter()
                        .filter(|statement| {
                            statement.py_kind() == Kind::IfStatement
                                && statement.field(Field::Alternative).is_none()
                                && statement.field(Field::Consequence).is_some_and(always_leaves)
                        })
                        .filter_map(|statement| Some((statement.start_byte(), statement.field(Field::Condition)?)))
                        .collect()
                });
                let before = list.partition_point(|&(start, _)| start < child.start_byte());
                conditions.extend(list[..before].iter().map(|&(_, condition)| (condition, false)));
            }
            _ => {}
        }
        child = parent;
    }
    let mut facts = Vec::new();
    while let Some((condition, truth)) = conditions.pop() {
        let condition = strip_parentheses(condition);
        match condition.py_kind() {
            Kind::NotOperator => {
                if let Some(argument) = condition.field(Field::Argument) {
                    conditions.push((argument, !truth));
                }
            }
            Kind::BooleanOperator => {
                let is_and = condition.field(Field::Operator).is_some_and(|o| o.py_kind() == Kind::KwAnd);
                // `a and b` true makes both true; `a or b` false makes both false.
                if is_and == truth {
                    for field in [Field::Left, Field::Right] {
                        if let Some(part) = condition.field(field) {
                            conditions.push((part, truth));
                        }
                    }
                }
            }
            Kind::ComparisonOperator => {
                if let Some(fact) = comparison_test(cx, condition, false) {
                    facts.push((fact, truth));
                }
            }
            _ => {}
        }
    }
    facts.sort_by_key(|(a, _)| a.node.start_byte());
    facts
}

/// Whether the last statement of a block always leaves it.
fn always_leaves(block: Node<'_>) -> bool {
    statements(block).last().is_some_and(|s| {
        matches!(
            s.py_kind(),
            Kind::ReturnStatement | Kind::RaiseStatement | Kind::ContinueStatement | Kind::BreakStatement
        )
    })
}

/// Whether a variable of the fact may be rebound between the fact and the
/// test: a binding in the test's scope after the fact and before the test
/// (not in another branch of an `if` holding the test), or anywhere in a
/// loop around the test that starts after the fact.
fn reassigned_between(cx: &FileContext<'_>, fact: &Test<'_>, test: &Test<'_>) -> bool {
    let (start, end) = (fact.node.end_byte(), test.node.start_byte());
    let mut loops: Vec<(usize, usize)> = Vec::new();
    let tree = cx.syntax().parents();
    let mut current = tree.parent_of_id(test.node.id());
    while let Some(n) = current {
        if matches!(n.py_kind(), Kind::ForStatement | Kind::WhileStatement) && n.start_byte() > fact.node.start_byte() {
            loops.push((n.start_byte(), n.end_byte()));
        }
        current = tree.parent_of_id(n.id());
    }
    let scopes = cx.scopes();
    let scope = scopes.get(innermost_scope(tree, scopes, test.node));
    // The bindings of the fact's variables, through the scope's name index.
    fact.variables().flat_map(|v| scope.bindings_named(v)).any(|binding| {
        let at = binding.start_byte;
        let in_loop = loops.iter().any(|&(s, e)| s <= at && at < e);
        if in_loop {
            return true;
        }
        if !(start <= at && at < end) {
            return false;
        }
        let node = cx.file().root().descendant_for_byte_range(at, at);
        !node.is_some_and(|n| in_other_branch(n, test.node))
    })
}

/// Whether `node` is in a branch of an `if` statement that also holds
/// `test` in another branch, so that control cannot pass from one to the other.
fn in_other_branch(node: Node<'_>, test: Node<'_>) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if crate::ast::contains(parent, test) {
            let test_side = named_children(parent).into_iter().find(|c| crate::ast::contains(*c, test));
            return parent.py_kind() == Kind::IfStatement
                && matches!(child.py_kind(), Kind::Block | Kind::ElifClause | Kind::ElseClause)
                && test_side.is_some_and(|t| t.id() != child.id());
        }
        child = parent;
    }
    false
}
