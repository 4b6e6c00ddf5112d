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
//! CodeQL derives this from its control-flow graph and a theory of linear
//! comparisons. Here the controlling tests are found syntactically: the
//! test of an enclosing `if`/`elif`/`while` branch or conditional
//! expression (true in its body, false in later branches), the left side of
//! an enclosing `and`/`or`, and an earlier `if` in the same statement list
//! with no `else` whose body always leaves (`return`, `raise`, `continue`,
//! `break`). `and`, `or` and `not` split tests as control flow does; chained
//! comparisons (`a < b < c`) never control. Implication is decided for two
//! comparisons of the same two operands (names, attributes or numbers, in
//! either order) and for a variable compared with two numbers; operands
//! reassigned between the two tests (or anywhere in a loop around the later
//! one) stop it. A comparison under `not` is reported as the `not`
//! expression, as CodeQL reports the largest redundant test. Negative form:
//! comparisons controlled by an earlier test of the same operands that does
//! not decide them.

use tree_sitter::Node;

use crate::ast::{comparison_pairs, named_children, statements, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::registry::{Hops, Query, QueryMeta};

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

const LT: u8 = 1;
const EQ: u8 = 2;
const GT: u8 = 4;

/// A comparison `left op right` of simple operands.
struct Atom<'t> {
    node: Node<'t>,
    left: String,
    op: String,
    right: String,
}

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &comparison in cx.nodes("comparison_operator") {
        let Some(test) = atom(cx, comparison) else { continue };
        let facts: Vec<(Atom<'_>, bool)> = controlling_facts(cx, comparison)
            .into_iter()
            .filter(|(fact, _)| shares_operands(fact, &test) && !reassigned_between(cx, fact, &test))
            .collect();
        let decided: Vec<(&Atom<'_>, bool)> =
            facts.iter().filter_map(|(fact, truth)| implication(fact, *truth, &test).map(|r| (fact, r))).collect();
        match polarity {
            Polarity::Positive => {
                for (fact, result) in decided {
                    let (reported, result) = outermost_not(comparison, result);
                    findings.push(
                        RawFinding::answer(
                            cx.location(reported),
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

/// A comparison with exactly one operator whose operands are simple.
fn atom<'t>(cx: &FileContext<'_>, comparison: Node<'t>) -> Option<Atom<'t>> {
    let pairs = comparison_pairs(cx.file(), comparison);
    let [(left, op, right)] = pairs.as_slice() else { return None };
    if !matches!(op.as_str(), "<" | "<=" | "==" | "!=" | "<>" | ">" | ">=") {
        return None;
    }
    let left = simple_operand(cx, *left)?;
    let right = simple_operand(cx, *right)?;
    Some(Atom { node: comparison, left, op: op.clone(), right })
}

/// The text of a name, a dotted attribute of a name, or a number.
fn simple_operand(cx: &FileContext<'_>, node: Node<'_>) -> Option<String> {
    let node = strip_parentheses(node);
    let text: String = cx.text(node).split_whitespace().collect();
    match node.kind() {
        "identifier" | "integer" | "float" => Some(text),
        "unary_operator" if number(&text).is_some() => Some(text),
        "attribute" => text
            .split('.')
            .all(|part| !part.is_empty() && part.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .then_some(text),
        _ => None,
    }
}

fn number(text: &str) -> Option<f64> {
    let cleaned = text.replace('_', "").to_ascii_lowercase();
    let numeric_start = cleaned.trim_start_matches(['-', '+']).starts_with(|c: char| c.is_ascii_digit() || c == '.');
    if !numeric_start || cleaned.starts_with("0x") || cleaned.starts_with("0o") || cleaned.starts_with("0b") {
        return None;
    }
    cleaned.trim_end_matches('l').parse::<f64>().ok()
}

/// The comparisons known to be true or false where `node` is evaluated.
fn controlling_facts<'t>(cx: &FileContext<'_>, node: Node<'t>) -> Vec<(Atom<'t>, bool)> {
    let mut conditions: Vec<(Node<'t>, bool)> = Vec::new();
    let mut child = node;
    while let Some(parent) = child.parent() {
        match parent.kind() {
            "function_definition" | "lambda" | "class_definition" => break,
            "boolean_operator" => {
                let is_right = parent.child_by_field_name("right").is_some_and(|r| r.id() == child.id());
                if let (true, Some(left)) = (is_right, parent.child_by_field_name("left")) {
                    let is_and = parent.child_by_field_name("operator").is_some_and(|o| o.kind() == "and");
                    conditions.push((left, is_and));
                }
            }
            "if_statement" | "elif_clause" | "while_statement" => {
                let in_body = ["consequence", "body"]
                    .iter()
                    .any(|f| parent.child_by_field_name(f).is_some_and(|b| b.id() == child.id()));
                if in_body {
                    if let Some(condition) = parent.child_by_field_name("condition") {
                        conditions.push((condition, true));
                    }
                }
                if parent.kind() == "if_statement" && matches!(child.kind(), "elif_clause" | "else_clause") {
                    if let Some(condition) = parent.child_by_field_name("condition") {
                        conditions.push((condition, false));
                    }
                    for clause in named_children(parent) {
                        if clause.kind() == "elif_clause" && clause.start_byte() < child.start_byte() {
                            if let Some(condition) = clause.child_by_field_name("condition") {
                                conditions.push((condition, false));
                            }
                        }
                    }
                }
            }
            "conditional_expression" => {
                let operands: Vec<Node<'t>> =
                    named_children(parent).into_iter().filter(|c| c.kind() != "comment").collect();
                if let [then, condition, otherwise] = operands.as_slice() {
                    if then.id() == child.id() {
                        conditions.push((*condition, true));
                    } else if otherwise.id() == child.id() {
                        conditions.push((*condition, false));
                    }
                }
            }
            "block" | "module" => {
                for statement in statements(parent) {
                    if statement.start_byte() >= child.start_byte() {
                        break;
                    }
                    if statement.kind() == "if_statement"
                        && statement.child_by_field_name("alternative").is_none()
                        && statement.child_by_field_name("consequence").is_some_and(always_leaves)
                    {
                        if let Some(condition) = statement.child_by_field_name("condition") {
                            conditions.push((condition, false));
                        }
                    }
                }
            }
            _ => {}
        }
        child = parent;
    }
    let mut facts = Vec::new();
    while let Some((condition, truth)) = conditions.pop() {
        let condition = strip_parentheses(condition);
        match condition.kind() {
            "not_operator" => {
                if let Some(argument) = condition.child_by_field_name("argument") {
                    conditions.push((argument, !truth));
                }
            }
            "boolean_operator" => {
                let is_and = condition.child_by_field_name("operator").is_some_and(|o| o.kind() == "and");
                // `a and b` true makes both true; `a or b` false makes both false.
                if is_and == truth {
                    for field in ["left", "right"] {
                        if let Some(part) = condition.child_by_field_name(field) {
                            conditions.push((part, truth));
                        }
                    }
                }
            }
            "comparison_operator" => {
                if let Some(atom) = atom(cx, condition) {
                    facts.push((atom, truth));
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
        matches!(s.kind(), "return_statement" | "raise_statement" | "continue_statement" | "break_statement")
    })
}

fn is_variable(operand: &str) -> bool {
    number(operand).is_none()
}

fn shares_operands(fact: &Atom<'_>, test: &Atom<'_>) -> bool {
    [&fact.left, &fact.right].iter().any(|o| is_variable(o) && (**o == test.left || **o == test.right))
}

/// Whether a variable of the fact's operands may change between the fact and the test.
fn reassigned_between(cx: &FileContext<'_>, fact: &Atom<'_>, test: &Atom<'_>) -> bool {
    let (start, end) = (fact.node.end_byte(), test.node.start_byte());
    // A loop around the test but not the fact may change it after the test, too.
    let mut loops: Vec<(usize, usize)> = Vec::new();
    let mut current = test.node.parent();
    while let Some(n) = current {
        if matches!(n.kind(), "for_statement" | "while_statement") && n.start_byte() > fact.node.start_byte() {
            loops.push((n.start_byte(), n.end_byte()));
        }
        current = n.parent();
    }
    let in_range = |byte: usize| (start <= byte && byte < end) || loops.iter().any(|&(s, e)| s <= byte && byte < e);
    let operands: Vec<&String> = [&fact.left, &fact.right].into_iter().filter(|o| is_variable(o)).collect();
    for kind in
        ["assignment", "augmented_assignment", "for_statement", "named_expression", "with_item", "for_in_clause"]
    {
        for &node in cx.nodes(kind) {
            if !in_range(node.start_byte()) {
                continue;
            }
            let in_loop = loops.iter().any(|&(s, e)| s <= node.start_byte() && node.start_byte() < e);
            if !in_loop && in_other_branch(node, test.node) {
                continue;
            }
            let target = match kind {
                "named_expression" => node.child_by_field_name("name"),
                "with_item" => node.child_by_field_name("value"),
                _ => node.child_by_field_name("left"),
            };
            let Some(target) = target else { continue };
            let target_text = cx.text(target);
            let changes = operands.iter().any(|operand| {
                let root = operand.split('.').next().unwrap_or_default();
                target_text
                    .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.')
                    .any(|word| word == root || word == operand.as_str() || operand.starts_with(&format!("{word}.")))
            });
            if changes {
                return true;
            }
        }
    }
    false
}

/// Whether `node` is in a branch of an `if` statement that also holds
/// `test` in another branch, so that control cannot pass from one to the other.
fn in_other_branch(node: Node<'_>, test: Node<'_>) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if crate::ast::contains(parent, test) {
            let test_side = named_children(parent).into_iter().find(|c| crate::ast::contains(*c, test));
            return parent.kind() == "if_statement"
                && matches!(child.kind(), "block" | "elif_clause" | "else_clause")
                && test_side.is_some_and(|t| t.id() != child.id());
        }
        child = parent;
    }
    false
}

/// The set of orderings (`LT`, `EQ`, `GT`) in which `op` holds.
fn orderings(op: &str) -> u8 {
    match op {
        "<" => LT,
        "<=" => LT | EQ,
        "==" => EQ,
        "!=" | "<>" => LT | GT,
        ">" => GT,
        ">=" => EQ | GT,
        _ => 0,
    }
}

/// The operator with its operands swapped: `a < b` is `b > a`.
fn flipped(op: &str) -> &str {
    match op {
        "<" => ">",
        "<=" => ">=",
        ">" => "<",
        ">=" => "<=",
        other => other,
    }
}

/// Whether the test is always true or false when the fact has the given truth.
fn implication(fact: &Atom<'_>, truth: bool, test: &Atom<'_>) -> Option<bool> {
    let fact_set = |op: &str| if truth { orderings(op) } else { !orderings(op) & (LT | EQ | GT) };
    // Same two operands, in either order.
    let op = if fact.left == test.left && fact.right == test.right {
        Some(fact.op.as_str())
    } else if fact.left == test.right && fact.right == test.left {
        Some(flipped(&fact.op))
    } else {
        None
    };
    if let Some(op) = op {
        let known = fact_set(op);
        let tested = orderings(&test.op);
        return decide(known, tested);
    }
    // A variable compared with two numbers.
    let (variable, fact_op, fact_bound) = normalise(fact)?;
    let (test_variable, test_op, test_bound) = normalise(test)?;
    if variable != test_variable {
        return None;
    }
    let holds = |op: &str, x: f64, bound: f64| {
        let ordering = if x < bound {
            LT
        } else if x > bound {
            GT
        } else {
            EQ
        };
        orderings(op) & ordering != 0
    };
    let (low, high) = (fact_bound.min(test_bound), fact_bound.max(test_bound));
    let samples = [low - 1.0, low, (low + high) / 2.0, high, high + 1.0];
    let mut results =
        samples.iter().filter(|&&x| holds(fact_op, x, fact_bound) == truth).map(|&x| holds(test_op, x, test_bound));
    let first = results.next()?;
    results.all(|r| r == first).then_some(first)
}

fn decide(known: u8, tested: u8) -> Option<bool> {
    if known == 0 {
        None
    } else if known & !tested == 0 {
        Some(true)
    } else if known & tested == 0 {
        Some(false)
    } else {
        None
    }
}

/// `x op n` or `n op x` as (`x`, op, n) with the variable on the left.
fn normalise<'a>(atom: &'a Atom<'_>) -> Option<(&'a str, &'a str, f64)> {
    match (number(&atom.left), number(&atom.right)) {
        (None, Some(n)) => Some((atom.left.as_str(), atom.op.as_str(), n)),
        (Some(n), None) => Some((atom.right.as_str(), flipped(&atom.op), n)),
        _ => None,
    }
}

/// The outermost `not` around a comparison (through parentheses), with the
/// truth value adjusted for each `not`.
fn outermost_not(comparison: Node<'_>, mut result: bool) -> (Node<'_>, bool) {
    let mut reported = comparison;
    let mut current = comparison;
    while let Some(parent) = current.parent() {
        match parent.kind() {
            "parenthesized_expression" => current = parent,
            "not_operator" => {
                result = !result;
                reported = parent;
                current = parent;
            }
            _ => break,
        }
    }
    (reported, result)
}
