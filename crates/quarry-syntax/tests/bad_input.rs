//! Bad and extreme input: each case gets a clear error or a correct result,
//! never a panic, a stack overflow or a hang.

mod common;

use quarry_syntax::{code_blocks, tokenize, Language, LoadOptions, ParsedFile, SourceFile, SyntaxError, TokenKind};

fn temp_file(name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-bad-input-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn parse_python(text: &str) -> ParsedFile {
    ParsedFile::parse(SourceFile::from_text("input.py", text), Language::Python).unwrap()
}

#[test]
fn empty_file_is_valid() {
    let path = temp_file("empty.py", b"");
    let file = ParsedFile::load(&path, None, &LoadOptions::default()).unwrap();
    assert!(!file.has_errors());
    assert!(code_blocks(&file).all().is_empty());
    assert!(tokenize(file.text(), Language::Python).is_empty());
}

#[test]
fn binary_file_is_refused_with_its_name() {
    let path = temp_file("image.py", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    let err = ParsedFile::load(&path, None, &LoadOptions::default()).err().unwrap();
    assert!(matches!(err, SyntaxError::Binary { offset: 8, .. }), "{err}");
    assert!(err.to_string().contains("image.py"));
}

#[test]
fn invalid_utf8_is_refused_with_the_offset() {
    let path = temp_file("undeclared.py", b"# no declaration\nname = '\xe9'\n");
    let err = ParsedFile::load(&path, None, &LoadOptions::default()).err().unwrap();
    assert!(matches!(err, SyntaxError::InvalidUtf8 { offset: 25, .. }), "{err}");
    assert!(err.to_string().contains("undeclared.py: invalid UTF-8 at byte offset 25"));
}

#[test]
fn declared_latin1_is_decoded_and_spans_point_into_the_decoded_text() {
    let path = temp_file("latin1.py", b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\nx = name\n");
    let file = ParsedFile::load(&path, None, &LoadOptions::default()).unwrap();
    assert_eq!(file.source().encoding(), "iso-8859-1");
    assert_eq!(file.text(), "# -*- coding: latin-1 -*-\nname = '\u{e9}t\u{e9}'\nx = name\n");
    assert!(!file.has_errors());
    let string = tokenize(file.text(), Language::Python).into_iter().find(|t| t.kind == TokenKind::Literal).unwrap();
    let span = string.span(file.text(), file.source().lines());
    assert_eq!((span.start.line, span.start.column, span.end.column), (1, 7, 12));
    assert_eq!(span.text(file.text()), "'\u{e9}t\u{e9}'");
}

#[test]
fn a_declared_encoding_that_does_not_decode_names_the_offset() {
    let path = temp_file("ascii.py", b"# coding: ascii\nname = '\xe9'\n");
    let err = ParsedFile::load(&path, None, &LoadOptions::default()).err().unwrap();
    assert_eq!(err.to_string(), format!("{}: cannot decode as ascii at byte offset 24", path.display()));
}

#[cfg(unix)]
#[test]
fn fifo_device_and_link_cycle_are_refused_without_reading() {
    use std::time::{Duration, Instant};
    let dir = std::env::temp_dir().join(format!("quarry-special-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("pipe.py");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let zero = dir.join("zero.py");
    let _ = std::fs::remove_file(&zero);
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let (a, b) = (dir.join("a.py"), dir.join("b.py"));
    let _ = (std::fs::remove_file(&a), std::fs::remove_file(&b));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    let start = Instant::now();
    if made {
        let err = SourceFile::load(&fifo, &LoadOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), format!("{}: not a regular file (named pipe (FIFO)), skipped", fifo.display()));
    } else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "the FIFO case: mkfifo is not available",
        );
    }
    let err = SourceFile::load(&zero, &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, SyntaxError::NotRegular { kind: "character device", .. }), "{err}");
    let err = SourceFile::load(&a, &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, SyntaxError::Io(_)), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5));
    // A directory walk reports the special entries and keeps the regular ones.
    std::fs::write(dir.join("ok.py"), "x = 1\n").unwrap();
    std::os::unix::fs::symlink(dir.join("ok.py"), dir.join("link_to_ok.py")).unwrap_or(());
    let (files, errors) = quarry_syntax::corpus::source_files(std::slice::from_ref(&dir), Language::Python);
    let names: Vec<_> = files.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["link_to_ok.py", "ok.py"]);
    assert_eq!(errors.len(), if made { 4 } else { 3 }, "{errors:?}");
    assert!(errors.iter().any(|e| e.contains("zero.py: not a regular file (character device)")), "{errors:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_time_budget_stops_a_long_parse() {
    let unit = "def f(a):\n    return [a, (a + 1) * 2, {a: a}]\n";
    let text = unit.repeat(200_000);
    let source = SourceFile::from_text("long.py", text);
    let deadline = quarry_syntax::Deadline::after(std::time::Duration::from_millis(1));
    std::thread::sleep(std::time::Duration::from_millis(2));
    let err = ParsedFile::parse_within(source, Language::Python, &deadline).err().unwrap();
    assert!(err.to_string().contains("long.py: skipped after the per-file time budget of 0.0 s ran out while parsing"));
}

#[test]
fn directory_and_missing_file_and_size_limit() {
    let dir = std::env::temp_dir();
    let err = ParsedFile::load(&dir, Some(Language::Python), &LoadOptions::default()).err().unwrap();
    assert!(matches!(err, SyntaxError::IsDirectory { .. }));
    let err = ParsedFile::load(&dir.join("no-such-file.py"), None, &LoadOptions::default()).err().unwrap();
    assert!(matches!(err, SyntaxError::Io(_)));
    let path = temp_file("big.py", &[b'x'; 100]);
    let err = ParsedFile::load(&path, None, &LoadOptions { max_file_bytes: 10 }).err().unwrap();
    assert!(err.to_string().contains("over the limit of 10 bytes"), "{err}");
}

#[test]
fn bom_is_removed_and_recorded() {
    let path = temp_file("bom.py", b"\xEF\xBB\xBFx = 1\n");
    let file = ParsedFile::load(&path, None, &LoadOptions::default()).unwrap();
    assert!(file.source().had_bom());
    assert_eq!(file.text(), "x = 1\n");
}

#[test]
fn fifty_thousand_nested_parentheses() {
    let depth = 50_000;
    let text = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
    let file = parse_python(&text);
    let _ = file.error_regions();
    let blocks = code_blocks(&file);
    assert_eq!(blocks.all().len(), 1);
    let tokens = tokenize(&text, Language::Python);
    assert_eq!(tokens.len(), 2 * depth + 4);
    let mut dump = Vec::new();
    quarry_syntax::tree_dump::write_tree(&file, &mut dump, &quarry_syntax::Deadline::unlimited()).unwrap();
    assert!(dump.len() > depth);
    // Indentation stops growing at MAX_INDENT_DEPTH: the dump stays linear in the
    // node count (about 100 bytes a line here, not 2 bytes per level).
    let lines = dump.iter().filter(|&&b| b == b'\n').count();
    assert!(dump.len() < lines * 140, "{} bytes in {lines} lines", dump.len());
    let deep_line = String::from_utf8_lossy(&dump).lines().nth(depth / 2).unwrap().to_string();
    assert!(deep_line.contains("[depth "), "{deep_line}");
    // A spent budget stops the dump with the file's time-budget error.
    let mut partial = Vec::new();
    let spent = quarry_syntax::Deadline::after(std::time::Duration::ZERO);
    std::thread::sleep(std::time::Duration::from_millis(2));
    let stopped = quarry_syntax::tree_dump::write_tree(&file, &mut partial, &spent).unwrap_err();
    assert!(stopped.to_string().contains("writing the syntax tree"), "{stopped}");
    assert!(partial.len() < dump.len());
}

fn nested_ifs(depth: usize) -> String {
    let mut text = String::from("def f(x):\n");
    for level in 1..=depth {
        text.push_str(&" ".repeat(level));
        text.push_str("if x:\n");
    }
    text.push_str(&" ".repeat(depth + 1));
    text.push_str("return x\n");
    text
}

#[test]
fn four_hundred_nested_blocks_parse_cleanly() {
    let text = nested_ifs(400);
    let file = parse_python(&text);
    assert!(!file.has_errors());
    let blocks = code_blocks(&file);
    assert_eq!(blocks.all().len(), 1);
    assert_eq!(blocks.all()[0].name, "f");
    assert_eq!(blocks.all()[0].line_count(), 402);
    assert!(common::check_file(&file).is_empty());
}

/// CPython refuses more than 100 indentation levels and tree-sitter's Python
/// scanner gives up between 500 and 1,000: 2,000 levels are a syntax error,
/// reported as such, with every line still in a block and every token lexed.
#[test]
fn two_thousand_nested_blocks_are_a_reported_syntax_error() {
    let text = nested_ifs(2000);
    let file = parse_python(&text);
    assert!(file.has_errors());
    assert!(!file.error_regions().is_empty());
    let blocks = code_blocks(&file);
    assert_eq!(blocks.all().iter().map(|b| b.line_count()).sum::<usize>(), 2003);
    let indents = tokenize(&text, Language::Python).iter().filter(|t| t.kind == TokenKind::Indent).count();
    assert_eq!(indents, 2001);
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn deeply_nested_java_blocks() {
    let text = format!("class A {{ void m() {{ {} int x = 1; {} }} }}", "{".repeat(5000), "}".repeat(5000));
    let file = ParsedFile::parse(SourceFile::from_text("A.java", text), Language::Java).unwrap();
    assert!(!file.has_errors());
    let mut dump = Vec::new();
    quarry_syntax::tree_dump::write_tree(&file, &mut dump, &quarry_syntax::Deadline::unlimited()).unwrap();
}

#[test]
fn mixed_tabs_and_spaces() {
    let text = "class A:\n\tdef m(self):\n\t    return 1\n        def n(self):\n\t\treturn 2\n";
    let file = parse_python(text);
    let names: Vec<String> = code_blocks(&file).all().iter().map(|b| b.name.clone()).collect();
    assert_eq!(names, ["A", "A.m", "A.n"]);
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn file_of_only_comments() {
    let text = "# one\n   # two\n\n#three";
    let file = parse_python(text);
    assert!(!file.has_errors());
    let tokens = tokenize(text, Language::Python);
    assert!(tokens.iter().all(|t| t.kind == TokenKind::Comment));
    assert_eq!(tokens.len(), 3);
    assert_eq!(code_blocks(&file).all().len(), 1);
}

#[test]
fn java_unterminated_string() {
    let text = "class A {\n  String s = \"never closed;\n  int x = 2;\n}\n";
    let file = ParsedFile::parse(SourceFile::from_text("A.java", text), Language::Java).unwrap();
    assert!(file.has_errors());
    assert!(!file.error_regions().is_empty());
    let tokens = tokenize(text, Language::Java);
    let error = tokens.iter().find(|t| t.kind == TokenKind::Error).unwrap();
    assert_eq!(error.text(text), "\"never closed;");
    assert!(tokens.iter().any(|t| t.text(text) == "x"));
    assert!(common::check_file(&file).is_empty());
}

#[test]
fn fifty_megabyte_generated_file() {
    let unit = "class Widget(Base):\n    size = 3\n\n    def grow(self, n):\n        self.size += n  # grow\n        return self.size\n\n";
    let text = unit.repeat(50 * 1024 * 1024 / unit.len() + 1);
    assert!(text.len() >= 50 * 1024 * 1024);
    let path = temp_file("huge.py", text.as_bytes());
    let file = ParsedFile::load(&path, None, &LoadOptions::default()).unwrap();
    assert!(!file.has_errors());
    let blocks = code_blocks(&file);
    assert_eq!(blocks.all().len(), 2 * text.matches("class Widget").count());
    std::fs::remove_file(&path).unwrap();
}
