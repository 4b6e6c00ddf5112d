//! Facts about Python's builtin classes, for class hierarchies whose bases
//! are builtins: their bases, the notable attributes they define (special
//! methods such as `__eq__`, `__hash__`, `__iter__`, `__next__`, `__call__`
//! and the public methods a subclass may clash with), and whether they are
//! exceptions; and the one table of builtin names, per Python version.

/// A Python major version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PythonVersion {
    /// Python 2 (`__builtin__`).
    Two,
    /// Python 3 (`builtins`).
    Three,
}

/// The versions a builtin name exists in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Versions {
    Py2,
    Py3,
    Both,
    /// Defined only on Windows (`WindowsError`), so absent where CodeQL's
    /// extractor and quarry's tests run.
    Windows,
}

/// Names of the `builtins` / `__builtin__` module, sorted, with the
/// versions that define them.
const BUILTIN_NAMES: &[(&str, Versions)] = &[
    ("ArithmeticError", Versions::Both),
    ("AssertionError", Versions::Both),
    ("AttributeError", Versions::Both),
    ("BaseException", Versions::Both),
    ("BlockingIOError", Versions::Py3),
    ("BrokenPipeError", Versions::Py3),
    ("BufferError", Versions::Both),
    ("BytesWarning", Versions::Both),
    ("ChildProcessError", Versions::Py3),
    ("ConnectionAbortedError", Versions::Py3),
    ("ConnectionError", Versions::Py3),
    ("ConnectionRefusedError", Versions::Py3),
    ("ConnectionResetError", Versions::Py3),
    ("DeprecationWarning", Versions::Both),
    ("EOFError", Versions::Both),
    ("Ellipsis", Versions::Both),
    ("EnvironmentError", Versions::Both),
    ("Exception", Versions::Both),
    ("False", Versions::Both),
    ("FileExistsError", Versions::Py3),
    ("FileNotFoundError", Versions::Py3),
    ("FloatingPointError", Versions::Both),
    ("FutureWarning", Versions::Both),
    ("GeneratorExit", Versions::Both),
    ("IOError", Versions::Both),
    ("ImportError", Versions::Both),
    ("ImportWarning", Versions::Both),
    ("IndentationError", Versions::Both),
    ("IndexError", Versions::Both),
    ("InterruptedError", Versions::Py3),
    ("IsADirectoryError", Versions::Py3),
    ("KeyError", Versions::Both),
    ("KeyboardInterrupt", Versions::Both),
    ("LookupError", Versions::Both),
    ("MemoryError", Versions::Both),
    ("ModuleNotFoundError", Versions::Py3),
    ("NameError", Versions::Both),
    ("None", Versions::Both),
    ("NotADirectoryError", Versions::Py3),
    ("NotImplemented", Versions::Both),
    ("NotImplementedError", Versions::Both),
    ("OSError", Versions::Both),
    ("OverflowError", Versions::Both),
    ("PendingDeprecationWarning", Versions::Both),
    ("PermissionError", Versions::Py3),
    ("ProcessLookupError", Versions::Py3),
    ("RecursionError", Versions::Py3),
    ("ReferenceError", Versions::Both),
    ("ResourceWarning", Versions::Py3),
    ("RuntimeError", Versions::Both),
    ("RuntimeWarning", Versions::Both),
    ("StandardError", Versions::Py2),
    ("StopAsyncIteration", Versions::Py3),
    ("StopIteration", Versions::Both),
    ("SyntaxError", Versions::Both),
    ("SyntaxWarning", Versions::Both),
    ("SystemError", Versions::Both),
    ("SystemExit", Versions::Both),
    ("TabError", Versions::Both),
    ("TimeoutError", Versions::Py3),
    ("True", Versions::Both),
    ("TypeError", Versions::Both),
    ("UnboundLocalError", Versions::Both),
    ("UnicodeDecodeError", Versions::Both),
    ("UnicodeEncodeError", Versions::Both),
    ("UnicodeError", Versions::Both),
    ("UnicodeTranslateError", Versions::Both),
    ("UnicodeWarning", Versions::Both),
    ("UserWarning", Versions::Both),
    ("ValueError", Versions::Both),
    ("Warning", Versions::Both),
    ("WindowsError", Versions::Windows),
    ("ZeroDivisionError", Versions::Both),
    ("__build_class__", Versions::Py3),
    ("__debug__", Versions::Both),
    ("__doc__", Versions::Both),
    ("__import__", Versions::Both),
    ("__loader__", Versions::Py3),
    ("__name__", Versions::Both),
    ("__package__", Versions::Both),
    ("__spec__", Versions::Py3),
    ("abs", Versions::Both),
    ("all", Versions::Both),
    ("any", Versions::Both),
    ("apply", Versions::Py2),
    ("ascii", Versions::Py3),
    ("basestring", Versions::Py2),
    ("bin", Versions::Both),
    ("bool", Versions::Both),
    ("breakpoint", Versions::Py3),
    ("buffer", Versions::Py2),
    ("bytearray", Versions::Both),
    ("bytes", Versions::Both),
    ("callable", Versions::Both),
    ("chr", Versions::Both),
    ("classmethod", Versions::Both),
    ("cmp", Versions::Py2),
    ("coerce", Versions::Py2),
    ("compile", Versions::Both),
    ("complex", Versions::Both),
    ("copyright", Versions::Both),
    ("credits", Versions::Both),
    ("delattr", Versions::Both),
    ("dict", Versions::Both),
    ("dir", Versions::Both),
    ("divmod", Versions::Both),
    ("enumerate", Versions::Both),
    ("eval", Versions::Both),
    ("exec", Versions::Py3),
    ("execfile", Versions::Py2),
    ("exit", Versions::Both),
    ("file", Versions::Py2),
    ("filter", Versions::Both),
    ("float", Versions::Both),
    ("format", Versions::Both),
    ("frozenset", Versions::Both),
    ("getattr", Versions::Both),
    ("globals", Versions::Both),
    ("hasattr", Versions::Both),
    ("hash", Versions::Both),
    ("help", Versions::Both),
    ("hex", Versions::Both),
    ("id", Versions::Both),
    ("input", Versions::Both),
    ("int", Versions::Both),
    ("intern", Versions::Py2),
    ("isinstance", Versions::Both),
    ("issubclass", Versions::Both),
    ("iter", Versions::Both),
    ("len", Versions::Both),
    ("license", Versions::Both),
    ("list", Versions::Both),
    ("locals", Versions::Both),
    ("long", Versions::Py2),
    ("map", Versions::Both),
    ("max", Versions::Both),
    ("memoryview", Versions::Both),
    ("min", Versions::Both),
    ("next", Versions::Both),
    ("object", Versions::Both),
    ("oct", Versions::Both),
    ("open", Versions::Both),
    ("ord", Versions::Both),
    ("pow", Versions::Both),
    ("print", Versions::Both),
    ("property", Versions::Both),
    ("quit", Versions::Both),
    ("range", Versions::Both),
    ("raw_input", Versions::Py2),
    ("reduce", Versions::Py2),
    ("reload", Versions::Py2),
    ("repr", Versions::Both),
    ("reversed", Versions::Both),
    ("round", Versions::Both),
    ("set", Versions::Both),
    ("setattr", Versions::Both),
    ("slice", Versions::Both),
    ("sorted", Versions::Both),
    ("staticmethod", Versions::Both),
    ("str", Versions::Both),
    ("sum", Versions::Both),
    ("super", Versions::Both),
    ("tuple", Versions::Both),
    ("type", Versions::Both),
    ("unichr", Versions::Py2),
    ("unicode", Versions::Py2),
    ("vars", Versions::Both),
    ("xrange", Versions::Py2),
    ("zip", Versions::Both),
];

/// Whether `name` is a builtin in Python 2 or Python 3.
pub fn is_builtin_name(name: &str) -> bool {
    BUILTIN_NAMES.binary_search_by(|(n, _)| n.cmp(&name)).is_ok()
}

/// Whether `name` is a builtin in the given Python version on every
/// platform (`WindowsError` is not).
pub fn is_builtin_in(name: &str, version: PythonVersion) -> bool {
    match BUILTIN_NAMES.binary_search_by(|(n, _)| n.cmp(&name)) {
        Ok(i) => matches!(
            (BUILTIN_NAMES[i].1, version),
            (Versions::Both, _) | (Versions::Py2, PythonVersion::Two) | (Versions::Py3, PythonVersion::Three)
        ),
        Err(_) => false,
    }
}

/// One builtin class.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinClass {
    /// The builtin name.
    pub name: &'static str,
    /// Its direct base (`None` for `object`).
    pub base: Option<&'static str>,
    /// Attributes it declares itself (not inherited).
    pub declares: &'static [&'static str],
    /// Whether instances are unhashable (`__hash__` is `None`).
    pub unhashable: bool,
}

const ORDERING: &[&str] = &["__lt__", "__le__", "__gt__", "__ge__"];

const OBJECT: &[&str] = &[
    "__init__",
    "__new__",
    "__eq__",
    "__ne__",
    "__hash__",
    "__repr__",
    "__str__",
    "__format__",
    "__getattribute__",
    "__setattr__",
    "__delattr__",
    "__reduce__",
    "__reduce_ex__",
    "__sizeof__",
    "__dir__",
    "__init_subclass__",
    "__subclasshook__",
    "__class__",
    "__doc__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
];

const NUMBER: &[&str] = &[
    "__eq__",
    "__hash__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__add__",
    "__sub__",
    "__mul__",
    "__truediv__",
    "__bool__",
    "__int__",
    "__float__",
    "real",
    "imag",
    "conjugate",
    "bit_length",
    "to_bytes",
    "from_bytes",
    "is_integer",
    "as_integer_ratio",
    "hex",
    "fromhex",
    "numerator",
    "denominator",
];

const STRING: &[&str] = &[
    "__eq__",
    "__hash__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__iter__",
    "__len__",
    "__getitem__",
    "__contains__",
    "__add__",
    "__mul__",
    "__mod__",
    "capitalize",
    "center",
    "count",
    "decode",
    "encode",
    "endswith",
    "expandtabs",
    "find",
    "format",
    "index",
    "isalnum",
    "isalpha",
    "isdigit",
    "islower",
    "isspace",
    "istitle",
    "isupper",
    "join",
    "ljust",
    "lower",
    "lstrip",
    "partition",
    "replace",
    "rfind",
    "rindex",
    "rjust",
    "rpartition",
    "rsplit",
    "rstrip",
    "split",
    "splitlines",
    "startswith",
    "strip",
    "swapcase",
    "title",
    "translate",
    "upper",
    "zfill",
];

const LIST: &[&str] = &[
    "__eq__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__iter__",
    "__len__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__contains__",
    "__add__",
    "__iadd__",
    "__reversed__",
    "append",
    "clear",
    "copy",
    "count",
    "extend",
    "index",
    "insert",
    "pop",
    "remove",
    "reverse",
    "sort",
];

const TUPLE: &[&str] = &[
    "__eq__",
    "__hash__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__iter__",
    "__len__",
    "__getitem__",
    "__contains__",
    "__add__",
    "count",
    "index",
];

const DICT: &[&str] = &[
    "__eq__",
    "__iter__",
    "__len__",
    "__getitem__",
    "__setitem__",
    "__delitem__",
    "__contains__",
    "clear",
    "copy",
    "fromkeys",
    "get",
    "items",
    "keys",
    "pop",
    "popitem",
    "setdefault",
    "update",
    "values",
    "has_key",
    "iteritems",
    "iterkeys",
    "itervalues",
];

const SET: &[&str] = &[
    "__eq__",
    "__lt__",
    "__le__",
    "__gt__",
    "__ge__",
    "__iter__",
    "__len__",
    "__contains__",
    "add",
    "clear",
    "copy",
    "difference",
    "difference_update",
    "discard",
    "intersection",
    "intersection_update",
    "isdisjoint",
    "issubset",
    "issuperset",
    "pop",
    "remove",
    "symmetric_difference",
    "union",
    "update",
];

const TYPE: &[&str] = &["__call__", "__init__", "__new__", "__prepare__", "mro", "__subclasses__", "__instancecheck__"];

const EXCEPTION: &[&str] = &["__init__", "__str__", "__repr__", "__reduce__", "args", "with_traceback"];

const ITERATOR: &[&str] = &["__iter__", "__next__"];

const DESCRIPTOR: &[&str] = &["__get__", "__set__", "__delete__", "__init__", "getter", "setter", "deleter"];

macro_rules! class {
    ($name:literal, $base:expr, $declares:expr) => {
        BuiltinClass { name: $name, base: $base, declares: $declares, unhashable: false }
    };
    ($name:literal, $base:expr, $declares:expr, unhashable) => {
        BuiltinClass { name: $name, base: $base, declares: $declares, unhashable: true }
    };
}

/// Every builtin class known by name (Python 2 and 3 names together).
pub static BUILTIN_CLASSES: &[BuiltinClass] = &[
    class!("object", None, OBJECT),
    class!("type", Some("object"), TYPE),
    class!("int", Some("object"), NUMBER),
    class!("long", Some("object"), NUMBER),
    class!("bool", Some("int"), &[]),
    class!("float", Some("object"), NUMBER),
    class!("complex", Some("object"), NUMBER),
    class!("str", Some("object"), STRING),
    class!("unicode", Some("object"), STRING),
    class!("basestring", Some("object"), &[]),
    class!("bytes", Some("object"), STRING),
    class!("bytearray", Some("object"), STRING, unhashable),
    class!("list", Some("object"), LIST, unhashable),
    class!("tuple", Some("object"), TUPLE),
    class!("dict", Some("object"), DICT, unhashable),
    class!("set", Some("object"), SET, unhashable),
    class!("frozenset", Some("object"), SET),
    class!("property", Some("object"), DESCRIPTOR),
    class!("staticmethod", Some("object"), &["__get__", "__init__", "__func__"]),
    class!("classmethod", Some("object"), &["__get__", "__init__", "__func__"]),
    class!("super", Some("object"), &["__get__", "__init__"]),
    class!("range", Some("object"), &["__iter__", "__len__", "__getitem__", "__contains__", "count", "index"]),
    class!("xrange", Some("object"), &["__iter__", "__len__", "__getitem__"]),
    class!("slice", Some("object"), &["indices", "start", "stop", "step"]),
    class!("memoryview", Some("object"), &["__getitem__", "__len__", "tobytes", "tolist", "release"]),
    class!("enumerate", Some("object"), ITERATOR),
    class!("zip", Some("object"), ITERATOR),
    class!("map", Some("object"), ITERATOR),
    class!("filter", Some("object"), ITERATOR),
    class!("reversed", Some("object"), ITERATOR),
    class!("file", Some("object"), &["__iter__", "next", "close", "read", "readline", "readlines", "write", "seek"]),
    class!("BaseException", Some("object"), EXCEPTION),
    class!("SystemExit", Some("BaseException"), &["code"]),
    class!("KeyboardInterrupt", Some("BaseException"), &[]),
    class!("GeneratorExit", Some("BaseException"), &[]),
    class!("Exception", Some("BaseException"), &[]),
    class!("StandardError", Some("Exception"), &[]),
    class!("StopIteration", Some("Exception"), &["value"]),
    class!("StopAsyncIteration", Some("Exception"), &[]),
    class!("ArithmeticError", Some("Exception"), &[]),
    class!("FloatingPointError", Some("ArithmeticError"), &[]),
    class!("OverflowError", Some("ArithmeticError"), &[]),
    class!("ZeroDivisionError", Some("ArithmeticError"), &[]),
    class!("AssertionError", Some("Exception"), &[]),
    class!("AttributeError", Some("Exception"), &[]),
    class!("BufferError", Some("Exception"), &[]),
    class!("EOFError", Some("Exception"), &[]),
    class!("ImportError", Some("Exception"), &["name", "path", "msg"]),
    class!("ModuleNotFoundError", Some("ImportError"), &[]),
    class!("LookupError", Some("Exception"), &[]),
    class!("IndexError", Some("LookupError"), &[]),
    class!("KeyError", Some("LookupError"), &[]),
    class!("MemoryError", Some("Exception"), &[]),
    class!("NameError", Some("Exception"), &[]),
    class!("UnboundLocalError", Some("NameError"), &[]),
    class!("EnvironmentError", Some("Exception"), &["errno", "strerror", "filename"]),
    class!("OSError", Some("Exception"), &["errno", "strerror", "filename", "filename2"]),
    class!("IOError", Some("OSError"), &[]),
    class!("WindowsError", Some("OSError"), &[]),
    class!("BlockingIOError", Some("OSError"), &[]),
    class!("ChildProcessError", Some("OSError"), &[]),
    class!("ConnectionError", Some("OSError"), &[]),
    class!("BrokenPipeError", Some("ConnectionError"), &[]),
    class!("ConnectionAbortedError", Some("ConnectionError"), &[]),
    class!("ConnectionRefusedError", Some("ConnectionError"), &[]),
    class!("ConnectionResetError", Some("ConnectionError"), &[]),
    class!("FileExistsError", Some("OSError"), &[]),
    class!("FileNotFoundError", Some("OSError"), &[]),
    class!("InterruptedError", Some("OSError"), &[]),
    class!("IsADirectoryError", Some("OSError"), &[]),
    class!("NotADirectoryError", Some("OSError"), &[]),
    class!("PermissionError", Some("OSError"), &[]),
    class!("ProcessLookupError", Some("OSError"), &[]),
    class!("TimeoutError", Some("OSError"), &[]),
    class!("ReferenceError", Some("Exception"), &[]),
    class!("RuntimeError", Some("Exception"), &[]),
    class!("NotImplementedError", Some("RuntimeError"), &[]),
    class!("RecursionError", Some("RuntimeError"), &[]),
    class!("SyntaxError", Some("Exception"), &["msg", "filename", "lineno", "offset", "text"]),
    class!("IndentationError", Some("SyntaxError"), &[]),
    class!("TabError", Some("IndentationError"), &[]),
    class!("SystemError", Some("Exception"), &[]),
    class!("TypeError", Some("Exception"), &[]),
    class!("ValueError", Some("Exception"), &[]),
    class!("UnicodeError", Some("ValueError"), &[]),
    class!("UnicodeDecodeError", Some("UnicodeError"), &["encoding", "object", "start", "end", "reason"]),
    class!("UnicodeEncodeError", Some("UnicodeError"), &["encoding", "object", "start", "end", "reason"]),
    class!("UnicodeTranslateError", Some("UnicodeError"), &["object", "start", "end", "reason"]),
    class!("Warning", Some("Exception"), &[]),
    class!("BytesWarning", Some("Warning"), &[]),
    class!("DeprecationWarning", Some("Warning"), &[]),
    class!("FutureWarning", Some("Warning"), &[]),
    class!("ImportWarning", Some("Warning"), &[]),
    class!("PendingDeprecationWarning", Some("Warning"), &[]),
    class!("ResourceWarning", Some("Warning"), &[]),
    class!("RuntimeWarning", Some("Warning"), &[]),
    class!("SyntaxWarning", Some("Warning"), &[]),
    class!("UnicodeWarning", Some("Warning"), &[]),
    class!("UserWarning", Some("Warning"), &[]),
];

/// The builtin class of that name, if any.
pub fn builtin_class(name: &str) -> Option<&'static BuiltinClass> {
    BUILTIN_CLASSES.iter().find(|c| c.name == name)
}

/// The method resolution order of a builtin class: itself, its bases, `object`.
pub fn builtin_mro(name: &str) -> Vec<&'static str> {
    let mut mro = Vec::new();
    let mut current = builtin_class(name);
    while let Some(class) = current {
        if mro.contains(&class.name) {
            break;
        }
        mro.push(class.name);
        current = class.base.and_then(builtin_class);
    }
    mro
}

/// Whether the builtin class itself (not a base) declares `attribute`.
pub fn declares(name: &str, attribute: &str) -> bool {
    builtin_class(name).is_some_and(|c| c.declares.contains(&attribute))
}

/// The first class in the builtin's MRO declaring `attribute`.
pub fn lookup(name: &str, attribute: &str) -> Option<&'static str> {
    builtin_mro(name).into_iter().find(|c| declares(c, attribute))
}

/// Whether the builtin is an exception class (derives from `BaseException`).
pub fn is_exception(name: &str) -> bool {
    builtin_mro(name).contains(&"BaseException")
}

/// Whether the builtin's instances are unhashable (`__hash__ = None`).
pub fn is_unhashable(name: &str) -> bool {
    builtin_mro(name).into_iter().filter_map(builtin_class).any(|c| c.unhashable)
}

/// Whether `name` is one of the four rich ordering methods.
pub fn is_ordering_method(name: &str) -> bool {
    ORDERING.contains(&name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mros_end_in_object() {
        assert_eq!(builtin_mro("KeyError"), ["KeyError", "LookupError", "Exception", "BaseException", "object"]);
        assert_eq!(builtin_mro("bool"), ["bool", "int", "object"]);
        assert!(builtin_mro("NoSuchClass").is_empty());
    }

    #[test]
    fn lookups_and_facts() {
        assert_eq!(lookup("dict", "get"), Some("dict"));
        assert_eq!(lookup("ValueError", "args"), Some("BaseException"));
        assert_eq!(lookup("list", "__hash__"), Some("object"));
        assert!(is_unhashable("list") && !is_unhashable("tuple"));
        assert!(BUILTIN_NAMES.windows(2).all(|w| w[0].0 < w[1].0), "sorted");
        assert!(is_builtin_name("len") && is_builtin_name("unicode") && !is_builtin_name("self"));
        assert!(is_builtin_in("unicode", PythonVersion::Two) && !is_builtin_in("unicode", PythonVersion::Three));
        assert!(is_builtin_in("ascii", PythonVersion::Three) && !is_builtin_in("ascii", PythonVersion::Two));
        assert!(is_builtin_in("len", PythonVersion::Two) && is_builtin_in("len", PythonVersion::Three));
        assert!(is_builtin_name("WindowsError") && !is_builtin_in("WindowsError", PythonVersion::Three));
        assert!(is_exception("IOError") && !is_exception("dict"));
        assert!(declares("enumerate", "__next__"));
        assert!(is_ordering_method("__ge__") && !is_ordering_method("__eq__"));
    }
}
