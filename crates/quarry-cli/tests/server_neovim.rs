//! A real editor on `quarry server`: headless Neovim with a minimal Lua
//! configuration (`tests/nvim/init.lua`) opens a fixture file, attaches the
//! server and writes the diagnostics it received; they must equal
//! `quarry query --format json` on the same project. Skips with a message
//! when `nvim` is not installed (`.ci/run` installs Debian's `neovim`).

mod common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BASE: &str = "class Base:\n    def __init__(self):\n        self.x = 1\n";
const CHILD: &str =
    "import os\nfrom base import Base\n\n\nclass Child(Base):\n    def __init__(self):\n        self.y = 2\n";

#[test]
fn neovim_shows_the_findings_of_the_command_line() {
    if Command::new("nvim").arg("--version").output().is_err() {
        quarry_stdx::skip::skip("the Neovim test of quarry server", "nvim is not installed (apt-get install neovim)");
        return;
    }
    let dir = common::named_project("neovim", &[("base.py", BASE.as_bytes()), ("child.py", CHILD.as_bytes())]);
    let dir = std::fs::canonicalize(dir).unwrap();
    let out = dir.join("diagnostics.txt");
    let config = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/nvim/init.lua");
    let status = Command::new("nvim")
        .args(["--headless", "--clean", "-u"])
        .arg(&config)
        .env("QUARRY_BIN", env!("CARGO_BIN_EXE_quarry"))
        .env("QUARRY_ROOT", &dir)
        .env("QUARRY_FILE", dir.join("child.py"))
        .env("QUARRY_OUT", &out)
        .current_dir(&dir)
        .output()
        .unwrap();
    let shown = std::fs::read_to_string(&out)
        .unwrap_or_else(|_| panic!("Neovim wrote no diagnostics: {}", String::from_utf8_lossy(&status.stderr)));
    println!("Neovim received:\n{shown}");
    let cli = Command::new(env!("CARGO_BIN_EXE_quarry"))
        .args(["query", "--format", "json", "--quiet", "."])
        .current_dir(&dir)
        .output()
        .unwrap();
    let records: Vec<Value> = serde_json::from_slice(&cli.stdout).unwrap();
    let mut expected: Vec<String> = records
        .iter()
        .filter(|r| r["file"].as_str().unwrap().ends_with("child.py"))
        .map(|r| {
            let span = &r["answer_spans"][0];
            format!(
                "{}\t{}\t{}\t{}",
                r["query_id"].as_str().unwrap(),
                span["start_line"],
                span["start_column"],
                r["message"].as_str().unwrap()
            )
        })
        .collect();
    expected.sort();
    assert!(!expected.is_empty());
    assert_eq!(shown.lines().collect::<Vec<_>>(), expected);
}
