//! Source decoding (BOM, PEP 263 declarations, every codec): an error or
//! text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_syntax::encoding::decode_source;

fuzz_target!(|data: &[u8]| {
    if let Ok(decoded) = decode_source(std::path::Path::new("fuzz.py"), data.to_vec()) {
        // One BOM is removed; a second one is text (U+FEFF), as CPython reads it.
        assert_eq!(decoded.had_bom, data.starts_with(b"\xEF\xBB\xBF"));
    }
});
