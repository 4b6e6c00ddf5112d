//! Q45 "Modification of parameter with default": a parameter whose default
//! is a list or dict literal is mutated in the function. The default object
//! is created once, when the `def` runs, so mutations leak into later calls.
//!
//! ```python
//! def add(item, seen=[]):       # supporting fact: the parameter `seen`
//!     seen.append(item)         # answer: `seen`, the mutated value
//!     return seen
//! ```
//!
//! Sinks, as in CodeQL's data-flow configuration: the object of a call to
//! a list- or dict-modifying method (`append`, `extend`, `insert`, `remove`,
//! `pop`, `clear`, `sort`, `reverse`, `popitem`, `setdefault`, `update`), the
//! target of an augmented assignment, and the object of a subscript
//! assignment or deletion. Flow is approximated syntactically: the sink is
//! the parameter's own name in the function body, not after a rebinding of
//! it in the same block, and not where the default cannot be: under `if param:` (or in the
//! `elif`/`else` branches of `if not param:`) for an empty default, which is
//! never truthy, and the other way round for a non-empty one. Flow into
//! other functions is followed as CodeQL's data flow does for the functions
//! of the file: a default passed, before any rebinding, as an argument
//! (positional or by keyword) to a module-level function of the file flows
//! into that function's parameter, whose mutations (under the same rules,
//! two calls deep at most) are answers too, with the default as supporting
//! fact. Type tests in the callee (`isinstance(x, dict)`) are not barriers,
//! as they are not in CodeQL's query.
//!
//! Negative form: the same mutations of parameters whose default is not a
//! mutable literal (`None`, a tuple, a call, ...).

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::parameters::parameter_identifier;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "modification-of-default-value",
        name: "Modification of parameter with default",
        index: 45,
        hops: Hops::Single,
        description: "Modifying the default value of a parameter can lead to unexpected results.",
        codeql: "python/ql/src/Functions/ModificationOfParameterWithDefault.ql",
    },
    find,
};

const MODIFYING_METHODS: &[&str] =
    &["append", "extend", "insert", "remove", "pop", "clear", "sort", "reverse", "popitem", "setdefault", "update"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &function in cx.nodes(Kind::FunctionDefinition) {
        let Some(parameters) = function.field(Field::Parameters) else { continue };
        for parameter in named_children(parameters) {
            if !matches!(parameter.py_kind(), Kind::DefaultParameter | Kind::TypedDefaultParameter) {
                continue;
            }
            let (Some(name), Some(default)) =
                (parameter_identifier(parameter), parameter.field(Field::Value).map(strip_parentheses))
            else {
                continue;
            };
            let mutable = matches!(default.py_kind(), Kind::List | Kind::Dictionary);
            if mutable != (polarity == Polarity::Positive) {
                continue;
            }
            let non_empty = default.named_child_count() > 0;
            let param = cx.text(name);
            // The default reaches the parameter itself, and, when mutable, the
            // parameters of the file's functions it is passed to.
            let mut reached = vec![(function, param.to_string())];
            if mutable {
                let mut frontier = reached.clone();
                for _ in 0..MAX_CALL_DEPTH {
                    let next: Vec<_> = frontier
                        .iter()
                        .flat_map(|(f, p)| callees_receiving(cx, *f, p))
                        .filter(|r| !reached.iter().any(|(f, p)| f.id() == r.0.id() && *p == r.1))
                        .collect();
                    reached.extend(next.iter().cloned());
                    frontier = next;
                }
            }
            for (receiver, receiving) in &reached {
                for sink in mutations(cx, *receiver, receiving) {
                    if mutable && guarded(cx, sink, *receiver, receiving, non_empty) {
                        continue;
                    }
                    let message = if mutable {
                        "This expression mutates a default value.".to_string()
                    } else {
                        format!("This expression mutates parameter '{param}', whose default is not mutable.")
                    };
                    findings.push(RawFinding::answer(cx.span(sink), message).with_facts([cx.span(name)]));
                }
            }
        }
    }
    findings
}

/// How many calls deep a default is followed into the file's functions.
const MAX_CALL_DEPTH: usize = 2;

/// The module-level functions of the file that `param` of `function` is
/// passed to, before `param` is rebound, with the parameter receiving it:
/// `g(a, param)` reaches `g`'s second positional parameter, `g(x=param)`
/// its parameter `x`. Arguments after a `*args` or `**kwargs` splat are not
/// placed.
fn callees_receiving<'t>(cx: &FileContext<'t>, function: Node<'t>, param: &str) -> Vec<(Node<'t>, String)> {
    let mut receiving = Vec::new();
    let references = references_before_rebinding(cx, function, param);
    for &argument in &references {
        let Some(list) = argument.parent().filter(|p| p.py_kind() == Kind::ArgumentList) else { continue };
        let Some(call) = list.parent().filter(|c| c.py_kind() == Kind::Call) else { continue };
        let Some(callee) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier) else { continue };
        let Some(target) = module_function(cx, cx.text(callee)) else { continue };
        let arguments = named_children(list);
        let position = arguments.iter().position(|a| a.id() == argument.id()).unwrap_or(usize::MAX);
        if position == usize::MAX || arguments[..position].iter().any(|a| !is_plain_argument(*a)) {
            continue;
        }
        let positional: Vec<_> = crate::parameters::parameters(target)
            .into_iter()
            .filter(|p| p.kind == crate::parameters::ParameterKind::Positional)
            .collect();
        let index = arguments[..position].iter().filter(|a| a.py_kind() != Kind::Comment).count();
        if let Some(identifier) = positional.get(index).and_then(|p| p.identifier) {
            receiving.push((target, cx.text(identifier).to_string()));
        }
    }
    for keyword in cx.nodes(Kind::KeywordArgument) {
        let (Some(name), Some(value)) = (keyword.field(Field::Name), keyword.field(Field::Value)) else { continue };
        if !references.iter().any(|r| r.id() == value.id()) {
            continue;
        }
        let Some(call) = keyword.parent().and_then(|l| l.parent()).filter(|c| c.py_kind() == Kind::Call) else {
            continue;
        };
        let Some(callee) = call.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier) else { continue };
        let Some(target) = module_function(cx, cx.text(callee)) else { continue };
        let taken = crate::parameters::parameters(target).into_iter().any(|p| {
            p.kind != crate::parameters::ParameterKind::VarArgs
                && p.kind != crate::parameters::ParameterKind::KwArgs
                && p.identifier.is_some_and(|i| cx.text(i) == cx.text(name))
        });
        if taken {
            receiving.push((target, cx.text(name).to_string()));
        }
    }
    receiving
}

/// Whether an argument is a positional expression or a comment (not a
/// splat or a keyword argument), so later arguments keep their position.
fn is_plain_argument(argument: Node<'_>) -> bool {
    !matches!(
        argument.py_kind(),
        Kind::ListSplat | Kind::DictionarySplat | Kind::KeywordArgument | Kind::ParenthesizedListSplat
    )
}

/// The function defined once, undecorated, at module level under `name`.
fn module_function<'t>(cx: &FileContext<'t>, name: &str) -> Option<Node<'t>> {
    let mut found = cx.nodes(Kind::FunctionDefinition).iter().copied().filter(|f| {
        f.parent().is_some_and(|p| p.py_kind() == Kind::Module)
            && f.field(Field::Name).is_some_and(|n| cx.text(n) == name)
    });
    let function = found.next()?;
    found.next().is_none().then_some(function)
}

/// References to `param` in the function's own scope that are mutated,
/// before the first rebinding of `param`.
fn mutations<'t>(cx: &FileContext<'t>, function: Node<'t>, param: &str) -> Vec<Node<'t>> {
    let mut sinks = Vec::new();
    for node in references_before_rebinding(cx, function, param) {
        let Some(parent) = node.parent() else { continue };
        let is_object = |field: Field| parent.field(field).is_some_and(|o| o.id() == node.id());
        let mutated = match parent.py_kind() {
            Kind::AugmentedAssignment => is_object(Field::Left),
            Kind::Attribute => {
                is_object(Field::Object)
                    && parent.field(Field::Attribute).is_some_and(|a| MODIFYING_METHODS.contains(&cx.text(a)))
                    && parent.parent().is_some_and(|call| {
                        call.py_kind() == Kind::Call
                            && call.field(Field::Function).is_some_and(|f| f.id() == parent.id())
                    })
            }
            Kind::Subscript => {
                is_object(Field::Value)
                    && parent.parent().is_some_and(|p| match p.py_kind() {
                        Kind::Assignment | Kind::AugmentedAssignment => {
                            p.field(Field::Left).is_some_and(|l| l.id() == parent.id())
                        }
                        Kind::DeleteStatement => true,
                        Kind::ExpressionList => p.parent().is_some_and(|d| d.py_kind() == Kind::DeleteStatement),
                        _ => false,
                    })
            }
            _ => false,
        };
        if mutated {
            sinks.push(node);
        }
    }
    sinks
}

/// The identifiers reading or writing `param` in the function's own scope
/// (not in nested functions, classes or lambdas) that the parameter's value
/// may still reach: a rebinding of `param` hides it from the later
/// references of the block holding the rebinding (the rest of the body for
/// a rebinding at the top of the body, the rest of its branch for one in an
/// `if` branch), as flow along control paths would.
fn references_before_rebinding<'t>(cx: &FileContext<'t>, function: Node<'t>, param: &str) -> Vec<Node<'t>> {
    let Some(body) = function.field(Field::Body) else { return Vec::new() };
    let scopes = cx.scopes();
    // Each rebinding as (its start, the end of the block holding it).
    let rebindings: Vec<(usize, usize)> = scopes
        .of_node(function.id())
        .map(|id| scopes.get(id))
        .map(|s| {
            s.bindings
                .iter()
                .filter(|b| b.name == param && b.kind != Some(crate::scopes::BindingKind::Parameter))
                .map(|b| {
                    let mut block = body.descendant_for_byte_range(b.start_byte, b.start_byte);
                    while let Some(n) = block.filter(|n| n.py_kind() != Kind::Block && n.id() != body.id()) {
                        block = n.parent();
                    }
                    (b.start_byte, block.map_or(body.end_byte(), |n| n.end_byte()))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut references = Vec::new();
    let mut walk = quarry_syntax::walk::Preorder::new(body);
    while let Some(node) = walk.next() {
        if matches!(node.py_kind(), Kind::FunctionDefinition | Kind::ClassDefinition | Kind::Lambda) {
            walk.skip_children();
            continue;
        }
        if node.py_kind() != Kind::Identifier || cx.text(node) != param {
            continue;
        }
        let start = node.start_byte();
        if !rebindings.iter().any(|&(at, block_end)| at < start && start <= block_end) {
            references.push(node);
        }
    }
    references
}

/// Whether the sink sits where the default cannot be: in the true branch of
/// `if param:` or in the `elif`/`else` branches of `if not param:` for an
/// empty default (never truthy), and the other way round for a non-empty
/// default (never falsy).
fn guarded(cx: &FileContext<'_>, sink: Node<'_>, function: Node<'_>, param: &str, non_empty: bool) -> bool {
    let truthy_test = param.to_string();
    let falsy_test = format!("not {param}");
    let condition_text = |n: Node<'_>| {
        n.field(Field::Condition)
            .map(strip_parentheses)
            .map(|c| cx.text(c).split_whitespace().collect::<Vec<_>>().join(" "))
    };
    let mut child = sink;
    let mut current = sink.parent();
    while let Some(n) = current {
        if n.id() == function.id() {
            return false;
        }
        if matches!(n.py_kind(), Kind::IfStatement | Kind::ElifClause) {
            let in_consequence = n.field(Field::Consequence).is_some_and(|c| c.id() == child.id());
            let in_later_branch =
                n.py_kind() == Kind::IfStatement && matches!(child.py_kind(), Kind::ElifClause | Kind::ElseClause);
            // The test that holds where the sink is: the condition itself in
            // its consequence, its negation in the later branches of an `if`.
            let holds = match condition_text(n) {
                Some(text) if in_consequence => Some(text),
                Some(text) if in_later_branch => Some(if text == truthy_test {
                    falsy_test.clone()
                } else if text == falsy_test {
                    truthy_test.clone()
                } else {
                    String::new()
                }),
                _ => None,
            };
            let impossible = if non_empty { &falsy_test } else { &truthy_test };
            if holds.as_ref() == Some(impossible) {
                return true;
            }
        }
        child = n;
        current = n.parent();
    }
    false
}
