//! CS1QA end to end on the fixture (`tests/fixtures/cs1qa/rows.jsonl`, the annotated schema
//! with all nine types, alternative gold spans and N/A rows): a small scratch encoder is
//! trained for type classification and for line selection through the shared training loop,
//! and evaluated with the real scorers; the dense retriever learns to pair questions.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use candle_core::Device;
use quarry_data::cs1qa::{read_rows, Cs1qaRow, QuestionType, RetrievalQuestion};
use quarry_eval::cs1qa::line_f1_em;
use quarry_model::models::cs1qa::{
    dense_search, middle_baseline, score_selections, DualEncoder, LineModel, PairExample, Pooling, TypeModel,
};
use quarry_model::training::train::{fit, TrainConfig};
use quarry_model::{load_model, LoadedModel, ModelSource, ScratchSpec};

fn fixture() -> Vec<Cs1qaRow> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cs1qa/rows.jsonl");
    let loaded = read_rows(&path).unwrap();
    assert!(loaded.errors.is_empty(), "{:?}", loaded.errors);
    loaded.into_records()
}

/// A WordPiece vocabulary of every word and punctuation mark of the fixture.
fn vocab(rows: &[Cs1qaRow], name: &str) -> PathBuf {
    let text: Vec<String> = rows.iter().map(|r| format!("{} {} {}", r.input_text(), r.code, r.answer)).collect();
    common::word_vocab_dir(&format!("cs1qa-{name}"), &text.join("\n"), |c| c.is_alphanumeric() || c == '_')
        .join("vocab.txt")
}

fn scratch(vocab: &Path, seed: u64) -> LoadedModel {
    let source = ModelSource::Scratch(ScratchSpec::parse("2x32x2").unwrap());
    load_model(&source, Some(vocab), &Device::Cpu, seed).unwrap()
}

fn config(epochs: usize, lr: f64) -> TrainConfig {
    TrainConfig { epochs, batch_size: 8, lr, weight_decay: 0.0, ..TrainConfig::default() }
}

#[test]
fn fixture_covers_the_schema() {
    let rows = fixture();
    assert_eq!(rows.len(), 25);
    let types: BTreeSet<QuestionType> = rows.iter().map(|r| r.question_type).collect();
    assert_eq!(types.len(), 9);
    assert_eq!(rows.iter().filter(|r| r.span().is_none()).count(), 5);
    assert_eq!(quarry_data::cs1qa::rows::question_count(&rows), 21);
    for r in &rows {
        assert_eq!(r.question_type.questioner(), r.questioner, "{}", r.question);
    }
}

#[test]
fn middle_baseline_on_the_fixture() {
    let rows = fixture();
    // every program is shorter than 60 lines: the baseline selects all of it
    let sel = middle_baseline(&rows, 60);
    assert!(rows.iter().zip(&sel).all(|(r, s)| s == &[(0, r.code_lines() as u64 - 1)]));
    let report = score_selections(&rows, &sel).unwrap();
    // no row scores EM; N/A-only questions (4 rows) score 0; the rest score line-set F1
    // of the whole program against their best alternative.
    assert_eq!(report.all.em, 0.0);
    assert_eq!(report.all.count, 25);
    assert_eq!(report.valid.count, 20);
    // row 1 (harvest, 28 lines) against lines 12..=13 (its best alternative): F1 = 2*2/(28+2)
    let (f1, _) = line_f1_em(&sel[0], Some((12, 13)));
    assert!((f1 - 4.0 / 30.0).abs() < 1e-12);
    // a width of 10 on the 44-line Memento program: lines 17..=26
    let narrow = middle_baseline(&rows, 10);
    assert_eq!(narrow[10], [(17, 26)]);
}

#[test]
fn type_classifier_trains_and_votes_over_segments() {
    let rows = fixture();
    let model = TypeModel::new(scratch(&vocab(&rows, "type"), 1)).unwrap();
    // 64 ids: the longer programs become several segments, each voting
    let examples = model.encode(&rows, 64).unwrap();
    assert!(examples.len() > 2 * rows.len(), "{} segments", examples.len());
    assert!(examples.iter().all(|e| e.ids.len() <= 64));
    let before = model.evaluate(&examples, 16).unwrap();
    let logs = fit(&model, &examples, &examples, &config(12, 3e-3), &mut |_| {}).unwrap();
    let after = model.evaluate(&examples, 16).unwrap();
    assert!(logs.last().unwrap().loss < logs[0].loss, "{logs:?}");
    assert!(after.loss < before.loss);
    assert_eq!(after.predictions.len(), rows.len());
    // the report is the real scorer's on the voted predictions
    let correct = rows.iter().zip(&after.predictions).filter(|(r, p)| r.question_type == **p).count();
    assert_eq!(after.report.accuracy, correct as f64 / rows.len() as f64);
    assert!(after.report.accuracy > before.report.accuracy, "{} -> {}", before.report.accuracy, after.report.accuracy);
    assert_eq!(logs.last().unwrap().metric_name, "accuracy");
}

#[test]
fn line_selector_trains_and_unions_segments() {
    let rows = fixture();
    let model = LineModel::new(scratch(&vocab(&rows, "lines"), 2)).unwrap();
    let examples = model.encode(&rows, 64).unwrap();
    // labels point at code tokens of gold lines, or at [CLS] where a segment holds none
    for e in &examples {
        if e.start != 0 {
            let lines = &e.segment.token_lines;
            let (s, t) = (lines[e.start - e.segment.code_start], lines[e.end - e.segment.code_start]);
            let (gs, ge) = e.own.unwrap();
            assert!(gs <= s && s <= t && t <= ge);
        } else {
            assert_eq!(e.end, 0);
        }
    }
    let before = model.evaluate(&examples, 16).unwrap();
    let logs = fit(&model, &examples, &examples, &config(15, 3e-3), &mut |_| {}).unwrap();
    let after = model.evaluate(&examples, 16).unwrap();
    assert!(logs.last().unwrap().loss < logs[0].loss, "{logs:?}");
    assert!(after.loss < before.loss);
    assert_eq!(after.selections.len(), rows.len());
    // the reported scores are the authors' scorer applied to the unioned selections
    assert_eq!(after.report, score_selections(&rows, &after.selections).unwrap());
    assert_eq!(logs.last().unwrap().metric_name, "f1");
}

#[test]
fn dense_retriever_learns_in_batch() {
    let rows = fixture();
    let vocab = vocab(&rows, "dense");
    let model = DualEncoder::new(scratch(&vocab, 3), Some(Pooling::Mean)).unwrap();
    // queries are questions, positives their answers: 25 distinct pairs
    let pairs: Vec<PairExample> = rows
        .iter()
        .map(|r| PairExample {
            query: model.tokenize(&r.question, 48).unwrap(),
            positive: model.tokenize(&r.answer, 48).unwrap(),
        })
        .collect();
    let logs = fit(&model, &pairs, &pairs, &config(20, 3e-3), &mut |_| {}).unwrap();
    assert!(logs.last().unwrap().loss < logs[0].loss, "{logs:?}");
    let corpus: Vec<RetrievalQuestion> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| RetrievalQuestion { id: i as u64, text: r.answer.clone(), doc_id: None })
        .collect();
    let queries: Vec<RetrievalQuestion> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| RetrievalQuestion { id: 100 + i as u64, text: r.question.clone(), doc_id: None })
        .collect();
    let hits = dense_search(&model, &corpus, &queries, 3, 48, 8).unwrap();
    assert_eq!(hits.len(), 25);
    assert!(hits.iter().all(|h| h.hits.len() == 3 && h.hits[0].score >= h.hits[1].score));
}

/// Dense retrieval on CS1QA's real retrieval files with all-MiniLM-L6-v2 (enabled by
/// `QUARRY_CS1QA_DENSE=1`; needs `QUARRY_MINILM_DIR` and `QUARRY_CS1QA_RETRIEVAL`, the folder of
/// `corpus.jsonl` and the `q_*.jsonl` files): recall@1 and @5 of the BM25 top-1 on `q_test`
/// before and after training on `q_train` (BM25 top-1 positives, in-batch negatives),
/// `QUARRY_CS1QA_EPOCHS` epochs (default 1), and the training time.
#[test]
fn dense_retrieval_on_the_real_files() {
    if std::env::var("QUARRY_CS1QA_DENSE").is_err() {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "set QUARRY_CS1QA_DENSE=1 (with QUARRY_MINILM_DIR, QUARRY_CS1QA_RETRIEVAL) to train on the real files",
        );
        return;
    }
    let (Ok(minilm), Ok(data)) = (std::env::var("QUARRY_MINILM_DIR"), std::env::var("QUARRY_CS1QA_RETRIEVAL")) else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            "QUARRY_MINILM_DIR or QUARRY_CS1QA_RETRIEVAL is not set",
        );
        return;
    };
    use quarry_data::cs1qa::Bm25Retriever;
    use quarry_model::models::cs1qa::{bm25_pairs, recall_at};
    let data = PathBuf::from(data);
    let read = |name: &str| quarry_data::cs1qa::read_questions(&data.join(name)).unwrap().into_records();
    let (corpus, train, dev, test) =
        (read("corpus.jsonl"), read("q_train.jsonl"), read("q_dev.jsonl"), read("q_test.jsonl"));
    let epochs: usize = std::env::var("QUARRY_CS1QA_EPOCHS").ok().and_then(|e| e.parse().ok()).unwrap_or(1);
    let pooling = match std::env::var("QUARRY_CS1QA_POOLING").as_deref() {
        Ok("cls") => Pooling::Cls,
        _ => Pooling::Mean,
    };
    let bm25 = Bm25Retriever::new(&corpus).unwrap();
    let reference = bm25.search_all(&test, 1).into_iter().map(|r| (r.id, r.hits[0].id)).collect();
    let model = load_model(&ModelSource::Dir(PathBuf::from(&minilm)), None, &Device::Cpu, 42).unwrap();
    let model = DualEncoder::new(model, Some(pooling)).unwrap();
    let recall = |model: &DualEncoder| {
        let start = std::time::Instant::now();
        let hits = dense_search(model, &corpus, &test, 5, 64, 64).unwrap();
        (recall_at(&hits, &reference, 1), recall_at(&hits, &reference, 5), start.elapsed().as_secs_f64())
    };
    if std::env::var("QUARRY_CS1QA_UNTRAINED").is_ok() {
        let b = recall(&model);
        eprintln!("{} pooling, untrained: recall@1 {:.4} recall@5 {:.4} ({:.1}s)", pooling.name(), b.0, b.1, b.2);
    }
    // QUARRY_CS1QA_TRAIN_LIMIT caps the training questions (and the validation ones at a
    // quarter of it), for a run that must finish on a busy machine
    let limit: usize =
        std::env::var("QUARRY_CS1QA_TRAIN_LIMIT").ok().and_then(|e| e.parse().ok()).unwrap_or(usize::MAX);
    let train = &train[..train.len().min(limit)];
    let dev = &dev[..dev.len().min(limit.div_ceil(4))];
    let pairs = bm25_pairs(&model, &bm25, &corpus, train, 64).unwrap();
    let valid = bm25_pairs(&model, &bm25, &corpus, dev, 64).unwrap();
    let config =
        TrainConfig { epochs, batch_size: 32, lr: 2e-5, weight_decay: 0.01, seed: 42, ..TrainConfig::default() };
    let start = std::time::Instant::now();
    let logs = fit(&model, &pairs, &valid, &config, &mut |e| {
        if let quarry_model::training::train::TrainEvent::Epoch(l) = e {
            eprintln!(
                "epoch {} loss {:.4} valid_loss {:.4} in-batch accuracy {:.4} ({:.1}s)",
                l.epoch,
                l.loss,
                l.valid_loss,
                l.metric(),
                l.seconds
            );
        }
    })
    .unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let after = recall(&model);
    eprintln!(
        "trained {} pairs x {epochs} epochs in {seconds:.1}s: recall@1 {:.4} recall@5 {:.4} on {} q_test questions",
        pairs.len(),
        after.0,
        after.1,
        test.len()
    );
    assert_eq!(logs.len(), epochs);
    assert!(after.1 >= after.0 && after.0 > 0.0);
}
