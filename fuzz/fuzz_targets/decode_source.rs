//! Source decoding (BOM, PEP 263 declarations, every codec): an error or
//! text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_syntax::encoding::decode_source;

fuzz_target!(|data: &[u8]| {
    if let Ok(decoded) = decode_source(std::path::Path::new("fuzz.py"), data.to_vec()) {
        assert!(!decoded.text.starts_with('\u{feff}') || !decoded.had_bom);
    }
});
