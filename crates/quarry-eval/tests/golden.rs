//! Golden tests: every score of the fixture in `tests/fixtures/` (produced by
//! `make_metrics_fixture.py` with sacrebleu, nltk, rouge-score, rank-bm25 and
//! the SQuAD and CodeQA evaluation functions) must be reproduced within 1e-9.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use quarry_eval::bm25::{Bm25, Bm25Params};
use quarry_eval::meteor::{Meteor, MeteorParams};
use quarry_eval::pytext::split_whitespace;
use quarry_eval::rouge::RougeL;
use quarry_eval::sentence_bleu::{self, NltkBleuOptions, Smoothing};
use quarry_eval::wordnet::WordNet;
use quarry_eval::{bleu, classification, codeqa_bleu, codeqa_rouge, lines, porter, squad, tok13a};
use serde_json::Value;

const TOL: f64 = 1e-9;

struct Fixture {
    hyps: Vec<String>,
    refs: Vec<Vec<String>>,
    expected: Value,
}

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn fixture() -> &'static Fixture {
    static F: OnceLock<Fixture> = OnceLock::new();
    F.get_or_init(|| {
        let read = |name: &str| -> Value {
            let text = std::fs::read_to_string(fixture_dir().join(name)).expect("fixture file");
            serde_json::from_str(&text).expect("fixture JSON")
        };
        let pairs = read("metrics_pairs.json");
        let strings = |v: &Value| -> Vec<String> {
            v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect()
        };
        Fixture {
            hyps: strings(&pairs["hyps"]),
            refs: pairs["refs"].as_array().unwrap().iter().map(strings).collect(),
            expected: read("metrics_reference.json"),
        }
    })
}

impl Fixture {
    fn hyps(&self) -> Vec<&str> {
        self.hyps.iter().map(String::as_str).collect()
    }
    fn streams(&self, n: usize) -> Vec<Vec<&str>> {
        self.refs[..n].iter().map(|s| s.iter().map(String::as_str).collect()).collect()
    }
}

/// Compares and counts; panics with the worst offenders listed.
#[derive(Default)]
struct Checker {
    name: String,
    compared: usize,
    exact: usize,
    failures: Vec<String>,
}

impl Checker {
    fn new(name: &str) -> Self {
        Checker { name: name.to_string(), ..Default::default() }
    }
    fn check(&mut self, what: impl std::fmt::Display, expected: f64, got: f64) {
        self.compared += 1;
        if expected.to_bits() == got.to_bits() || expected == got {
            self.exact += 1;
        } else if (expected - got).abs() > TOL || expected.is_nan() != got.is_nan() {
            self.failures.push(format!("{what}: expected {expected:?}, got {got:?}"));
        }
    }
    fn finish(self) {
        eprintln!("{}: {} compared, {} bit-identical", self.name, self.compared, self.exact);
        assert!(
            self.failures.is_empty(),
            "{}: {} mismatches, first: {:#?}",
            self.name,
            self.failures.len(),
            &self.failures[..self.failures.len().min(10)]
        );
    }
}

fn f64s(v: &Value) -> Vec<f64> {
    v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()).collect()
}

#[test]
fn fixture_is_large_enough() {
    let f = fixture();
    assert!(f.hyps.len() >= 1000);
    assert!(f.hyps.iter().any(|h| h.is_empty()));
    assert!(f.hyps.iter().any(|h| !h.is_ascii()));
}

#[test]
fn tok13a_matches_sacrebleu() {
    let f = fixture();
    let expected = f.expected["tok13a"].as_array().unwrap();
    for (h, e) in f.hyps.iter().zip(expected) {
        assert_eq!(tok13a::tokenize_13a(h), e.as_str().unwrap(), "input {h:?}");
    }
}

#[test]
fn sacrebleu_corpus_and_sentence() {
    let f = fixture();
    let mut c = Checker::new("sacrebleu");
    for (key, n) in [("one_ref", 1), ("two_refs", 2)] {
        let e = &f.expected[format!("sacrebleu_corpus_{key}")];
        let s = bleu::corpus_bleu(&f.hyps(), &f.streams(n)).unwrap();
        c.check(format!("corpus {key}"), e["score"].as_f64().unwrap(), s.score);
        c.check(format!("bp {key}"), e["bp"].as_f64().unwrap(), s.bp);
        assert_eq!(s.stats.sys_len, e["sys_len"].as_u64().unwrap());
        assert_eq!(s.stats.ref_len, e["ref_len"].as_u64().unwrap());
        for i in 0..4 {
            assert_eq!(s.stats.correct[i], e["counts"][i].as_u64().unwrap());
            assert_eq!(s.stats.total[i], e["totals"][i].as_u64().unwrap());
            c.check(format!("precision {i} {key}"), e["precisions"][i].as_f64().unwrap(), s.precisions[i]);
        }
        let sent = bleu::sentence_bleus(&f.hyps(), &f.streams(n)).unwrap();
        for (i, (e, s)) in f64s(&f.expected[format!("sacrebleu_sentence_{key}")]).iter().zip(&sent).enumerate() {
            c.check(format!("sentence {key} line {i}"), *e, s.score);
        }
    }
    c.finish();
}

#[test]
fn nltk_bleu_all_configurations() {
    let f = fixture();
    let mut c = Checker::new("nltk bleu");
    let hyp_toks: Vec<Vec<&str>> = f.hyps.iter().map(|h| split_whitespace(h).collect()).collect();
    let ref_toks: Vec<Vec<Vec<&str>>> =
        f.refs.iter().map(|s| s.iter().map(|r| split_whitespace(r).collect()).collect()).collect();
    for config in f.expected["nltk_bleu"].as_array().unwrap() {
        let opts = NltkBleuOptions {
            weights: f64s(&config["weights"]),
            smoothing: Smoothing::parse(&config["smoothing"].to_string()).unwrap(),
            auto_reweigh: config["auto_reweigh"].as_bool().unwrap(),
        };
        let n = config["refs"].as_u64().unwrap() as usize;
        let label = format!("{:?} {:?} reweigh={} refs={n}", opts.weights, opts.smoothing, opts.auto_reweigh);
        let mut all_refs: Vec<Vec<&[&str]>> = Vec::new();
        for (i, expected) in config["per_line"].as_array().unwrap().iter().enumerate() {
            let refs: Vec<&[&str]> = ref_toks[..n].iter().map(|s| s[i].as_slice()).collect();
            let got = sentence_bleu::sentence_bleu(&refs, &hyp_toks[i], &opts);
            match expected.as_f64() {
                Some(e) => c.check(format!("{label} line {i}"), e, got.unwrap()),
                None => assert!(got.is_err(), "{label} line {i}: expected an error"),
            }
            all_refs.push(refs);
        }
        let hyps: Vec<&[&str]> = hyp_toks.iter().map(Vec::as_slice).collect();
        let got = sentence_bleu::corpus_bleu(&all_refs, &hyps, &opts);
        match config["corpus"].as_f64() {
            Some(e) => c.check(format!("{label} corpus"), e, got.unwrap()),
            None => assert!(got.is_err(), "{label} corpus: expected an error"),
        }
    }
    c.finish();
}

#[test]
fn rouge_l_with_and_without_stemmer() {
    let f = fixture();
    let mut c = Checker::new("rouge-l");
    for (name, stem) in [("nostem", false), ("stem", true)] {
        let scorer = RougeL::new(stem);
        let expected = f.expected[format!("rouge_l_{name}")].as_array().unwrap();
        for (i, e) in expected.iter().enumerate() {
            let s = scorer.score(&f.refs[0][i], &f.hyps[i]);
            c.check(format!("{name} P line {i}"), e[0].as_f64().unwrap(), s.precision);
            c.check(format!("{name} R line {i}"), e[1].as_f64().unwrap(), s.recall);
            c.check(format!("{name} F line {i}"), e[2].as_f64().unwrap(), s.fmeasure);
        }
        let multi = f64s(&f.expected[format!("rouge_l_{name}_multi")]);
        for (i, e) in multi.iter().enumerate() {
            let s = scorer.score_multi(&[&f.refs[0][i], &f.refs[1][i]], &f.hyps[i]);
            c.check(format!("{name} multi line {i}"), *e, s.fmeasure);
        }
    }
    c.finish();
}

#[test]
fn porter_stems_match_nltk() {
    let f = fixture();
    let stems = f.expected["porter"].as_object().unwrap();
    let wrong: Vec<String> = stems
        .iter()
        .filter(|(w, s)| porter::stem(w) != s.as_str().unwrap())
        .map(|(w, s)| format!("{w}: nltk {s}, quarry {}", porter::stem(w)))
        .collect();
    eprintln!("porter: {} words compared", stems.len());
    assert!(wrong.is_empty(), "{} wrong stems: {:#?}", wrong.len(), &wrong[..wrong.len().min(20)]);
}

fn check_meteor(key: &str, wordnet: Option<&WordNet>) {
    let f = fixture();
    let mut c = Checker::new(&format!("meteor {key}"));
    let m = Meteor::new(MeteorParams::default(), wordnet);
    let tok = |s: &String| -> Vec<String> { split_whitespace(s).map(str::to_string).collect() };
    for (i, e) in f64s(&f.expected[format!("meteor_{key}")]).iter().enumerate() {
        let h = tok(&f.hyps[i]);
        let r = tok(&f.refs[0][i]);
        let hs: Vec<&str> = h.iter().map(String::as_str).collect();
        let rs: Vec<&str> = r.iter().map(String::as_str).collect();
        c.check(format!("line {i}"), *e, m.single(&rs, &hs));
    }
    for (i, e) in f64s(&f.expected[format!("meteor_{key}_multi")]).iter().enumerate() {
        let h = tok(&f.hyps[i]);
        let r1 = tok(&f.refs[0][i]);
        let r2 = tok(&f.refs[1][i]);
        let hs: Vec<&str> = h.iter().map(String::as_str).collect();
        let r1s: Vec<&str> = r1.iter().map(String::as_str).collect();
        let r2s: Vec<&str> = r2.iter().map(String::as_str).collect();
        c.check(format!("multi line {i}"), *e, m.score(&[&r1s, &r2s], &hs));
    }
    c.finish();
}

#[test]
fn meteor_exact_and_stem() {
    check_meteor("exact_stem", None);
}

#[test]
fn meteor_with_wordnet() {
    let dir = WordNet::resolve_dir(None);
    if !WordNet::is_present(&dir) {
        eprintln!(
            "SKIPPED meteor_with_wordnet: no WordNet 3.0 files in {} (apt-get install wordnet-base)",
            dir.display()
        );
        return;
    }
    let wn = WordNet::open(&dir).expect("WordNet loads");
    check_meteor("wordnet", Some(&wn));
}

#[test]
fn squad_em_and_f1() {
    let f = fixture();
    let mut c = Checker::new("squad");
    let normalized = f.expected["squad_normalized"].as_array().unwrap();
    for (h, e) in f.hyps.iter().zip(normalized) {
        assert_eq!(squad::normalize_answer(h), e.as_str().unwrap(), "input {h:?}");
    }
    for (key, n) in [("one_ref", 1), ("two_refs", 2)] {
        let e = &f.expected[format!("squad_{key}")];
        let (em_lines, em) = squad::corpus(squad::exact_match, &f.hyps(), &f.streams(n)).unwrap();
        let (f1_lines, f1) = squad::corpus(squad::f1, &f.hyps(), &f.streams(n)).unwrap();
        c.check(format!("em {key}"), e["em"].as_f64().unwrap(), em);
        c.check(format!("f1 {key}"), e["f1"].as_f64().unwrap(), f1);
        for (i, (x, y)) in f64s(&e["em_per_line"]).iter().zip(&em_lines).enumerate() {
            c.check(format!("em {key} line {i}"), *x, *y);
        }
        for (i, (x, y)) in f64s(&e["f1_per_line"]).iter().zip(&f1_lines).enumerate() {
            c.check(format!("f1 {key} line {i}"), *x, *y);
        }
    }
    c.finish();
}

#[test]
fn codeqa_bleu_matches_script() {
    let f = fixture();
    let mut c = Checker::new("codeqa bleu");
    let e = &f.expected["codeqa_bleu"];
    let keep: Vec<usize> = e["indices"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect();
    let hyps: Vec<&str> = keep.iter().map(|&i| f.hyps[i].as_str()).collect();
    let streams: Vec<Vec<&str>> = f.refs.iter().map(|s| keep.iter().map(|&i| s[i].as_str()).collect()).collect();
    for (n, suffix) in [(1, ""), (2, "_two_refs")] {
        let (lines, mean) = codeqa_bleu::codeqa_bleu(&hyps, &streams[..n]).unwrap();
        c.check(format!("mean{suffix}"), e[format!("mean{suffix}")].as_f64().unwrap(), mean);
        for (i, (x, y)) in f64s(&e[format!("per_line{suffix}")]).iter().zip(&lines).enumerate() {
            c.check(format!("line {i}{suffix}"), *x, *y);
        }
    }
    // the script divides by zero on an empty reference; quarry reports an error
    assert!(codeqa_bleu::codeqa_bleu(&["a"], &[vec![""]]).is_err());
    c.finish();
}

#[test]
fn bm25_matches_rank_bm25() {
    let f = fixture();
    let mut c = Checker::new("bm25");
    let corpus: Vec<Vec<&str>> = f.refs[0][..300].iter().map(|r| split_whitespace(r).collect()).collect();
    let queries: Vec<Vec<&str>> = f.hyps[..40].iter().map(|h| split_whitespace(h).collect()).collect();
    for (key, v) in f.expected["bm25"].as_object().unwrap() {
        let mut params = Bm25Params::default();
        if let Some(k1) = v["params"]["k1"].as_f64() {
            params.k1 = k1;
        }
        if let Some(b) = v["params"]["b"].as_f64() {
            params.b = b;
        }
        let index = Bm25::new(&corpus, params).unwrap();
        for (qi, (q, expected)) in queries.iter().zip(v["scores"].as_array().unwrap()).enumerate() {
            for (d, (e, g)) in f64s(expected).iter().zip(index.scores(q)).enumerate() {
                c.check(format!("{key} query {qi} doc {d}"), *e, g);
            }
        }
    }
    c.finish();
}

#[test]
fn codeqa_rouge_matches_coco_caption_scorer() {
    let f = fixture();
    let mut c = Checker::new("codeqa rouge-l");
    let e = &f.expected["codeqa_rouge"];
    for (n, suffix) in [(1, ""), (2, "_two_refs")] {
        let (lines, mean) = codeqa_rouge::codeqa_rouge_l(&f.hyps(), &f.streams(n)).unwrap();
        c.check(format!("mean{suffix}"), e[format!("mean{suffix}")].as_f64().unwrap(), mean);
        for (i, (x, y)) in f64s(&e[format!("per_line{suffix}")]).iter().zip(&lines).enumerate() {
            c.check(format!("line {i}{suffix}"), *x, *y);
        }
    }
    c.finish();
}

#[test]
fn classification_matches_scikit_learn() {
    let f = fixture();
    let mut c = Checker::new("classification");
    let e = &f.expected["classification"];
    let strs =
        |v: &Value| -> Vec<String> { v.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_string()).collect() };
    let truth = strs(&e["truth"]);
    let pred = strs(&e["pred"]);
    let t: Vec<&str> = truth.iter().map(String::as_str).collect();
    let p: Vec<&str> = pred.iter().map(String::as_str).collect();
    let r = classification::classification_report(&t, &p).unwrap();
    assert_eq!(r.labels, strs(&e["labels"]));
    c.check("accuracy", e["accuracy"].as_f64().unwrap(), r.accuracy);
    c.check("macro f1", e["macro_f1"].as_f64().unwrap(), r.macro_f1);
    for (i, class) in r.per_class.iter().enumerate() {
        c.check(format!("precision {}", class.label), e["precision"][i].as_f64().unwrap(), class.precision);
        c.check(format!("recall {}", class.label), e["recall"][i].as_f64().unwrap(), class.recall);
        c.check(format!("f1 {}", class.label), e["f1"][i].as_f64().unwrap(), class.f1);
        assert_eq!(class.support as u64, e["support"][i].as_u64().unwrap());
    }
    let confusion: Vec<Vec<usize>> = e["confusion"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| row.as_array().unwrap().iter().map(|x| x.as_u64().unwrap() as usize).collect())
        .collect();
    assert_eq!(r.confusion, confusion);
    c.finish();
}

#[test]
fn line_sets_match_hotpotqa() {
    let f = fixture();
    let mut c = Checker::new("line sets");
    let e = &f.expected["line_sets"];
    let sets = |v: &Value| -> Vec<Vec<u64>> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).collect())
            .collect()
    };
    let gold = sets(&e["gold"]);
    let pred = sets(&e["pred"]);
    for (i, m) in e["per_example"].as_array().unwrap().iter().enumerate() {
        let s = lines::set_score(&pred[i], &gold[i]);
        c.check(format!("em {i}"), m["sp_em"].as_f64().unwrap(), s.em);
        c.check(format!("f1 {i}"), m["sp_f1"].as_f64().unwrap(), s.f1);
        c.check(format!("precision {i}"), m["sp_prec"].as_f64().unwrap(), s.precision);
        c.check(format!("recall {i}"), m["sp_recall"].as_f64().unwrap(), s.recall);
    }
    let mean = lines::mean_set_scores(&pred, &gold).unwrap();
    c.check("mean em", e["mean"]["sp_em"].as_f64().unwrap(), mean.em);
    c.check("mean f1", e["mean"]["sp_f1"].as_f64().unwrap(), mean.f1);
    c.check("mean precision", e["mean"]["sp_prec"].as_f64().unwrap(), mean.precision);
    c.check("mean recall", e["mean"]["sp_recall"].as_f64().unwrap(), mean.recall);
    c.finish();
}
