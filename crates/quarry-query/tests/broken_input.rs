//! Every query must run without panicking on files with syntax errors,
//! truncated statements and unusual nesting, in both polarities.

use quarry_query::{all_queries, run_query, FileContext, Polarity};
use quarry_syntax::{Language, ParsedFile, SourceFile};

const SNIPPETS: &[&str] = &[
    "",
    "if",
    "for x in",
    "raise",
    "raise ,",
    "assert",
    "import",
    "from . import",
    "from import *",
    "class C(:\n    def f(self\n        super(",
    "x = [\"a\" \"b\",",
    "if x < 0:\n    raise\nif x >=",
    "while True:\n    for i in i:\n        for i in",
    "self.assertTrue(a ==",
    "def __getslice__(",
    "1 == 1 ==",
    "x if else y",
    "not not not (",
    "raise NotImplemented(",
    "for a, (b, *c) in d:\n    for c in a:\n        pass\n    c\nelse:\n    pass",
    "try:\n    import md5\nexcept ImportError, e:\n    import sha",
    "((((((((((((((((((((((((((((((((((((((((x))))))))))))))))))))))))))))))))))))))))",
];

#[test]
fn queries_survive_broken_input() {
    for snippet in SNIPPETS {
        let source = SourceFile::from_text("broken.py", *snippet);
        let file = ParsedFile::parse(source, Language::Python).expect("tree-sitter parses any text");
        let context = FileContext::new(&file);
        for query in all_queries() {
            run_query(&context, query, Polarity::Positive);
            run_query(&context, query, Polarity::Negative);
        }
    }
}

#[test]
fn queries_survive_deep_nesting() {
    let mut text = String::from("x = ");
    text.push_str(&"\"a\" + ".repeat(5000));
    text.push_str("\"b\"\nitems = [x, \"c\" \"d\", ");
    text.push_str(&"\"e\" + ".repeat(5000));
    text.push_str("\"f\"]\nif ");
    text.push_str(&"not ".repeat(3000));
    text.push_str("x < 0:\n    pass\n");
    let file = ParsedFile::parse(SourceFile::from_text("deep.py", text), Language::Python).expect("parses");
    let context = FileContext::new(&file);
    for query in all_queries() {
        run_query(&context, query, Polarity::Positive);
        run_query(&context, query, Polarity::Negative);
    }
}
