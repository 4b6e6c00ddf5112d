//! CodeQA's parallel files (`.code`, `.code.original`, `.question`, `.answer`) through both
//! readers, and stored parses. Input: the four files' bytes separated by `0xFF` (a byte never
//! in UTF-8), then the stored-parses JSON Lines. Whatever loads must survive a write and read
//! back unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_data::codeqa::{files, parallel, StoredParses};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("quarry-fuzz-codeqa-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut parts = data.splitn(5, |&b| b == 0xFF);
    for suffix in ["code", "code.original", "question", "answer"] {
        // A missing part is a missing file: the code files are optional to one reader.
        if let Some(bytes) = parts.next() {
            std::fs::write(files::split_path(&dir, "dev", suffix), bytes).unwrap();
        }
    }
    if let Ok(split) = files::read_split(&dir, "dev") {
        assert_eq!(split.has_code, dir.join("dev.code").exists());
    }
    let prefix = dir.join("dev");
    for (answers, original) in [(false, false), (true, true)] {
        if let Ok(examples) = parallel::read_split(&prefix, answers, original) {
            let out = dir.join("out");
            parallel::write_split(&out, &examples).unwrap();
            assert_eq!(parallel::read_split(&out, answers, original).unwrap(), examples);
        }
    }
    let docs = dir.join("docs.jsonl");
    std::fs::write(&docs, parts.next().unwrap_or_default()).unwrap();
    let _ = StoredParses::read(&docs);
});
