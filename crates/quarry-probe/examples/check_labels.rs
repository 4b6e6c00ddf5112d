//! Recomputes the labels of an INSPECT dataset file and compares them with the released
//! ones, from Rust: what `quarry inspect label --task T --data FILE` prints.
//!
//! `cargo run -p quarry-probe --example check_labels -- TASK FILE` (e.g. `LEN data/inspect/LEN_ORIG_1k.txt`)

use quarry_probe::{check_labels, Dataset, Task};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [task, file] = args.as_slice() else {
        eprintln!("usage: check_labels TASK FILE");
        std::process::exit(2);
    };
    let task: Task = task.parse()?;
    let dataset = Dataset::read(std::path::Path::new(file))?;
    let check = check_labels(task, &dataset)?;
    print!("{}", check.to_text(file, &dataset));
    Ok(())
}
