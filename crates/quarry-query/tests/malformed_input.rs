//! Every query, positive and negative, on broken, truncated, deeply nested
//! and large inputs: results or nothing, never a panic, a stack overflow or
//! a hang.

use quarry_query::{all_queries, run_query, FileContext, Polarity};
use quarry_syntax::{Language, ParsedFile, SourceFile};

fn run_all(text: &str) -> usize {
    let file = ParsedFile::parse(SourceFile::from_text("input.py", text), Language::Python).unwrap();
    let context = FileContext::new(&file);
    let mut count = 0;
    for query in all_queries() {
        for polarity in [Polarity::Positive, Polarity::Negative] {
            count += run_query(&context, query, polarity).len();
        }
    }
    count
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
        run_all(case);
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
