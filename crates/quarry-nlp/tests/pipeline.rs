//! quarry-nlp against the real model (en_core_web_sm 3.8). `scripts/test`
//! fetches the model and sets QUARRY_SPACY_MODEL_DIR; without it these
//! tests skip with a message.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use quarry_nlp::{NlpError, Pipeline};

fn model_dir() -> Option<PathBuf> {
    quarry_stdx::skip::path_from_env("QUARRY_SPACY_MODEL_DIR", concat!(env!("CARGO_PKG_NAME"), "::", module_path!()))
}

fn pipeline() -> Option<&'static Pipeline> {
    static P: OnceLock<Option<Pipeline>> = OnceLock::new();
    P.get_or_init(|| {
        let dir = model_dir()?;
        Some(Pipeline::load(&dir).unwrap_or_else(|e| panic!("loading {}: {e}", dir.display())))
    })
    .as_ref()
}

fn texts(p: &Pipeline, s: &str) -> Vec<String> {
    p.tokenize(s).into_iter().map(|t| t.text).collect()
}

#[test]
fn tokenizer_special_cases() {
    let Some(p) = pipeline() else { return };
    assert_eq!(
        texts(p, "Don't stop, I'm sure we can't."),
        ["Do", "n't", "stop", ",", "I", "'m", "sure", "we", "ca", "n't", "."]
    );
    assert_eq!(texts(p, "Visit http://example.com/a?b=1 now."), ["Visit", "http://example.com/a?b=1", "now", "."]);
    assert_eq!(texts(p, "(hello) world..."), ["(", "hello", ")", "world", "..."]);
    // "x:)" needs the special-case matcher: the affix rules split ":)".
    assert_eq!(texts(p, "U.S. e.g. 3.5kg x:)"), ["U.S.", "e.g.", "3.5", "kg", "x", ":)"]);
    assert_eq!(texts(p, "naïve café — “quoted”"), ["naïve", "café", "—", "“", "quoted", "”"]);
    // Runs of whitespace beyond one space are tokens of their own.
    let toks = p.tokenize("a  b\n\nc ");
    let shown: Vec<(&str, &str)> = toks.iter().map(|t| (t.text.as_str(), t.whitespace.as_str())).collect();
    assert_eq!(shown, [("a", " "), (" ", ""), ("b", ""), ("\n\n", ""), ("c", " ")]);
}

#[derive(serde::Deserialize)]
struct Fixture {
    docs: Vec<quarry_nlp::Doc>,
}

#[test]
fn parse_matches_spacy_fixture() {
    let Some(p) = pipeline() else { return };
    let raw = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/spacy_parse.json"))
        .expect("fixture");
    let fixture: Fixture = serde_json::from_str(&raw).expect("fixture JSON");
    for want in &fixture.docs {
        let got = p.parse(&want.text).expect("parse");
        assert_eq!(got.len(), want.len(), "token count of {:?}", want.text);
        for (i, (g, w)) in got.tokens.iter().zip(&want.tokens).enumerate() {
            assert_eq!(g, w, "token {i} of {:?}", want.text);
        }
    }
}

#[test]
fn batch_equals_single() {
    let Some(p) = pipeline() else { return };
    let inputs = ["Returns the value.", "", "Two sentences here. And another one"];
    let batch = p.pipe(&inputs);
    for (text, doc) in inputs.iter().zip(batch) {
        assert_eq!(doc.expect("parse"), p.parse(text).expect("parse"));
    }
}

#[test]
fn a_cancelled_pipe_stops_and_an_uncancelled_one_equals_pipe() {
    use std::sync::atomic::AtomicBool;
    let Some(p) = pipeline() else { return };
    let inputs: Vec<String> = (0..300).map(|i| format!("Returns the value {i}. Opens a file.")).collect();
    let inputs: Vec<&str> = inputs.iter().map(String::as_str).collect();
    let whole = p.pipe_cancellable(&inputs, &AtomicBool::new(false)).expect("not cancelled");
    let plain: Vec<_> = p.pipe(&inputs).into_iter().map(|d| d.expect("parse")).collect();
    assert_eq!(whole.into_iter().map(|d| d.expect("parse")).collect::<Vec<_>>(), plain);
    assert!(p.pipe_cancellable(&inputs, &AtomicBool::new(true)).is_none());
}

#[test]
fn a_long_text_computed_in_pieces_equals_itself_beside_another() {
    // The token vectors and the parser's lower layer are computed a thousand or so rows at a
    // time; a short text before the long one moves every piece boundary, and the long
    // text's analysis may not change.
    let Some(p) = pipeline() else { return };
    let long = "Returns the value of the line, then opens the file and reads it. ".repeat(250);
    let alone = p.parse(&long).expect("parse");
    assert!(alone.len() > 3000);
    let beside = p.pipe(&["A short one, seven tokens.", &long]).pop().expect("two results").expect("parse");
    assert_eq!(beside, alone);
}

#[test]
fn a_long_text_stops_soon_after_it_is_cancelled() {
    // One text of 24,000 tokens: cancelled a third of the way in (inside the token vectors,
    // the longest component), the pipe returns within a small share of the whole run rather
    // than at the end of the component.
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::{Duration, Instant};
    let Some(p) = pipeline() else { return };
    let text = ["reads values"; 12_000].join(" ");
    let start = Instant::now();
    p.pipe(&[&text]).pop().expect("a result").expect("parse");
    let whole = start.elapsed();
    let cancel = AtomicBool::new(false);
    let (stopped, lag) = std::thread::scope(|scope| {
        let setter = scope.spawn(|| {
            std::thread::sleep(whole / 3);
            cancel.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let result = p.pipe_cancellable(&[&text], &cancel);
        let returned = Instant::now();
        let set = setter.join().expect("setter");
        (result.is_none(), returned.saturating_duration_since(set))
    });
    assert!(stopped, "the run finished before it was cancelled ({whole:?} alone)");
    assert!(
        lag < whole / 8 + Duration::from_millis(20),
        "stopped {lag:?} after the cancel; the whole run takes {whole:?}"
    );
}

#[test]
fn awkward_input_gets_a_result_or_an_error() {
    let Some(p) = pipeline() else { return };
    assert!(p.parse("").expect("empty").is_empty());
    assert!(p.parse("   ").expect("spaces").len() == 1);
    let ctl = "\u{0}\u{7} bell\u{1b}[0m ok\u{1c}x";
    let doc = p.parse(ctl).expect("control characters");
    let rebuilt: String = doc.tokens.iter().map(|t| format!("{}{}", t.text, t.whitespace)).collect();
    assert_eq!(rebuilt, ctl);
    // One megabyte on one line is over spaCy's max_length: a clear error.
    let big = "word ".repeat(1 << 18);
    match p.parse(&big) {
        Err(NlpError::Input(msg)) => assert!(msg.contains("limit"), "{msg}"),
        other => panic!("expected an input error, got {:?}", other.map(|d| d.len())),
    }
    // A long run of one character must not be quadratic.
    let start = std::time::Instant::now();
    let doc = p.parse(&")".repeat(20_000)).expect("long run");
    assert_eq!(doc.len(), 20_000);
    assert!(start.elapsed().as_secs() < 60);
}

/// A copy of the model directory (symlinks) where `edit` may replace files.
fn model_copy(edit: impl FnOnce(&Path)) -> Option<(tempfile::TempDir, PathBuf)> {
    let src = quarry_nlp::pipeline::find_model_dir(&model_dir()?).expect("model dir");
    let tmp = tempfile::tempdir().expect("tempdir");
    let dst = tmp.path().join("model");
    copy_tree(&src, &dst);
    edit(&dst);
    Some((tmp, dst))
}

fn copy_tree(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).expect("mkdir");
    for e in std::fs::read_dir(src).expect("read_dir").flatten() {
        let p = e.path();
        let d = dst.join(e.file_name());
        if p.is_dir() {
            copy_tree(&p, &d);
        } else {
            std::fs::copy(&p, &d).expect("copy");
        }
    }
}

#[test]
fn missing_file_is_named() {
    let Some((_tmp, dir)) = model_copy(|d| std::fs::remove_file(d.join("tagger/model")).expect("rm")) else { return };
    let err = Pipeline::load(&dir).expect_err("must fail");
    assert!(matches!(err, NlpError::Missing { .. }), "{err}");
    assert!(err.to_string().contains("tagger/model"), "{err}");
}

#[test]
fn truncated_files_are_named() {
    for file in
        ["parser/model", "tok2vec/model", "tokenizer", "attribute_ruler/patterns", "lemmatizer/lookups/lookups.bin"]
    {
        let Some((_tmp, dir)) = model_copy(|d| {
            let p = d.join(file);
            let bytes = std::fs::read(&p).expect("read");
            std::fs::write(&p, &bytes[..bytes.len() / 2]).expect("write");
        }) else {
            return;
        };
        let err = Pipeline::load(&dir).expect_err("must fail");
        assert!(err.to_string().contains(file), "{file}: {err}");
    }
}

#[test]
fn unsupported_architecture_and_component_are_refused() {
    let edit = |from: &'static str, to: &'static str| {
        move |d: &Path| {
            let p = d.join("config.cfg");
            let cfg = std::fs::read_to_string(&p).expect("read").replace(from, to);
            std::fs::write(&p, cfg).expect("write");
        }
    };
    let Some((_tmp, dir)) = model_copy(edit("spacy.Tagger.v2", "spacy.Tagger.v9")) else { return };
    let err = Pipeline::load(&dir).expect_err("must fail").to_string();
    assert!(err.contains("spacy.Tagger.v9") && err.contains("spacy.Tagger.v2") && err.contains("config.cfg"), "{err}");
    let Some((_tmp, dir)) = model_copy(edit("factory = \"lemmatizer\"", "factory = \"entity_linker\"")) else { return };
    let err = Pipeline::load(&dir).expect_err("must fail").to_string();
    assert!(err.contains("entity_linker") && err.contains("tagger"), "{err}");
}

#[test]
fn loads_from_the_package_directory_too() {
    let Some(dir) = model_dir() else { return };
    let Some(parent) = dir.parent() else { return };
    if !parent.join("__init__.py").exists() {
        quarry_stdx::skip::skip(
            concat!(env!("CARGO_PKG_NAME"), "::", module_path!()),
            &format!("{} is not a package directory", parent.display()),
        );
        return;
    }
    let p = Pipeline::load(parent).expect("package directory loads");
    assert_eq!(p.skipped(), ["ner"]);
    assert_eq!(p.parse("It works.").expect("parse").tokens[1].lemma, "work");
}

// A `Pipeline` can be shared between threads: checked when this file compiles (a test
// would have nothing left to assert at run time).
const _: fn() = || {
    fn shared<T: Send + Sync>() {}
    shared::<Pipeline>();
};

#[test]
fn deeply_nested_punctuation_tokenizes_quickly() {
    let Some(p) = pipeline() else { return };
    // One whitespace span: the affix rules strip a `(` and a `)` per round.
    // Each round's suffix search used to run the backtracking engine from
    // every start of its 256-byte window (5.5 s for this depth in a test
    // build); it now starts where the automaton finds the first possible match.
    let depth = 16_000;
    let text = format!("{}word{}", "(".repeat(depth), ")".repeat(depth));
    let start = std::time::Instant::now();
    let tokens = texts(p, &text);
    let elapsed = start.elapsed();
    assert_eq!(tokens.len(), 2 * depth + 1);
    assert_eq!(tokens[depth], "word");
    assert!(elapsed < std::time::Duration::from_secs(3), "{elapsed:?}");
}

#[test]
fn the_model_directory_is_found_up_to_two_levels_below_the_folder_given() {
    let root = tempfile::tempdir().unwrap();
    // An unzipped wheel: package folder, versioned model folder, and the dist-info beside them.
    let model = root.path().join("en_core_web_sm/en_core_web_sm-3.8.0");
    std::fs::create_dir_all(&model).unwrap();
    std::fs::create_dir_all(root.path().join("en_core_web_sm-3.8.0.dist-info")).unwrap();
    std::fs::write(model.join("config.cfg"), "").unwrap();
    let find = quarry_nlp::pipeline::find_model_dir;
    for given in [root.path().to_path_buf(), root.path().join("en_core_web_sm"), model.clone()] {
        assert_eq!(find(&given).unwrap(), model, "from {}", given.display());
    }
    // A nearer model wins; two at the same level are refused.
    std::fs::create_dir_all(root.path().join("near")).unwrap();
    std::fs::write(root.path().join("near/config.cfg"), "").unwrap();
    assert_eq!(find(root.path()).unwrap(), root.path().join("near"));
    std::fs::create_dir_all(root.path().join("other")).unwrap();
    std::fs::write(root.path().join("other/config.cfg"), "").unwrap();
    assert!(find(root.path()).is_err());
    assert!(find(&root.path().join("missing")).is_err());
}
