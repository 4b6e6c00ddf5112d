//! CS1QA's JSON Lines readers (annotated rows, retrieval questions, retrieved lists; plain and
//! gzip) and what runs on loaded rows: alternative spans, keyword slots and augmentation.
#![no_main]

use std::io::Write as _;

use libfuzzer_sys::fuzz_target;
use quarry_data::cs1qa::{self, augment};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("quarry-fuzz-cs1qa-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let plain = dir.join("rows.jsonl");
    std::fs::write(&plain, data).unwrap();
    let gz = dir.join("rows.jsonl.gz");
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(data).unwrap();
    std::fs::write(&gz, encoder.finish().unwrap()).unwrap();
    for path in [&plain, &gz] {
        if let Ok(rows) = cs1qa::read_rows(path) {
            let rows = rows.into_records();
            for row in &rows {
                row.check().unwrap();
                let _ = (row.input_text(), row.code_lines());
                let _ = augment::Keywords::of(&row.code);
            }
            assert_eq!(cs1qa::alternative_spans(&rows).len(), rows.len());
            let _ = cs1qa::rows::question_count(&rows);
            let _ = augment::augment(&rows, rows.len().min(8), 7);
        }
        let _ = cs1qa::read_questions(path);
        let _ = cs1qa::read_retrieved(path);
    }
});
