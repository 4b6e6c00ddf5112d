//! Function signatures (positional parameters with and without defaults,
//! `*args`, keyword-only parameters, `**kwargs`), the shape of call sites
//! (positional and keyword arguments, `*` and `**` unpacking) and whether a
//! call's arity fits a signature.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::named_children;
use crate::parameters::{parameters, ParameterKind};
use quarry_syntax::ParsedFile;

/// The parameters of a function definition.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Signature {
    /// Names of positional (or positional-or-keyword) parameters, in order.
    pub positional: Vec<String>,
    /// How many leading positional parameters have no default.
    pub required_positional: usize,
    /// Whether it takes `*args`.
    pub varargs: bool,
    /// Keyword-only parameters with whether each has a default.
    pub keyword_only: Vec<(String, bool)>,
    /// Whether it takes `**kwargs`.
    pub kwargs: bool,
}

impl Signature {
    /// Reads the signature of a `function_definition` or `lambda`.
    pub fn of(file: &ParsedFile, function: Node<'_>) -> Signature {
        let mut signature = Signature::default();
        for p in parameters(function) {
            let name = p.identifier.map(|i| file.node_text(i).to_string()).unwrap_or_default();
            match p.kind {
                ParameterKind::Positional => {
                    if !p.has_default() && signature.required_positional == signature.positional.len() {
                        signature.required_positional += 1;
                    }
                    signature.positional.push(name);
                }
                ParameterKind::VarArgs => signature.varargs = true,
                ParameterKind::KeywordOnly => signature.keyword_only.push((name, p.has_default())),
                ParameterKind::KwArgs => signature.kwargs = true,
            }
        }
        signature
    }

    /// The fewest positional arguments a call must pass.
    pub fn min_positional(&self) -> usize {
        self.required_positional
    }

    /// The most positional arguments a call may pass (`None`: unbounded).
    pub fn max_positional(&self) -> Option<usize> {
        (!self.varargs).then_some(self.positional.len())
    }

    /// Whether a keyword argument of that name is accepted.
    pub fn accepts_keyword(&self, name: &str) -> bool {
        self.kwargs || self.positional.iter().any(|p| p == name) || self.keyword_only.iter().any(|(k, _)| k == name)
    }

    /// The signature as seen through a bound method: the first parameter is
    /// filled by the receiver.
    pub fn bound(&self) -> Signature {
        let mut bound = self.clone();
        if !bound.positional.is_empty() {
            bound.positional.remove(0);
            bound.required_positional = bound.required_positional.saturating_sub(1);
        }
        bound
    }
}

/// The arguments of one call site.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallShape {
    /// Positional arguments (not counting `*` unpacking).
    pub positional: usize,
    /// Names of keyword arguments.
    pub keywords: Vec<String>,
    /// Whether `*iterable` is passed.
    pub star: bool,
    /// Whether `**mapping` is passed.
    pub double_star: bool,
}

impl CallShape {
    /// Reads the arguments of a `call` node.
    pub fn of(file: &ParsedFile, call: Node<'_>) -> CallShape {
        let mut shape = CallShape::default();
        let Some(arguments) = call.field(Field::Arguments) else { return shape };
        if arguments.py_kind() == Kind::GeneratorExpression {
            shape.positional = 1;
            return shape;
        }
        for argument in named_children(arguments) {
            match argument.py_kind() {
                Kind::ListSplat => shape.star = true,
                Kind::DictionarySplat => shape.double_star = true,
                Kind::KeywordArgument => {
                    let name = argument.field(Field::Name).map(|n| file.node_text(n).to_string());
                    shape.keywords.push(name.unwrap_or_default());
                }
                Kind::Comment => {}
                _ => shape.positional += 1,
            }
        }
        shape
    }

    /// Whether unpacking makes the number of arguments unknown.
    pub fn has_unpacking(&self) -> bool {
        self.star || self.double_star
    }
}

/// Whether a call fits a signature by count of arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arity {
    /// The counts fit (or cannot be judged because of unpacking).
    Fits,
    /// More arguments than the limit allows.
    TooMany(usize),
    /// Fewer arguments than the limit requires.
    TooFew(usize),
}

/// Checks a call against a signature as CodeQL's `CallArgs` does: too many
/// when more positional arguments are passed than there are positional
/// parameters (no `*args`, no `*` unpacking); too few when positional and
/// keyword arguments together are fewer than the required positional
/// parameters (no unpacking).
pub fn check_arity(signature: &Signature, call: &CallShape) -> Arity {
    if let Some(max) = signature.max_positional() {
        if !call.star && call.positional > max {
            return Arity::TooMany(max);
        }
    }
    let required = signature.min_positional();
    if !call.has_unpacking() && call.positional + call.keywords.len() < required {
        return Arity::TooFew(required);
    }
    Arity::Fits
}

#[cfg(test)]
mod tests {
    use super::*;
    use quarry_syntax::{Language, SourceFile};

    fn parse(text: &str) -> ParsedFile {
        ParsedFile::parse(SourceFile::from_text("t.py", text), Language::Python).unwrap()
    }

    fn first<'a>(file: &'a ParsedFile, kind: Kind) -> Node<'a> {
        quarry_syntax::walk::Preorder::new(file.root()).find(|n| n.py_kind() == kind).unwrap()
    }

    #[test]
    fn signatures() {
        let file = parse("def f(self, a, b=1, *args, c, d=2, **kw): pass\n");
        let s = Signature::of(&file, first(&file, Kind::FunctionDefinition));
        assert_eq!(s.positional, ["self", "a", "b"]);
        assert_eq!((s.min_positional(), s.max_positional()), (2, None));
        assert_eq!(s.keyword_only, [("c".to_string(), false), ("d".to_string(), true)]);
        assert!(s.kwargs && s.accepts_keyword("anything"));
        assert_eq!(s.bound().positional, ["a", "b"]);
        let file = parse("def g(a, b=1, *, c): pass\n");
        let s = Signature::of(&file, first(&file, Kind::FunctionDefinition));
        assert_eq!((s.min_positional(), s.max_positional()), (1, Some(2)));
        assert!(!s.accepts_keyword("z") && s.accepts_keyword("c"));
    }

    #[test]
    fn arity() {
        let file = parse("def g(a, b=1): pass\ng(1, 2, 3)\n");
        let s = Signature::of(&file, first(&file, Kind::FunctionDefinition));
        let call = |text: &str| {
            let f = parse(text);
            let shape = CallShape::of(&f, first(&f, Kind::Call));
            shape
        };
        assert_eq!(check_arity(&s, &call("g(1, 2, 3)")), Arity::TooMany(2));
        assert_eq!(check_arity(&s, &call("g()")), Arity::TooFew(1));
        assert_eq!(check_arity(&s, &call("g(b=2)")), Arity::Fits);
        assert_eq!(check_arity(&s, &call("g(*xs)")), Arity::Fits);
        assert_eq!(check_arity(&s, &call("g(x for x in y)")), Arity::Fits);
        assert!(call("g(**kw)").has_unpacking());
    }
}
