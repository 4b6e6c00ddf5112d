//! Q41 "'import *' may pollute namespace": `from m import *` binds every
//! public name of `m` unless `m` restricts them with `__all__`; without it,
//! helpers and `m`'s own imports leak into the importing module.
//!
//! ```python
//! from helpers import *       # answer: the import statement
//! ```
//!
//! CodeQL resolves the imported module and checks that it is found and
//! does not define `__all__` (builtin modules, having no source, are
//! exporters with a fixed set of names). A module of the project is looked
//! at: its summary says whether it assigns `__all__`. Other modules are
//! judged by name alone: standard-library modules
//! known to define `__all__`, and builtin modules, are safe; common
//! third-party packages (`numpy`, `django`, `PyQt4`, ...) are taken to be
//! unresolvable, as they usually are where code is analysed, and give no
//! result; any other module (project modules, relative imports, standard
//! modules without `__all__` such as `ctypes` or `Tkinter`) is taken not to
//! define it. The module CodeQL names in its message lives in another file,
//! so there is no supporting fact. Negative form: `from m import *` of
//! modules known to define `__all__` or to be builtin.

use crate::syntax::{Field, Kind, SyntaxNode};
use tree_sitter::Node;

use crate::ast::named_children;

use crate::context::FileContext;
use crate::finding::{Polarity, RawFinding};
use crate::import_statements::is_common_third_party;
use crate::query::{Hops, Query, QueryMeta};

/// The query.
pub static QUERY: Query = Query {
    meta: QueryMeta {
        id: "polluting-import",
        name: "'import *' may pollute namespace",
        index: 41,
        hops: Hops::Single,
        description: "Importing a module using 'import *' may unintentionally pollute the global namespace if the module does not define `__all__`",
        codeql: "python/ql/src/Imports/UnintentionalImport.ql",
    },
    find,
};

/// Modules that define `__all__` (in Python 2 and 3) or are builtin.
const RESTRICTED: &[&str] = &[
    // Builtin (C) modules.
    "array",
    "binascii",
    "cmath",
    "datetime",
    "errno",
    "gc",
    "imp",
    "itertools",
    "marshal",
    "math",
    "operator",
    "select",
    "signal",
    "sys",
    "time",
    "zlib",
    "_socket",
    "cPickle",
    "cStringIO",
    "thread",
    // Standard-library modules with `__all__`.
    "base64",
    "bisect",
    "calendar",
    "codecs",
    "collections",
    "copy",
    "csv",
    "decimal",
    "difflib",
    "fnmatch",
    "ftplib",
    "functools",
    "getopt",
    "glob",
    "gzip",
    "heapq",
    "io",
    "json",
    "locale",
    "logging",
    "ntpath",
    "numbers",
    "optparse",
    "os",
    "os.path",
    "pickle",
    "platform",
    "posixpath",
    "pprint",
    "queue",
    "Queue",
    "random",
    "re",
    "shlex",
    "shutil",
    "socket",
    "StringIO",
    "struct",
    "subprocess",
    "tempfile",
    "textwrap",
    "threading",
    "traceback",
    "unittest",
    "urllib",
    "urllib2",
    "uuid",
    "warnings",
    "weakref",
    "xmlrpclib",
    "zipfile",
    "typing",
    "enum",
    "pathlib",
    "abc",
    "contextlib",
    "dataclasses",
    "turtle",
    "tkinter",
    "genericpath",
    "doctest",
    "token",
    "opcode",
    "collections.abc",
    "xml.dom.minicompat",
    "xml.etree.ElementTree",
    // More builtin modules.
    "posix",
    "nt",
    "termios",
    "pyexpat",
    "winreg",
    "_winreg",
];

fn find(cx: &FileContext<'_>, polarity: Polarity) -> Vec<RawFinding> {
    let mut findings = Vec::new();
    for &statement in cx.nodes(Kind::ImportFromStatement) {
        if !named_children(statement).iter().any(|c| c.py_kind() == Kind::WildcardImport) {
            continue;
        }
        let Some(module) = statement.field(Field::ModuleName) else { continue };
        let name = module_name(cx, module);
        let restricted = match defines_all(cx, &name) {
            Some(defines) => defines,
            None if module.py_kind() == Kind::DottedName && is_common_third_party(&name) => continue,
            None => module.py_kind() == Kind::DottedName && RESTRICTED.contains(&name.as_str()),
        };
        let message = match polarity {
            Polarity::Positive if !restricted => {
                format!(
                    "Import pollutes the enclosing namespace, as the imported module {name} does not define '__all__'."
                )
            }
            Polarity::Negative if restricted => {
                format!("The imported module {name} defines '__all__' or is builtin.")
            }
            _ => continue,
        };
        findings.push(RawFinding::answer(cx.location(statement), message));
    }
    findings
}

/// Whether the imported module, when it is a module of the project, assigns
/// `__all__`; `None` for a module outside the project.
fn defines_all(cx: &FileContext<'_>, name: &str) -> Option<bool> {
    let view = cx.project()?;
    let module = view.project.module_target(view.module, name)?;
    let summary = view.project.summary(module)?;
    // CodeQL: the module binds `__all__` at import time, by any statement.
    Some(
        summary.names.contains_key("__all__")
            || !matches!(summary.all, Some(crate::import_statements::AllNames::Absent) | None),
    )
}

fn module_name(cx: &FileContext<'_>, module: Node<'_>) -> String {
    cx.text(module).split_whitespace().collect()
}
