//! `codeqa::stats` on a small hand-counted fixture (tests/fixtures/codeqa/stats).

use std::path::Path;

use quarry_data::codeqa::stats::{render, stats};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-6
}

#[test]
fn tables_3_4_6_on_a_fixture() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa/stats");
    let s = stats(&dir).unwrap();
    let names: Vec<&str> = s.splits.iter().map(|x| x.split.as_str()).collect();
    assert_eq!(names, vec!["train", "dev"]);
    let (train, dev) = (&s.splits[0], &s.splits[1]);
    // Table 3.
    assert_eq!(train.examples, 3);
    assert_eq!(dev.examples, 4);
    assert_eq!(train.unique_codes, None);
    assert_eq!(dev.unique_codes, Some(4));
    assert!(close(train.avg_question_tokens, 19.0 / 3.0));
    assert!(close(train.avg_answer_tokens, 2.0));
    assert!(close(dev.avg_question_tokens, 7.0));
    assert!(close(dev.avg_answer_tokens, 1.75));
    assert!(close(dev.avg_code_tokens.unwrap(), 5.25));
    assert!(close(dev.avg_code_original_tokens.unwrap(), 5.0));
    assert_eq!(s.total.examples, 7);
    // Table 4: "x value" repeats from train; "x value" and "support kwargs"
    // are spans of their code, "raise fails" only extractable.
    assert!(close(s.answers.repetition_against_train["dev"], 100.0 / 3.0));
    assert_eq!(s.answers.answers_with_code, 3);
    assert!(close(s.answers.span_answer.unwrap(), 200.0 / 3.0));
    assert!(close(s.answers.extraction_answer.unwrap(), 100.0));
    // Table 6 over all seven questions.
    let t = &s.question_types;
    assert!(close(t["What"], 200.0 / 7.0));
    assert!(close(t["Yes/No"], 200.0 / 7.0));
    assert!(close(t["How"], 100.0 / 7.0));
    assert!(close(t["When"], 100.0 / 7.0));
    assert!(close(t["For what purpose"], 100.0 / 7.0));
    assert!(close(t["Where"], 0.0) && close(t["Why"], 0.0) && close(t["Other"], 0.0));
    let text = render(&s);
    assert!(text.contains("Table 3") && text.contains("Table 4") && text.contains("Table 6"));
}

#[test]
fn a_directory_without_splits_is_an_error() {
    let dir = std::env::temp_dir().join(format!("quarry-codeqa-nosplits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let e = stats(&dir).unwrap_err().to_string();
    assert!(e.contains("no {split}.question files"), "{e}");
    assert!(stats(&dir.join("missing")).is_err());
}
