//! Code blocks on the paper's examples and on the placement rules for nested
//! and conditional definitions.

mod common;

use quarry_syntax::{code_blocks, BlockKind, Language, ParsedFile, SourceFile};

fn parse(text: &str) -> ParsedFile {
    ParsedFile::parse(SourceFile::from_text("example.py", text), Language::Python).unwrap()
}

fn summary(file: &ParsedFile) -> Vec<(BlockKind, String, String)> {
    code_blocks(file)
        .all()
        .iter()
        .map(|b| {
            let runs: Vec<String> = b.lines.iter().map(|r| format!("{}-{}", r.start, r.end)).collect();
            (b.kind, b.name.clone(), runs.join(","))
        })
        .collect()
}

/// Figure 1 of the CodeQueries paper (conflicting attributes), with the elided
/// parameters filled in so that it parses.
const FIGURE_1: &str = "\
class TCPServiceServer:
    def __init__(self, service, port): ...

    def serve(self, address): ...

    # Supporting Fact 1
    def acceptConnection(self, conn): ...

    def handleConnection(self, conn): ...

class ThreadingMixin:
    # Supporting Fact 2
    def acceptConnection(self, conn): ...

# Answer Span
class ThreadedTCPServiceServer(
    ThreadingMixin, TCPServiceServer):
    pass
";

#[test]
fn figure_1_blocks() {
    use BlockKind::*;
    let file = parse(FIGURE_1);
    assert!(!file.has_errors());
    let got = summary(&file);
    let expected = vec![
        (ClassLevel, "TCPServiceServer", "0-0,2-2,4-5,7-7"),
        (ClassMethod, "TCPServiceServer.__init__", "1-1"),
        (ClassMethod, "TCPServiceServer.serve", "3-3"),
        (ClassMethod, "TCPServiceServer.acceptConnection", "6-6"),
        (ClassMethod, "TCPServiceServer.handleConnection", "8-8"),
        (ModuleLevel, "", "9-9,13-14,18-18"),
        (ClassLevel, "ThreadingMixin", "10-11"),
        (ClassMethod, "ThreadingMixin.acceptConnection", "12-12"),
        (ClassLevel, "ThreadedTCPServiceServer", "15-17"),
    ];
    let expected: Vec<(BlockKind, String, String)> =
        expected.into_iter().map(|(k, n, l)| (k, n.to_string(), l.to_string())).collect();
    assert_eq!(got, expected);
    let blocks = code_blocks(&file);
    let answer = blocks.all().iter().find(|b| b.name == "ThreadedTCPServiceServer").unwrap();
    assert_eq!(answer.header(), "class ThreadedTCPServiceServer(\n    ThreadingMixin, TCPServiceServer):");
    assert_eq!(answer.metadata(), "root.ThreadedTCPServiceServer");
    assert!(common::check_file(&file).is_empty());
}

/// Figure 8 of the CodeQueries paper (`__eq__` not overridden when adding attributes).
const FIGURE_8: &str = "\
class Type(object):
    def __eq__(self, other):
        return self.__class__ == other.__class__

    def from_str(self, s):
        raise NotImplementedError

class Choice(Type):
    def __init__(self, *options):
        self._options = options


    def from_str(self, s):
        if s in self._options:
            return s
        raise ValueError(\"Unexpected value %s: must be one of %s\" %
                           (s, \", \".join(self._options)))
";

#[test]
fn figure_8_blocks_and_contents() {
    let file = parse(FIGURE_8);
    let blocks = code_blocks(&file);
    let names: Vec<&str> = blocks.all().iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Type", "Type.__eq__", "Type.from_str", "Choice", "Choice.__init__", "Choice.from_str"]);
    let init = &blocks.all()[4];
    assert_eq!(init.content(&file), "    def __init__(self, *options):\n        self._options = options\n");
    assert_eq!(init.header(), "class Choice(Type):");
    // Class-level block of Choice: the header plus the blank lines between its methods.
    assert_eq!(blocks.all()[3].content(&file), "class Choice(Type):\n\n\n");
    // The line with the attribute store belongs to the __init__ block.
    assert_eq!(blocks.block_of_line(9).unwrap().name, "Choice.__init__");
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn nested_and_conditional_definitions() {
    use BlockKind::*;
    let text = "\
import os

@decorator
def top(a):
    def inner():
        class Local: pass
        return a
    return inner

class Outer(Base):
    attr = 1
    class Inner:
        def m(self):
            pass
    if os.name == 'nt':
        def windows_only(self):
            pass
    else:
        def posix(self): pass

try:
    def in_try():
        pass
except ImportError:
    in_try = None
if True: def same_line(): pass
";
    let file = parse(text);
    let got = summary(&file);
    let expected = vec![
        (ModuleLevel, "", "0-1,8-8,19-20,23-26"),
        (ModuleFunction, "top", "2-7"),
        (ClassLevel, "Outer", "9-14,17-17"),
        (ClassMethod, "Outer.windows_only", "15-16"),
        (ClassMethod, "Outer.posix", "18-18"),
        (ModuleFunction, "in_try", "21-22"),
    ];
    let expected: Vec<(BlockKind, String, String)> =
        expected.into_iter().map(|(k, n, l)| (k, n.to_string(), l.to_string())).collect();
    assert_eq!(got, expected);
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn a_blocks_extent_holds_its_lines_and_other_blocks_lines_only() {
    let interleaved =
        "import os\n\ndef f(): pass\nx = 1\n\nclass A:\n    y = 2\n    def m(self):\n        pass\n\n    z = 3\nf()\n";
    for text in [FIGURE_1, FIGURE_8, interleaved] {
        let file = parse(text);
        let blocks = code_blocks(&file);
        for block in blocks.all() {
            let extent = block.extent();
            assert_eq!((extent.start, extent.end), (block.lines[0].start, block.lines[block.lines.len() - 1].end));
            for line in extent.start..=extent.end {
                let holder = blocks.block_of_line(line);
                assert!(holder.is_some(), "line {line} in the extent of {} is in no block", block.metadata());
                assert_eq!(holder.is_some_and(|h| h.index == block.index), block.contains_line(line));
            }
        }
    }
    let file = parse(interleaved);
    let module = code_blocks(&file).all()[0].clone();
    assert_eq!(module.lines.len(), 3, "cut by `f` and by `A`");
    assert_eq!((module.extent().start, module.extent().end), (0, 12));
}

#[test]
fn files_without_code_have_no_blocks() {
    for text in ["", "\n\n", "# only a comment\n# and another\n"] {
        let file = parse(text);
        let blocks = code_blocks(&file);
        if text.contains('#') {
            assert_eq!(blocks.all().len(), 1, "comments belong to the module block");
        } else {
            assert!(blocks.all().is_empty());
        }
    }
}

#[test]
fn syntax_errors_keep_the_well_formed_blocks() {
    let text =
        "def good(x):\n    return x\n\ndef broken(:\n    pass\n\nclass Fine:\n    def m(self):\n        return 1\n";
    let file = parse(text);
    assert!(file.has_errors());
    assert!(!file.error_regions().is_empty());
    let names: Vec<String> = code_blocks(&file).all().iter().map(|b| b.name.clone()).collect();
    assert!(names.contains(&"good".to_string()), "{names:?}");
    assert!(names.contains(&"Fine.m".to_string()), "{names:?}");
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn crlf_and_bom_files_keep_exact_text() {
    let text = "\u{feff}class A:\r\n    def m(self):\r\n        return 'é'\r\n";
    let file = ParsedFile::parse(SourceFile::from_text("crlf.py", text), Language::Python).unwrap();
    assert!(file.source().had_bom());
    let blocks = code_blocks(&file);
    assert_eq!(blocks.all()[1].content(&file), "    def m(self):\r\n        return 'é'\r\n");
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn lone_carriage_return_files_parse_as_lines() {
    let text = "def f():\r    return 1\rx = f()\r";
    let file = parse(text);
    assert!(!file.has_errors(), "{:?}", file.error_regions());
    let got = summary(&file);
    assert_eq!(got[0], (BlockKind::ModuleFunction, "f".to_string(), "0-1".to_string()));
    assert!(common::check_file(&file).is_empty());
}
