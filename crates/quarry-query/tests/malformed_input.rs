//! Every query, positive and negative, on broken, truncated, deeply nested
//! and large inputs: results or nothing, never a panic, a stack overflow or
//! a hang; and what it reports is well formed (answers inside the file, the
//! polarity asked for, a message) and the same on a second run.

use quarry_query::{all_queries, run_query, FileContext, Polarity};
use quarry_syntax::{Language, ParsedFile, SourceFile};

/// Runs every query in both polarities on `text`, checks each finding, and returns
/// how many there were.
fn run_all(text: &str) -> usize {
    let file = ParsedFile::parse(SourceFile::from_text("input.py", text), Language::Python)
        .expect("tree-sitter parses any text");
    let context = FileContext::new(&file);
    let mut count = 0;
    for query in all_queries() {
        for polarity in [Polarity::Positive, Polarity::Negative] {
            let findings = run_query(&context, query, polarity);
            for finding in &findings {
                let id = query.meta.id;
                assert_eq!(finding.polarity, polarity, "{id} on {text:?}");
                assert!(!finding.answers.is_empty() && !finding.message.is_empty(), "{id} on {text:?}");
                for span in finding.answers.iter().chain(&finding.facts) {
                    assert!(span.start_byte <= span.end_byte && span.end_byte <= text.len(), "{id}: {span:?}");
                }
            }
            count += findings.len();
        }
    }
    count
}

/// [`run_all`] twice: a query's results do not depend on anything but the text.
fn run_all_twice(text: &str) -> usize {
    let count = run_all(text);
    assert_eq!(run_all(text), count, "a second run differs on {text:?}");
    count
}

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
fn queries_survive_broken_snippets() {
    assert_eq!(run_all_twice(""), 0, "an empty file has nothing to report");
    for snippet in SNIPPETS {
        run_all_twice(snippet);
    }
}

#[test]
fn queries_survive_deep_expression_nesting() {
    let mut text = String::from("x = ");
    text.push_str(&"\"a\" + ".repeat(5000));
    text.push_str("\"b\"\nitems = [x, \"c\" \"d\", ");
    text.push_str(&"\"e\" + ".repeat(5000));
    text.push_str("\"f\"]\nif ");
    text.push_str(&"not ".repeat(3000));
    text.push_str("x < 0:\n    pass\n");
    // The implicit concatenation in a list is reported however deep the file is.
    assert!(run_all(&text) > 0);
}

#[test]
fn broken_and_truncated_code() {
    let cases = [
        "",
        "# only a comment\n",
        "def f(:\n    return\n",
        "def f(x=[]):\n    x.append(\n",
        "for in range(3):\n    pass\n",
        "while True\n    x = 1\n",
        "try:\n    pass\n",
        "try:\nexcept:\n    pass\nfinally:\n",
        "class C(\n    def __eq__(self):\n        raise ValueError\n",
        "if x:\nelif:\nelse:\n    del\n",
        "x = = 1\nx = 2\n",
        "def g():\n    yield next(\n",
        "with open(p) as:\n    pass\n",
        "global\nnonlocal x\n",
        "locals()[] = 1\n",
        "'example.com' in\n",
        "import tempfile as\ntempfile.mktemp(\n",
        "def f():\n    return\n    )\n",
        "match x:\n    case _:\n        return\n    case 1:\n        pass\nafter()\n",
        "async def f():\n    async for x in y:\n        await z\n    del q\n",
        "lambda: (yield)\n",
        "def f(*, a, **k):\n    a, *b = k\n    del a\n",
        "\u{feff}x = 1\n\u{0}\n",
        "def old(x):\n    print x\n    exec code in ns\n    try:\n        y = `x`\n    except E, e:\n        raise E, 'm'\n    return x <> 1\n    print >>f, x\n",
    ];
    for case in cases {
        run_all_twice(case);
    }
}

#[test]
fn deeply_nested_code() {
    let mut text = String::from("def f(x):\n");
    for depth in 1..120 {
        text.push_str(&"    ".repeat(depth));
        text.push_str(&format!("if x > {depth}:\n"));
    }
    text.push_str(&"    ".repeat(120));
    text.push_str("return x\n");
    text.push_str("    y = 1\n");
    run_all(&text);
    let parens = format!("x = {}1{}\n", "(".repeat(1000), ")".repeat(1000));
    run_all(&parens);
}

#[test]
fn large_straight_line_scopes_stay_fast() {
    let mut text = String::new();
    for i in 0..4000 {
        text.push_str(&format!("v{i} = {i}\n"));
    }
    text.push_str("def f():\n");
    for i in 0..3000 {
        text.push_str(&format!("    w{i} = {i}\n    w{i} = w{i} + 1\n"));
    }
    let started = std::time::Instant::now();
    assert!(run_all(&text) > 0);
    assert!(started.elapsed().as_secs() < 60, "took {:?}", started.elapsed());
}
