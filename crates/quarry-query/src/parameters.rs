//! The one parameter model: what each parameter of a `def` or `lambda` is
//! (positional, `*args`, keyword-only, `**kwargs`), its identifier, default
//! and annotation. Annotated splats (`*args: T`, `**kw: T`) are splats, and
//! Python 2 tuple parameters (`def f(a, (b, c))`) are positional.

use quarry_syntax::ParsedFile;
use tree_sitter::Node;

use crate::ast::named_children;
use crate::syntax::{Field, Kind, SyntaxNode};

/// How a parameter receives its argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParameterKind {
    /// Positional or positional-or-keyword (before `*`/`*args`).
    Positional,
    /// `*args`.
    VarArgs,
    /// After `*` or `*args`: keyword only.
    KeywordOnly,
    /// `**kwargs`.
    KwArgs,
}

/// One parameter of a function or lambda.
#[derive(Debug, Clone, Copy)]
pub struct Parameter<'t> {
    /// The parameter node (`identifier`, `default_parameter`, `typed_parameter`, ...).
    pub node: Node<'t>,
    /// How it receives its argument.
    pub kind: ParameterKind,
    /// The identifier it binds (none for a tuple parameter).
    pub identifier: Option<Node<'t>>,
    /// Its default value.
    pub default: Option<Node<'t>>,
    /// Its annotation.
    pub annotation: Option<Node<'t>>,
}

impl Parameter<'_> {
    /// Whether it has a default value.
    pub fn has_default(&self) -> bool {
        self.default.is_some()
    }
}

/// The identifier a parameter node binds: `x`, `x=1`, `x: int`, `*args`,
/// `**kw: T`; none for tuple parameters and separators.
pub fn parameter_identifier(parameter: Node<'_>) -> Option<Node<'_>> {
    match parameter.py_kind() {
        Kind::Identifier => Some(parameter),
        Kind::DefaultParameter | Kind::TypedDefaultParameter => {
            parameter.field(Field::Name).and_then(parameter_identifier)
        }
        Kind::TypedParameter | Kind::ListSplatPattern | Kind::DictionarySplatPattern => {
            named_children(parameter).into_iter().find_map(parameter_identifier)
        }
        _ => None,
    }
}

/// The parameters of a function definition or lambda, in order.
pub fn parameters(function: Node<'_>) -> Vec<Parameter<'_>> {
    let Some(list) = function.field(Field::Parameters) else { return Vec::new() };
    let mut keyword_only = false;
    let mut parameters = Vec::new();
    for node in named_children(list) {
        // The node that says whether it is a splat: `*args: T` is a
        // typed_parameter around a list_splat_pattern.
        let inner = if node.py_kind() == Kind::TypedParameter {
            named_children(node)
                .into_iter()
                .find(|c| matches!(c.py_kind(), Kind::ListSplatPattern | Kind::DictionarySplatPattern))
                .unwrap_or(node)
        } else {
            node
        };
        let kind = match inner.py_kind() {
            Kind::ListSplatPattern => {
                keyword_only = true;
                ParameterKind::VarArgs
            }
            Kind::DictionarySplatPattern => ParameterKind::KwArgs,
            Kind::KeywordSeparator => {
                keyword_only = true;
                continue;
            }
            Kind::Identifier
            | Kind::DefaultParameter
            | Kind::TypedDefaultParameter
            | Kind::TypedParameter
            | Kind::TuplePattern => {
                if keyword_only {
                    ParameterKind::KeywordOnly
                } else {
                    ParameterKind::Positional
                }
            }
            // `/`, comments, and error recovery.
            _ => continue,
        };
        parameters.push(Parameter {
            node,
            kind,
            identifier: parameter_identifier(node),
            default: node.field(Field::Value),
            annotation: node.field(Field::Type),
        });
    }
    parameters
}

/// The names a function's parameters bind, in order, with `*args` and
/// `**kwargs` included (without stars) and tuple parameters left out.
pub fn parameter_names<'t>(file: &ParsedFile, function: Node<'t>) -> Vec<(String, Node<'t>)> {
    parameters(function)
        .into_iter()
        .filter_map(|p| p.identifier.map(|id| (file.node_text(id).to_string(), id)))
        .collect()
}

/// The first parameter's name (`self`, `cls`) and identifier, if it is a
/// positional parameter.
pub fn receiver<'t>(file: &ParsedFile, function: Node<'t>) -> Option<(String, Node<'t>)> {
    let first = parameters(function).into_iter().next()?;
    if first.kind != ParameterKind::Positional {
        return None;
    }
    first.identifier.map(|id| (file.node_text(id).to_string(), id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, SourceFile};

    fn kinds(source: &str) -> Vec<(String, ParameterKind, bool)> {
        let file = ParsedFile::parse(SourceFile::from_text("t.py", source), Language::Python).unwrap();
        let function = quarry_syntax::walk::Preorder::new(file.root())
            .find(|n| matches!(n.py_kind(), Kind::FunctionDefinition | Kind::Lambda))
            .unwrap();
        parameters(function)
            .into_iter()
            .map(|p| (p.identifier.map(|i| file.node_text(i).to_string()).unwrap_or_default(), p.kind, p.has_default()))
            .collect()
    }

    #[test]
    fn annotated_splats_are_splats() {
        use ParameterKind::*;
        assert_eq!(
            kinds("def f(self, x: int, *args: Any, key=1, **kw: Any): pass\n"),
            vec![
                ("self".into(), Positional, false),
                ("x".into(), Positional, false),
                ("args".into(), VarArgs, false),
                ("key".into(), KeywordOnly, true),
                ("kw".into(), KwArgs, false),
            ]
        );
        assert_eq!(
            kinds("def g(a, /, b=2, *, c): pass\n"),
            vec![("a".into(), Positional, false), ("b".into(), Positional, true), ("c".into(), KeywordOnly, false)]
        );
        assert_eq!(kinds("def h(a, (b, c)): pass\n").len(), 2);
        assert_eq!(kinds("k = lambda self, other=None: self\n").len(), 2);
    }
}
