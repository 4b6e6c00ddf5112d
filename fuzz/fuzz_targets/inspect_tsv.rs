//! The INSPECT TSV reader and the label checkers of every task.
#![no_main]

use libfuzzer_sys::fuzz_target;
use quarry_probe::dataset::Dataset;
use quarry_probe::task::Task;

fuzz_target!(|data: &[u8]| {
    let dataset = Dataset::parse(data);
    for sample in dataset.samples.iter().take(4) {
        for task in Task::ALL {
            let _ = quarry_probe::labels::label_of(task, &sample.text);
        }
    }
});
