//! Building INSPECT task datasets from collected methods: labels or
//! mutations per task, balanced classes, a 60/20/20 split per class, and a
//! preference for shorter methods.

use std::collections::{BTreeMap, HashMap};

use quarry_stdx::rng::SplitMix64;
use serde::Serialize;

use crate::corpus::{Corpus, IdentifierRole, Method};
use crate::dataset::{escape_backslashes, Sample, Split};
use crate::error::Result;
use crate::java::code_tokens;
use crate::ktx::KTX_TOKENS;
use crate::labels::{label_of_with, NptLabels};
use crate::mutate;
use crate::seeding::seeded;
use crate::task::Task;

/// Settings of dataset generation.
#[derive(Debug, Clone, Copy)]
pub struct GenerateConfig {
    /// Total samples wanted (split equally over the classes).
    pub size: usize,
    /// Seed of every random choice.
    pub seed: u64,
    /// NPT labels: the paper's bins or exact NPath values.
    pub npt_labels: NptLabels,
}

/// A class that the corpus could not fill.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Shortfall {
    /// The class.
    pub label: String,
    /// Samples wanted.
    pub wanted: usize,
    /// Samples found.
    pub found: usize,
}

/// A generated dataset.
#[derive(Debug, Clone)]
pub struct Generated {
    /// The task.
    pub task: Task,
    /// Samples: training first, then validation, then test.
    pub samples: Vec<Sample>,
    /// Classes with fewer samples than wanted.
    pub shortfalls: Vec<Shortfall>,
}

/// The size part of INSPECT's file names: `100`, `1k`, `10k`.
pub fn size_tag(size: usize) -> String {
    if size >= 1000 && size % 1000 == 0 {
        format!("{}k", size / 1000)
    } else {
        size.to_string()
    }
}

/// `datasets_TASK/TASK_ORIG_<size>.txt`.
pub fn dataset_path(task: Task, size: usize) -> std::path::PathBuf {
    std::path::Path::new(&format!("datasets_{task}")).join(format!("{task}_ORIG_{}.txt", size_tag(size)))
}

/// Generates the dataset of `task` from `corpus`.
pub fn generate(task: Task, corpus: &Corpus, config: &GenerateConfig) -> Result<Generated> {
    let mut rng = seeded(config.seed ^ quarry_stdx::rng::stable_hash(task.code()));
    let labels = task.labels();
    let per_class = config.size / labels.len().max(1);
    let buckets = match task {
        Task::Ktx => ktx_buckets(corpus, per_class, &mut rng),
        Task::Idn => idn_buckets(corpus, per_class, &mut rng),
        _ if task.is_mutation_task() => mutation_buckets(task, corpus, per_class, &mut rng),
        _ => metric_buckets(task, corpus, per_class, config, &mut rng)?,
    };
    Ok(assemble(task, &labels, buckets, per_class, &mut rng))
}

/// Samples of one class, each already assigned to a split (or `None` to be split 60/20/20).
type Buckets = BTreeMap<String, Vec<(Option<Split>, String)>>;

/// Method indices, shuffled, then stably ordered by length in steps of 25
/// tokens: shorter methods first, random within a step.
fn shorter_first(corpus: &Corpus, rng: &mut SplitMix64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..corpus.methods.len()).collect();
    rng.shuffle(&mut order);
    order.sort_by_key(|&i| corpus.methods[i].tokens.len() / 25);
    order
}

fn sample_text(tokens: &[String]) -> String {
    escape_backslashes(&tokens.join(" "))
}

fn metric_buckets(
    task: Task,
    corpus: &Corpus,
    per_class: usize,
    config: &GenerateConfig,
    rng: &mut SplitMix64,
) -> Result<Buckets> {
    let labels = task.labels();
    let mut buckets: Buckets = labels.iter().map(|l| (l.clone(), Vec::new())).collect();
    let mut full = 0;
    for index in shorter_first(corpus, rng) {
        let method = &corpus.methods[index];
        let text = method.text();
        let Some(label) = label_of_with(task, &text, config.npt_labels)? else { continue };
        if let Some(bucket) = buckets.get_mut(&label) {
            if bucket.len() < per_class {
                bucket.push((None, sample_text(&method.token_texts())));
                if bucket.len() == per_class {
                    full += 1;
                    if full == labels.len() {
                        break;
                    }
                }
            }
        }
    }
    Ok(buckets)
}

fn mutation_buckets(task: Task, corpus: &Corpus, per_class: usize, rng: &mut SplitMix64) -> Buckets {
    let mutate: fn(&Method, &mut SplitMix64) -> Option<Vec<String>> = match task {
        Task::Typ => mutate::misspell_type,
        Task::Rea => mutate::relational_to_assignment,
        Task::Jbl => mutate::swap_adjacent,
        Task::Sri => mutate::switch_identifier,
        Task::Srk => mutate::switch_random_keyword,
        _ => mutate::switch_compatible_keyword,
    };
    let labels = task.labels();
    let (original, mutated) = (labels[0].clone(), labels[1].clone());
    let mut buckets: Buckets = labels.iter().map(|l| (l.clone(), Vec::new())).collect();
    for index in shorter_first(corpus, rng) {
        let method = &corpus.methods[index];
        // Originals are drawn from methods that could be mutated too, so the
        // two classes differ only by the mutation.
        let Some(changed) = mutate(method, rng) else { continue };
        let originals = buckets[&original].len();
        let mutants = buckets[&mutated].len();
        if originals >= per_class && mutants >= per_class {
            break;
        }
        let take_mutant = mutants < per_class && (originals >= per_class || rng.below(2) == 1);
        if take_mutant {
            if let Some(b) = buckets.get_mut(&mutated) {
                b.push((None, sample_text(&changed)));
            }
        } else if let Some(b) = buckets.get_mut(&original) {
            b.push((None, sample_text(&method.token_texts())));
        }
    }
    buckets
}

fn ktx_buckets(corpus: &Corpus, per_class: usize, rng: &mut SplitMix64) -> Buckets {
    let mut occurrences: HashMap<(&str, Split), Vec<&str>> = HashMap::new();
    for method in &corpus.methods {
        for (_, token) in &method.tokens {
            if let Some((class, split)) = crate::ktx::ktx_class(token) {
                let entry = KTX_TOKENS.iter().flat_map(|(_, _, t)| t.iter()).find(|t| **t == token.as_str());
                if let Some(static_token) = entry {
                    occurrences.entry((class, split)).or_default().push(static_token);
                }
            }
        }
    }
    let mut buckets = Buckets::new();
    for (class, split, _) in KTX_TOKENS {
        let wanted = split_share(per_class, *split);
        let bucket = buckets.entry(class.to_string()).or_default();
        if let Some(pool) = occurrences.get(&(*class, *split)) {
            // Drawn in proportion to corpus frequency.
            for _ in 0..wanted {
                bucket.push((Some(*split), pool[rng.below(pool.len())].to_string()));
            }
        }
    }
    buckets
}

fn idn_buckets(corpus: &Corpus, per_class: usize, rng: &mut SplitMix64) -> Buckets {
    let mut roles: BTreeMap<&str, Vec<IdentifierRole>> = BTreeMap::new();
    for (role, name) in &corpus.identifiers {
        let entry = roles.entry(name.as_str()).or_default();
        if !entry.contains(role) {
            entry.push(*role);
        }
    }
    let mut by_role: BTreeMap<IdentifierRole, Vec<&str>> = BTreeMap::new();
    for (name, found) in &roles {
        // A name with several roles is ambiguous on its own; leave it out.
        if let [role] = found.as_slice() {
            if code_tokens(name).len() == 1 {
                by_role.entry(*role).or_default().push(name);
            }
        }
    }
    let mut buckets = Buckets::new();
    for role in [IdentifierRole::Class, IdentifierRole::Method, IdentifierRole::Package, IdentifierRole::Variable] {
        let mut names = by_role.remove(&role).unwrap_or_default();
        rng.shuffle(&mut names);
        names.truncate(per_class);
        buckets.insert(role.label().to_string(), names.into_iter().map(|n| (None, n.to_string())).collect());
    }
    buckets
}

/// Samples of a class that go to `split`: 60/20/20 of `n`.
fn split_share(n: usize, split: Split) -> usize {
    let train = (n * 3 + 2) / 5;
    let valid = (n - train) / 2;
    match split {
        Split::Train => train,
        Split::Validation => valid,
        Split::Test => n - train - valid,
    }
}

fn assemble(task: Task, labels: &[String], mut buckets: Buckets, per_class: usize, rng: &mut SplitMix64) -> Generated {
    let mut by_split: BTreeMap<Split, Vec<Sample>> = BTreeMap::new();
    let mut shortfalls = Vec::new();
    for label in labels {
        let mut items = buckets.remove(label).unwrap_or_default();
        if items.len() < per_class {
            shortfalls.push(Shortfall { label: label.clone(), wanted: per_class, found: items.len() });
        }
        rng.shuffle(&mut items);
        let n = items.len();
        let (train, valid) = (split_share(n, Split::Train), split_share(n, Split::Validation));
        for (i, (fixed, text)) in items.into_iter().enumerate() {
            let split = fixed.unwrap_or(if i < train {
                Split::Train
            } else if i < train + valid {
                Split::Validation
            } else {
                Split::Test
            });
            by_split.entry(split).or_default().push(Sample { split, label: label.clone(), text, line: 0 });
        }
    }
    let mut samples = Vec::new();
    for split in Split::ALL {
        let mut part = by_split.remove(&split).unwrap_or_default();
        rng.shuffle(&mut part);
        samples.extend(part);
    }
    Generated { task, samples, shortfalls }
}
