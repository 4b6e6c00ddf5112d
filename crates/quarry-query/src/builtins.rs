//! Facts about Python's builtin classes, for class hierarchies whose bases
//! are builtins: their bases, the notable attributes they define (special
//! methods such as `__eq__`, `__hash__`, `__iter__`, `__next__`, `__call__`
//! and the public methods a subclass may clash with), and whether they are
//! exceptions.

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
        assert!(is_exception("IOError") && !is_exception("dict"));
        assert!(declares("enumerate", "__next__"));
        assert!(is_ordering_method("__ge__") && !is_ordering_method("__eq__"));
    }
}
