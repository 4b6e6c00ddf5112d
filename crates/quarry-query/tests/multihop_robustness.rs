//! Every query runs, in both polarities, on hostile or unusual inputs for
//! the class, call and import analyses — cyclic and self-referencing bases,
//! inconsistent hierarchies, very deep and very wide inheritance, syntax
//! errors, empty files — without panicking and in bounded time.

use std::time::{Duration, Instant};

use quarry_query::{all_queries, run_query, FileContext, Polarity};
use quarry_syntax::{Language, ParsedFile, SourceFile};

fn run_all(name: &str, text: &str) {
    let file = ParsedFile::parse(SourceFile::from_text(format!("{name}.py"), text), Language::Python)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let context = FileContext::new(&file);
    let started = Instant::now();
    for query in all_queries() {
        let query_started = Instant::now();
        for polarity in [Polarity::Positive, Polarity::Negative] {
            let _ = run_query(&context, query, polarity);
        }
        let elapsed = query_started.elapsed();
        if elapsed > Duration::from_millis(200) {
            eprintln!("{name}: {} took {elapsed:?}", query.meta.id);
        }
    }
    assert!(started.elapsed() < Duration::from_secs(20), "{name}: too slow ({:?})", started.elapsed());
}

#[test]
fn cyclic_self_referencing_and_inconsistent_hierarchies() {
    run_all("cycle", "class A(B):\n    def f(self): pass\nclass B(A):\n    def f(self, x): pass\nclass A(B): pass\n");
    run_all("self", "class A(A):\n    def __init__(self): super().__init__()\n");
    run_all("inconsistent", "class A: pass\nclass B(A): pass\nclass C(A, B):\n    def __eq__(s, o): return s is o\n");
    run_all("super-chain", "class A:\n    def __init__(self):\n        s = super(A, self)\n        s.__init__()\n        A.__init__(self)\n");
}

#[test]
fn deep_and_wide_hierarchies() {
    let mut deep = String::from("class C0(object):\n    def __init__(self):\n        self.x = 1\n    def __eq__(self, o):\n        return self.x == o.x\n");
    for i in 1..1000 {
        deep.push_str(&format!(
            "class C{i}(C{}):\n    def __init__(self):\n        C{}.__init__(self)\n        self.a{i} = {i}\n",
            i - 1,
            i - 1
        ));
    }
    run_all("deep", &deep);
    let mut wide = String::new();
    for i in 0..600 {
        wide.push_str(&format!("class B{i}(object):\n    def m(self): return {i}\n"));
    }
    let bases: Vec<String> = (0..600).map(|i| format!("B{i}")).collect();
    wide.push_str(&format!("class W({}):\n    pass\nW()\n", bases.join(", ")));
    run_all("wide", &wide);
}

#[test]
fn broken_and_empty_files() {
    run_all("empty", "");
    run_all("broken", "class A(:\n    def __init__(self\n        self.x = \nimport\nfrom . import (a,\n__all__ = [\n");
    run_all("odd", "import a.b.c as d, e\nfrom .. import *\n__all__ += ('e',)\n__all__.extend(x)\nd()()\n(lambda: 1)()\nNotImplemented()\n'x' is 'y'\n");
}
