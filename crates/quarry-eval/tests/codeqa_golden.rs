//! CodeQA's answer scorers against the authors' evaluation on 3,000 real answers (the first
//! lines of CodeQA's python/test.answer) with perturbed hypotheses; reference values made by
//! `tests/fixtures/make_codeqa_fixture.py`. Every value must agree within 1e-9. METEOR runs
//! the METEOR 1.5 jar when `QUARRY_METEOR_JAR` names it (and Java is installed).

use std::path::Path;

use quarry_eval::{codeqa_answer, codeqa_bleu, codeqa_meteor, codeqa_rouge};
use serde_json::Value;

const TOL: f64 = 1e-9;

struct Pairs {
    hyps: Vec<String>,
    refs: Vec<String>,
    expected: Value,
}

fn pairs() -> Pairs {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codeqa_pairs_reference.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let strings =
        |k: &str| -> Vec<String> { v[k].as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect() };
    Pairs { hyps: strings("hyps"), refs: strings("refs"), expected: v }
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

fn close(what: &str, expected: f64, got: f64) {
    assert!((expected - got).abs() <= TOL, "{what}: expected {expected:?}, got {got:?}");
}

impl Pairs {
    fn inputs(&self) -> (Vec<&str>, Vec<Vec<&str>>) {
        (self.hyps.iter().map(String::as_str).collect(), vec![self.refs.iter().map(String::as_str).collect()])
    }
}

#[test]
fn bleu_rouge_em_f1_equal_codeqa_scripts() {
    let p = pairs();
    assert!(p.hyps.len() >= 3000);
    let (hyps, refs) = p.inputs();
    let e = &p.expected;
    let (lines, mean) = codeqa_bleu::codeqa_bleu(&hyps, &refs).unwrap();
    close("bleu mean", e["bleu"]["mean"].as_f64().unwrap(), mean);
    for (i, (x, y)) in f64s(&e["bleu"]["per_line"]).iter().zip(&lines).enumerate() {
        close(&format!("bleu line {i}"), *x, *y);
    }
    let (lines, mean) = codeqa_rouge::codeqa_rouge_l(&hyps, &refs).unwrap();
    close("rouge mean", e["rouge_l"]["mean"].as_f64().unwrap(), mean);
    for (i, (x, y)) in f64s(&e["rouge_l"]["per_line"]).iter().zip(&lines).enumerate() {
        close(&format!("rouge line {i}"), *x, *y);
    }
    let (lines, mean) = codeqa_answer::codeqa_answer_scores(&hyps, &refs).unwrap();
    let q = &e["qa"];
    for (name, got) in [("em", mean.em), ("precision", mean.precision), ("recall", mean.recall), ("f1", mean.f1)] {
        close(name, q[name].as_f64().unwrap(), got);
    }
    for (i, (x, y)) in q["per_line"].as_array().unwrap().iter().zip(&lines).enumerate() {
        let x = f64s(x);
        for (k, got) in [y.em, y.precision, y.recall, y.f1].into_iter().enumerate() {
            close(&format!("qa line {i} value {k}"), x[k], got);
        }
    }
}

#[test]
fn meteor_equals_the_jar_as_codeqa_runs_it() {
    let Ok(jar) = codeqa_meteor::find_jar(None) else {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            &format!("set {} to METEOR 1.5's meteor-1.5.jar to run this test", codeqa_meteor::METEOR_JAR_ENV),
        );
        return;
    };
    let p = pairs();
    let (hyps, refs) = p.inputs();
    let (score, lines) = codeqa_meteor::codeqa_meteor(&hyps, &refs, Some(&jar)).unwrap();
    close("meteor", p.expected["meteor"]["score"].as_f64().unwrap(), score);
    for (i, (x, y)) in f64s(&p.expected["meteor"]["per_line"]).iter().zip(&lines).enumerate() {
        close(&format!("meteor line {i}"), *x, *y);
    }
}
