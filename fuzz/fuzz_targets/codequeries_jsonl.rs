//! The CodeQueries JSON Lines reader (plain and gzip) on examples and
//! relevance rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_data::jsonl::parse_records;
use quarry_data::codequeries::schema::{Example, RelevanceRow};

fuzz_target!(|data: &[u8]| {
    let path = std::path::Path::new("fuzz.jsonl");
    let _ = parse_records::<Example>(data, path);
    let _ = parse_records::<RelevanceRow>(data, path);
    let gz = std::io::BufReader::new(flate2::read::MultiGzDecoder::new(data));
    let _ = parse_records::<Example>(gz, path);
});
