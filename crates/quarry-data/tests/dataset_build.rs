//! The CodeQueries dataset builder end to end on a small corpus: every
//! field, span text against block content, labels decoded back to spans,
//! resumption, budgets and perturbations.

use std::path::{Path, PathBuf};

use quarry_data::codequeries::build::{build, BuildOptions, CutPositives};
use quarry_data::codequeries::labels::{block_span_text, char_spans, Subtokenizer};
use quarry_data::codequeries::perturb::{perturb_example, PerturbOptions};
use quarry_data::codequeries::schema::label;
use quarry_data::codequeries::selection::Negatives;
use quarry_data::codequeries::split::{Ratios, Split};
use quarry_data::codequeries::{Example, RelevanceRow};
use quarry_stdx::rng::SplitMix64;

mod common;
use common::char_tokenizer;

fn corpus() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/corpus")
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("quarry-data-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn options(out: &Path, tokenizer: Option<&Path>, max_len: usize) -> BuildOptions {
    BuildOptions {
        corpus: corpus(),
        out: out.to_path_buf(),
        queries: quarry_query::all_queries(),
        tokenizer: tokenizer.map(|t| Subtokenizer::load(t).unwrap()),
        max_len,
        ratios: Ratios { train: 1.0, valid: 0.0, test: 0.0 },
        seed: 0,
        budget: None,
        negatives: Negatives::All,
        cut_positives: CutPositives::Keep,
        gzip: false,
        format: quarry_data::hub::Format::Jsonl,
        shard: quarry_data::shard::Shard::default(),
        files_from: None,
        chunk_size: 2,
        max_file_bytes: 1 << 20,
        time_budget: None,
    }
}

fn read<T: serde::de::DeserializeOwned>(path: &Path) -> Vec<T> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn check_examples(examples: &[Example], tokenizer: Option<&Subtokenizer>) {
    for example in examples {
        assert!(!example.context_blocks.is_empty());
        assert_eq!(example.answer_spans.len(), example.answer_spans_in_blocks.len());
        assert_eq!(example.supporting_fact_spans.len(), example.supporting_fact_spans_in_blocks.len());
        if example.example_type == 0 {
            assert!(example.answer_spans.is_empty() && example.supporting_fact_spans.is_empty());
        } else {
            assert!(!example.answer_spans.is_empty());
        }
        // Property: a span's text equals the block content at the span.
        for (file_span, block_span) in example
            .answer_spans
            .iter()
            .zip(&example.answer_spans_in_blocks)
            .chain(example.supporting_fact_spans.iter().zip(&example.supporting_fact_spans_in_blocks))
        {
            assert_eq!(block_span_text(example, block_span).as_deref(), Some(file_span.span.as_str()));
        }
        // The block contents are the file's own lines.
        let source = std::fs::read_to_string(corpus().join(&example.code_file_path)).unwrap();
        let lines: Vec<&str> = source.split_inclusive('\n').collect();
        for block in &example.context_blocks {
            let expected: String =
                block.lines.iter().flat_map(|r| r.start..=r.end).map(|l| lines.get(l).copied().unwrap_or("")).collect();
            assert_eq!(block.content, expected);
        }
        if let Some(tokenizer) = tokenizer {
            assert_eq!(example.subtokenized_input_sequence.len(), example.label_sequence.len());
            assert_eq!(example.subtokenized_input_sequence[0], "[CLS]");
            assert_eq!(example.label_sequence[0], label::IGNORE);
            if !example.pruned {
                assert_eq!(tokenizer.decode_labels(example).unwrap(), char_spans(example), "{}", example.query_name);
                assert_eq!(
                    example.spans_after_pruning,
                    Some(example.answer_spans.len() + example.supporting_fact_spans.len())
                );
            }
        }
    }
}

#[test]
fn builds_every_setting_with_correct_fields_and_labels() {
    let out = temp_dir("build");
    let tokenizer_dir = char_tokenizer(&temp_dir("tokenizer"));
    let summary = build(&options(&out, Some(&tokenizer_dir), 512), &|_, _| {}).unwrap();
    assert_eq!(summary.files, 3);
    assert!(summary.failed_files.is_empty());
    let tokenizer = Subtokenizer::load(&tokenizer_dir).unwrap();
    let ideal: Vec<Example> = read(&out.join("ideal_train.jsonl"));
    check_examples(&ideal, Some(&tokenizer));
    let positives: Vec<(&str, &str)> = ideal
        .iter()
        .filter(|e| e.example_type == 1)
        .flat_map(|e| e.answer_spans.iter().map(move |s| (e.query_name.as_str(), s.span.as_str())))
        .collect();
    assert!(positives.contains(&("Except block handles 'BaseException'", "except:")), "{positives:?}");
    assert!(positives.contains(&("Testing equality to None", "request == None")), "{positives:?}");
    assert!(positives.contains(&("Duplicate key in dict literal", "\"get\"")), "{positives:?}");
    assert!(ideal.iter().any(|e| e.example_type == 0));
    // The negative example for catching BaseException is the re-raising handler.
    let negative = ideal
        .iter()
        .find(|e| {
            e.example_type == 0
                && e.query_name == "Except block handles 'BaseException'"
                && e.code_file_path.ends_with("models.py")
        })
        .expect("negative example");
    assert_eq!(negative.context_blocks[0].metadata, "root.parse");
    assert!(negative.label_sequence.iter().all(|&l| l == label::O || l == label::IGNORE));

    let file_level: Vec<Example> = read(&out.join("file_ideal_train.jsonl"));
    check_examples(&file_level, Some(&tokenizer));
    let handlers = file_level
        .iter()
        .find(|e| e.code_file_path == "pkg/handlers.py" && e.query_name == "Testing equality to None")
        .unwrap();
    assert_eq!(handlers.context_blocks.len(), 5, "module, class, and three methods");

    let rows: Vec<RelevanceRow> = read(&out.join("twostep_train.jsonl"));
    let relevant: Vec<&str> = rows
        .iter()
        .filter(|r| r.code_file_path == "pkg/handlers.py" && r.query_name == "Testing equality to None")
        .map(|r| if r.relevance_label == 1 { "1" } else { "0" })
        .collect();
    assert_eq!(relevant, ["0", "0", "1", "0", "0"]);
    assert!(rows.iter().all(|r| r.subtokenized_input_sequence.last().map(String::as_str) == Some("[SEP]")));
    assert!(std::fs::read_to_string(out.join("stats.txt")).unwrap().contains("Table 1"));
    assert!(!out.join(".shards").exists());
}

#[test]
fn pruning_counts_surviving_spans() {
    let out = temp_dir("pruning");
    let tokenizer_dir = char_tokenizer(&temp_dir("tokenizer-pruning"));
    build(&options(&out, Some(&tokenizer_dir), 64), &|_, _| {}).unwrap();
    let examples: Vec<Example> = read(&out.join("file_ideal_train.jsonl"));
    let pruned: Vec<&Example> = examples.iter().filter(|e| e.pruned).collect();
    assert!(!pruned.is_empty());
    for e in pruned {
        assert_eq!(e.subtokenized_input_sequence.len(), 64);
        assert_eq!(e.subtokenized_input_sequence.last().map(String::as_str), Some("[SEP]"));
        assert!(e.spans_after_pruning.unwrap() <= e.answer_spans.len() + e.supporting_fact_spans.len());
    }
}

#[test]
fn interrupted_build_resumes_from_its_shards() {
    let out = temp_dir("interrupted");
    let full = build(&options(&out, None, 512), &|_, _| {}).unwrap();
    let expected = std::fs::read_to_string(out.join("ideal_train.jsonl")).unwrap();
    // Interrupt a second run after its first chunk: the progress callback
    // panics, as a killed process would stop.
    let again = temp_dir("interrupted-again");
    std::fs::create_dir_all(again.join(".shards")).unwrap();
    let panic_after_first_chunk = std::panic::catch_unwind(|| {
        build(&options(&again, None, 512), &|done, _| {
            if done >= 2 {
                panic!("interrupted");
            }
        })
    });
    assert!(panic_after_first_chunk.is_err());
    let shards: Vec<_> = std::fs::read_dir(again.join(".shards")).unwrap().collect();
    assert_eq!(shards.len(), 1, "the first chunk's shard survives the interruption");
    let resumed = build(&options(&again, None, 512), &|_, _| {}).unwrap();
    assert_eq!(resumed.resumed_chunks, 1);
    assert_eq!(resumed.files, full.files);
    assert_eq!(std::fs::read_to_string(again.join("ideal_train.jsonl")).unwrap(), expected);
}

#[test]
fn rerun_removes_temporaries_of_a_killed_final_write() {
    let out = temp_dir("killed-final-write");
    // What a run killed while merging leaves: half-written outputs and a
    // shard under their temporary names, beside the user's own files.
    std::fs::create_dir_all(out.join(".shards")).unwrap();
    let stale = [".ideal_train.jsonl.4242.tmp", ".stats.json.4242.tmp", ".twostep_test.jsonl.17.tmp"];
    for name in stale {
        std::fs::write(out.join(name), "half written").unwrap();
    }
    std::fs::write(out.join(".shards/.0123456789abcdef.jsonl.4242.tmp"), "half").unwrap();
    let kept = [".notes.txt.4242.tmp", "mine.tmp", ".ideal_train.jsonl.bak"];
    for name in kept {
        std::fs::write(out.join(name), "the user's").unwrap();
    }
    build(&options(&out, None, 512), &|_, _| {}).unwrap();
    for name in stale {
        assert!(!out.join(name).exists(), "{name} is left behind");
    }
    assert!(!out.join(".shards").exists());
    for name in kept {
        assert!(out.join(name).exists(), "{name} is not a temporary of the build");
    }
    assert!(out.join("ideal_train.jsonl").is_file());
}

#[test]
fn budget_keeps_equal_positives_and_negatives() {
    let out = temp_dir("budget");
    let mut opts = options(&out, None, 512);
    opts.budget = Some(2);
    build(&opts, &|_, _| {}).unwrap();
    let examples: Vec<Example> = read(&out.join("ideal_train.jsonl"));
    let mut per_query = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for e in &examples {
        let entry = per_query.entry(e.query_name.as_str()).or_default();
        if e.example_type == 1 {
            entry.0 += 1
        } else {
            entry.1 += 1
        }
    }
    assert!(!per_query.is_empty());
    for (query, (pos, neg)) in per_query {
        assert_eq!(pos, neg, "{query}");
        assert!(pos <= 1, "{query}");
    }
}

#[test]
fn perturbations_keep_spans_and_change_code() {
    let out = temp_dir("perturb");
    build(&options(&out, None, 512), &|_, _| {}).unwrap();
    let examples: Vec<Example> = read(&out.join("ideal_train.jsonl"));
    let mut changed = 0;
    for (i, original) in examples.iter().enumerate() {
        let mut example = original.clone();
        let mut rng = SplitMix64::new(i as u64);
        let Some(edits) = perturb_example(&mut example, &mut rng, &PerturbOptions::default()) else { continue };
        assert!((1..=3).contains(&edits.len()));
        assert_ne!(example.context_blocks, original.context_blocks);
        changed += 1;
        for (file_span, block_span) in example.answer_spans.iter().zip(&example.answer_spans_in_blocks) {
            assert_eq!(block_span_text(&example, block_span).as_deref(), Some(file_span.span.as_str()));
        }
        for (before, after) in original.answer_spans.iter().zip(&example.answer_spans) {
            assert_eq!(before.span, after.span);
            assert_eq!(before.start_line, after.start_line);
        }
    }
    assert!(changed * 2 >= examples.len(), "most examples get a valid perturbation");
}

#[test]
fn minilm_labels_align_when_the_model_is_present() {
    let Ok(dir) = std::env::var("QUARRY_MINILM_DIR") else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "QUARRY_MINILM_DIR is not set (scripts/test sets it)",
        );
        return;
    };
    let out = temp_dir("minilm");
    build(&options(&out, Some(Path::new(&dir)), 512), &|_, _| {}).unwrap();
    let tokenizer = Subtokenizer::load(Path::new(&dir)).unwrap();
    check_examples(&read(&out.join("ideal_train.jsonl")), Some(&tokenizer));
    check_examples(&read(&out.join("file_ideal_train.jsonl")), Some(&tokenizer));
}

#[test]
fn paper_negatives_follow_each_querys_ratio_and_whole_files_follow_them() {
    let out = temp_dir("paper-negatives");
    let mut opts = options(&out, None, 512);
    opts.negatives = Negatives::Paper;
    let summary = build(&opts, &|_, _| {}).unwrap();
    let ideal: Vec<Example> = read(&out.join("ideal_train.jsonl"));
    let mut per_query = std::collections::BTreeMap::<&str, (usize, usize)>::new();
    for e in &ideal {
        let entry = per_query.entry(e.query_name.as_str()).or_default();
        if e.example_type == 1 {
            entry.0 += 1
        } else {
            entry.1 += 1
        }
    }
    for (query, stats) in &summary.stats.queries {
        let (positives, negatives) = per_query.get(query.as_str()).copied().unwrap_or_default();
        assert_eq!((stats.positive, stats.negative), (positives, negatives), "{query}");
        let quota = Negatives::Paper.quota(query, positives, stats.candidate_negatives);
        assert_eq!(negatives, quota, "{query}: {positives} positives, {} found", stats.candidate_negatives);
        assert!(stats.paper.is_some(), "{query}");
    }
    assert!(summary.stats.queries.values().any(|q| q.candidate_negatives > q.negative), "something was sampled");
    // A file-level negative, and its relevance rows, exist only where an ideal example does.
    let kept: std::collections::HashSet<(String, String)> =
        ideal.iter().map(|e| (e.query_name.clone(), e.code_file_path.clone())).collect();
    let file_level: Vec<Example> = read(&out.join("file_ideal_train.jsonl"));
    assert!(file_level.iter().all(|e| kept.contains(&(e.query_name.clone(), e.code_file_path.clone()))));
    let rows: Vec<RelevanceRow> = read(&out.join("twostep_train.jsonl"));
    assert!(rows.iter().all(|r| kept.contains(&(r.query_name.clone(), r.code_file_path.clone()))));
    assert!(summary.bytes_written > 0 && summary.bytes_per_file > 0.0);
    assert!(std::fs::read_to_string(out.join("stats.txt")).unwrap().contains("Distribution beside the paper"));
    // The same seed gives the same dataset.
    let again = temp_dir("paper-negatives-again");
    let mut opts = options(&again, None, 512);
    opts.negatives = Negatives::Paper;
    build(&opts, &|_, _| {}).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join("ideal_train.jsonl")).unwrap(),
        std::fs::read_to_string(again.join("ideal_train.jsonl")).unwrap()
    );
}

#[test]
fn positives_whose_answers_are_all_cut_are_dropped_and_counted() {
    let out = temp_dir("cut-positives");
    let tokenizer_dir = char_tokenizer(&temp_dir("tokenizer-cut"));
    let mut opts = options(&out, Some(&tokenizer_dir), 16);
    opts.cut_positives = CutPositives::Drop;
    let summary = build(&opts, &|_, _| {}).unwrap();
    let ideal: Vec<Example> = read(&out.join("ideal_train.jsonl"));
    assert!(ideal.iter().all(|e| e.example_type == 0), "16 sub-tokens leave no answer span");
    let cut = &summary.stats.cut["train"];
    assert!(cut.positives_all_cut > 0);
    assert_eq!(cut.positives_dropped, cut.positives_all_cut);
    assert!(summary.stats.spans_cut() >= cut.positives_dropped);
    // Kept, as the reference keeps them, they are still counted.
    let kept = temp_dir("cut-positives-kept");
    let summary = build(&options(&kept, Some(&tokenizer_dir), 16), &|_, _| {}).unwrap();
    let cut = &summary.stats.cut["train"];
    assert!(cut.positives_all_cut > 0 && cut.positives_dropped == 0);
    let ideal: Vec<Example> = read(&kept.join("ideal_train.jsonl"));
    assert_eq!(ideal.iter().filter(|e| e.example_type == 1).count(), summary.stats.positives(Split::Train));
    assert!(ideal.iter().all(|e| e.id.contains("#Q")), "every example has an id");
}
