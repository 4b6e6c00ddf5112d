//! An incremental reparse ([`ParsedFile::reparse_within`]) gives the tree a
//! fresh parse gives, node for node with positions, over a series of edits
//! (inserts, deletions, syntax errors made and fixed, line ends changed,
//! non-ASCII text).

use quarry_syntax::walk::Preorder;
use quarry_syntax::{Deadline, Language, ParsedFile, SourceFile};

/// A node's kind, byte range, and start and end points.
type NodeFacts = (String, usize, usize, (usize, usize), (usize, usize));

/// Every node's facts, in order.
fn nodes(file: &ParsedFile) -> Vec<NodeFacts> {
    Preorder::new(file.root())
        .map(|n| {
            let (s, e) = (n.start_position(), n.end_position());
            (n.kind().to_string(), n.start_byte(), n.end_byte(), (s.row, s.column), (e.row, e.column))
        })
        .collect()
}

#[test]
fn reparsing_edited_text_equals_parsing_it_afresh() {
    let versions = [
        "import os\n\nclass A:\n    def f(self, x):\n        return x + 1\n",
        "import os\n\nclass A:\n    def f(self, x):\n        return x + 1\nedited_1 = 1\n",
        "import os\n\nclass A:\n    def f(self, x, y):\n        return x + y\nedited_1 = 1\n",
        "import os\n\nclass A:\n    def f(self, x, y:\n        return x + y\nedited_1 = 1\n",
        "import os\n\nclass A:\n    def f(self, x, y):\n        return 'é' + y\nedited_1 = 1\n",
        "import os\r\n\r\nclass A:\r\n    def f(self, x, y):\r\n        return 'é' + y\r\nedited_1 = 1\r\n",
        "import os\r\rclass A:\r    def f(self, x, y):\r        return 'è' + y\redited_1 = 1\r",
        "class A:\n    pass\n",
        "",
        "x = 1\n",
    ];
    let deadline = Deadline::unlimited();
    let mut previous = ParsedFile::parse(SourceFile::from_text("m.py", versions[0]), Language::Python).unwrap();
    for text in &versions[1..] {
        let fresh = ParsedFile::parse(SourceFile::from_text("m.py", *text), Language::Python).unwrap();
        let reparsed = ParsedFile::reparse_within(SourceFile::from_text("m.py", *text), &previous, &deadline).unwrap();
        assert_eq!(reparsed.text(), *text);
        assert_eq!(nodes(&reparsed), nodes(&fresh), "after the edit to {text:?}");
        previous = reparsed;
    }
}
