//! Control tasks (Hewitt and Liang, 2019): the same probe trained on labels
//! that are a random function of the input's type. A sample's type is its
//! text (a token for KTX and IDN, a whole method otherwise); each type gets
//! one label drawn from the training label distribution, identically in every
//! split. Selectivity is task accuracy minus control accuracy: a probe that
//! memorises types scores well on both, one that reads the property only on
//! the task.

use quarry_stdx::rng::stable_hash;

use crate::seeding::seeded;

/// Control labels for samples given by their type text and their true class
/// (used only for the class distribution of the training split).
pub fn control_labels(types: &[&str], train_classes: &[usize], classes: usize, seed: u64) -> Vec<usize> {
    let mut counts = vec![0usize; classes.max(1)];
    for &c in train_classes {
        if c < counts.len() {
            counts[c] += 1;
        }
    }
    let total: usize = counts.iter().sum();
    types
        .iter()
        .map(|t| {
            let mut rng = seeded(stable_hash(t) ^ seed);
            if total == 0 {
                return rng.below(counts.len());
            }
            let mut pick = rng.below(total);
            for (class, &count) in counts.iter().enumerate() {
                if pick < count {
                    return class;
                }
                pick -= count;
            }
            counts.len() - 1
        })
        .collect()
}

/// Selectivity: task accuracy minus control-task accuracy.
pub fn selectivity(task_accuracy: f64, control_accuracy: f64) -> f64 {
    task_accuracy - control_accuracy
}
