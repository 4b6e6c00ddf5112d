//! Java: decoding, parsing, error regions, the tree dump and tokens.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_syntax::{tokenize, Language, ParsedFile, SourceFile};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = SourceFile::from_bytes("Fuzz.java", data.to_vec()) else { return };
    let _ = tokenize(source.text(), Language::Java);
    let Ok(file) = ParsedFile::parse(source, Language::Java) else { return };
    let _ = file.error_regions();
    let mut dump = Vec::new();
    quarry_syntax::tree_dump::write_tree(&file, &mut dump, &quarry_syntax::Deadline::unlimited()).unwrap();
});
