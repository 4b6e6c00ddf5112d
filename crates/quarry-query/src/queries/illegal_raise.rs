//! Q43 "Illegal raise": raising something that is neither an exception
//! class nor an instance of one (a string, a number, a plain new-style
//! class) fails with a `TypeError` instead of raising what was meant.
//!
//! ```python
//! if not found:
//!     raise "lookup failed"       # answer: the raise statement
//! ```
//!
//! CodeQL infers the class of the raised value by points-to and reports
//! classes that are not legal exception types (new-style classes not
//! derived from `BaseException`; Python 2 old-style classes and tuples are
//! legal), skipping values whose class it cannot infer. Here the class is
//! inferred syntactically: literals (strings, numbers, `True`/`False`,
//! `None`, lists, dicts, sets) and classes of the same file — named or
//! instantiated in the raise — whose bases lead only to `object` or other
//! non-exception builtins. Classes without bases are old-style (legal), and
//! bases that cannot be resolved in the file stop the inference. Raising
//! `NotImplemented` is left to its own query. Negative form: the other
//! `raise` statements with an expression.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::{field_text, named_children, strip_parentheses};
use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "illegal-raise",
        name: "Illegal raise",
        index: 43,
        hops: Hops::Single,
        description: "Raising a non-exception object or type will result in a TypeError being raised instead.",
        codeql: "python/ql/src/Exceptions/IllegalRaise.ql",
    },
    find,
};

/// Builtin classes that are not exception types.
const NON_EXCEPTION_BUILTINS: &[&str] =
    &["object", "dict", "list", "set", "frozenset", "int", "long", "float", "str", "unicode", "bytes", "type"];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &raise in cx.nodes(Kind::RaiseStatement) {
        let Some(raised) = raised_expression(raise) else { continue };
        let illegal = illegal_class(cx, raised);
        let is_not_implemented = {
            let callee = if raised.py_kind() == Kind::Call { raised.field(Field::Function) } else { Some(raised) };
            callee.is_some_and(|c| cx.text(c) == "NotImplemented")
        };
        let message = match (polarity, illegal) {
            (Polarity::Positive, Some(class)) => {
                format!("Illegal class '{class}' raised; will result in a TypeError being raised instead.")
            }
            (Polarity::Negative, None) if !is_not_implemented => "The raised value may be an exception.".to_string(),
            _ => continue,
        };
        findings.push(RawFinding::answer(cx.location(raise), message));
    }
    findings
}

/// The raised expression: `raise E`, `raise E(...)`, Python 2's `raise E, value`.
fn raised_expression(raise: Node<'_>) -> Option<Node<'_>> {
    let cause = raise.field(Field::Cause).map(|c| c.id());
    let mut raised =
        named_children(raise).into_iter().find(|c| c.py_kind() != Kind::Comment && Some(c.id()) != cause)?;
    if raised.py_kind() == Kind::ExpressionList {
        raised = raised.named_child(0)?;
    }
    Some(strip_parentheses(raised))
}

/// The name of the class of the raised value when it is known to be illegal.
fn illegal_class(cx: &FileContext<'_>, raised: Node<'_>) -> Option<String> {
    let literal = match raised.py_kind() {
        Kind::String | Kind::ConcatenatedString => Some("str"),
        Kind::Integer => Some("int"),
        Kind::Float => Some("float"),
        Kind::True | Kind::False => Some("bool"),
        Kind::None => Some("NoneType"),
        Kind::List | Kind::ListComprehension => Some("list"),
        Kind::Dictionary | Kind::DictionaryComprehension => Some("dict"),
        Kind::Set | Kind::SetComprehension => Some("set"),
        _ => None,
    };
    if let Some(class) = literal {
        return Some(class.to_string());
    }
    let name = match raised.py_kind() {
        Kind::Identifier => raised,
        Kind::Call => raised.field(Field::Function).filter(|f| f.py_kind() == Kind::Identifier)?,
        _ => return None,
    };
    let name = cx.text(name);
    is_new_style_non_exception(cx, name).then(|| name.to_string())
}

/// Whether the class `name`, defined once at module level in this file,
/// is a new-style class whose bases all lead to non-exception builtins.
fn is_new_style_non_exception(cx: &FileContext<'_>, name: &str) -> bool {
    let module_bindings =
        cx.scopes().get(crate::scopes::ScopeId::MODULE).bindings.iter().filter(|b| b.name == name).count();
    if module_bindings != 1 {
        return false;
    }
    let mut pending = vec![name.to_string()];
    let mut seen: Vec<String> = Vec::new();
    let mut new_style = false;
    while let Some(current) = pending.pop() {
        if seen.contains(&current) {
            continue;
        }
        seen.push(current.clone());
        if NON_EXCEPTION_BUILTINS.contains(&current.as_str()) {
            new_style = true;
            continue;
        }
        let definitions: Vec<Node<'_>> = cx
            .nodes(Kind::ClassDefinition)
            .iter()
            .copied()
            .filter(|&c| {
                c.parent().is_some_and(|p| p.py_kind() == Kind::Module)
                    && field_text(cx.file(), c, Field::Name) == Some(current.as_str())
            })
            .collect();
        let [class] = definitions.as_slice() else { return false };
        let bases: Vec<Node<'_>> = class
            .field(Field::Superclasses)
            .map(named_children)
            .unwrap_or_default()
            .into_iter()
            .filter(|b| b.py_kind() != Kind::Comment)
            .collect();
        for base in bases {
            if base.py_kind() != Kind::Identifier {
                // Keyword arguments (a metaclass) or dotted bases: not inferred.
                return false;
            }
            pending.push(cx.text(base).to_string());
        }
    }
    new_style
}
