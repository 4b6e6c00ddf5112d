//! The whole pipeline: loading a model directory and turning text into a
//! [`Doc`], running the components in the config's order.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use rmpv::Value;
use rustc_hash::FxHashMap;

use crate::arc_eager::{deprojectivize, edges_and_sentences};
use crate::attribute_ruler::AttributeRuler;
use crate::config::{self, Config};
use crate::doc::{Doc, Token};
use crate::lemmatizer::{read_lookups, Lemmatizer};
use crate::lexeme::{is_space, Norms};
use crate::msgpack::ThincModel;
use crate::parser::Parser;
use crate::tagger::Tagger;
use crate::tok2vec::{Tok2Vec, TokenView};
use crate::tokenizer::{RawToken, Tokenizer};
use crate::NlpError;

/// The longest text, in characters, one call analyses (spaCy's default
/// `nlp.max_length`).
pub const MAX_CHARS: usize = 1_000_000;

#[derive(Debug)]
enum Step {
    Tok2Vec,
    Tagger(Tagger),
    Parser(Parser),
    AttributeRuler(AttributeRuler),
    Lemmatizer(Lemmatizer),
}

/// spaCy's English pipeline, loaded from a model directory.
#[derive(Debug)]
pub struct Pipeline {
    dir: PathBuf,
    tokenizer: Tokenizer,
    norms: Norms,
    tok2vec: Option<Tok2Vec>,
    steps: Vec<Step>,
    skipped: Vec<String>,
}

/// Finds the versioned model directory (the one with `config.cfg`) at or
/// up to two levels below `dir`, the nearest level first: the versioned
/// directory itself, the package directory above it, or the folder an
/// unzipped wheel was extracted to.
pub fn find_model_dir(dir: &Path) -> Result<PathBuf, NlpError> {
    if dir.join("config.cfg").is_file() {
        return Ok(dir.to_path_buf());
    }
    let children = subfolders(dir);
    let mut found: Vec<PathBuf> = children.iter().filter(|p| p.join("config.cfg").is_file()).cloned().collect();
    if found.is_empty() {
        found = children.iter().flat_map(|c| subfolders(c)).filter(|p| p.join("config.cfg").is_file()).collect();
    }
    found.sort();
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(NlpError::Missing { path: dir.join("config.cfg") }),
        _ => Err(NlpError::corrupt(dir, "several model directories below it; name one")),
    }
}

/// The folders directly in `dir` (none when it cannot be read).
fn subfolders(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect()
}

impl Pipeline {
    /// Loads the pipeline from a spaCy model directory: the versioned
    /// directory holding `config.cfg`, or the package directory above it.
    pub fn load(dir: &Path) -> Result<Pipeline, NlpError> {
        let dir = find_model_dir(dir)?;
        let cfg_path = dir.join("config.cfg");
        let text = String::from_utf8(crate::msgpack::read_bytes(&cfg_path)?)
            .map_err(|_| NlpError::corrupt(&cfg_path, "not UTF-8"))?;
        let cfg = Config::parse(&text, &cfg_path)?;
        require(&cfg_path, "language", cfg.get_str("nlp", "lang").unwrap_or_default(), "en")?;
        if let Some(t) = cfg.inline_entry("nlp", "tokenizer", "@tokenizers") {
            require(&cfg_path, "tokenizer", t, "spacy.Tokenizer.v1")?;
        }
        let pipeline = cfg.get_list("nlp", "pipeline");
        let disabled = cfg.get_list("nlp", "disabled");
        if pipeline.is_empty() {
            return Err(NlpError::corrupt(&cfg_path, "[nlp] pipeline is empty or missing"));
        }
        let tokenizer = Tokenizer::load(&dir.join("tokenizer"))?;
        let mut norm_table = FxHashMap::default();
        let lookups = dir.join("vocab").join("lookups.bin");
        if lookups.exists() {
            for (name, rows) in read_lookups(&lookups)? {
                if name == "lexeme_norm" {
                    for (k, v) in rows {
                        if let Value::String(s) = v {
                            if let Some(s) = s.into_str() {
                                norm_table.insert(k, s);
                            }
                        }
                    }
                }
            }
        }
        let mut tok2vec = None;
        let mut steps = Vec::new();
        let mut skipped = Vec::new();
        for name in &pipeline {
            if disabled.contains(name) {
                continue;
            }
            let section = format!("components.{name}");
            let factory = cfg.get_str(&section, "factory").unwrap_or_else(|| name.clone());
            if config::SKIPPED.contains(&factory.as_str()) {
                skipped.push(name.clone());
                continue;
            }
            if !config::FACTORIES.contains(&factory.as_str()) {
                return Err(NlpError::Unsupported {
                    path: cfg_path,
                    what: "component".into(),
                    name: factory,
                    supported: format!("{} (left out: {})", config::FACTORIES.join(", "), config::SKIPPED.join(", ")),
                });
            }
            config::check_architectures(&cfg, &section, &cfg_path)?;
            let cdir = dir.join(name);
            match factory.as_str() {
                "tok2vec" => {
                    config::require(
                        &cfg,
                        &format!("{section}.model.embed"),
                        "include_static_vectors",
                        "false",
                        &cfg_path,
                    )?;
                    let m = ThincModel::read(&cdir.join("model"))?;
                    tok2vec = Some(Tok2Vec::from_model(&m)?);
                    steps.push(Step::Tok2Vec);
                }
                "tagger" => {
                    listener_only(&cfg, &section, &cfg_path)?;
                    steps.push(Step::Tagger(Tagger::load(&cdir)?));
                }
                "parser" => {
                    listener_only(&cfg, &section, &cfg_path)?;
                    let m = format!("{section}.model");
                    config::require(&cfg, &m, "state_type", "parser", &cfg_path)?;
                    config::require(&cfg, &m, "extra_state_tokens", "false", &cfg_path)?;
                    config::require(&cfg, &m, "use_upper", "true", &cfg_path)?;
                    config::require(&cfg, &section, "learn_tokens", "false", &cfg_path)?;
                    steps.push(Step::Parser(Parser::load(&cdir)?));
                }
                "attribute_ruler" => {
                    steps.push(Step::AttributeRuler(AttributeRuler::load(&cdir.join("patterns"))?));
                }
                "lemmatizer" => {
                    config::require(&cfg, &section, "mode", "rule", &cfg_path)?;
                    steps.push(Step::Lemmatizer(Lemmatizer::load(&cdir.join("lookups").join("lookups.bin"))?));
                }
                _ => {}
            }
        }
        // The tagger and parser read the shared tok2vec's output.
        let width = tok2vec.as_ref().map(|t| t.width);
        for s in &steps {
            let need = match s {
                Step::Tagger(t) => Some(t.input_width()),
                Step::Parser(p) => Some(p.input_width()),
                _ => None,
            };
            if let Some(need) = need {
                if width != Some(need) {
                    return Err(NlpError::corrupt(
                        &cfg_path,
                        format!("a component reads {need}-wide token vectors but the tok2vec gives {width:?}"),
                    ));
                }
            }
        }
        Ok(Pipeline { dir, tokenizer, norms: Norms::new(norm_table), tok2vec, steps, skipped })
    }

    /// The model directory in use.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Components of the model that quarry does not run (NER).
    pub fn skipped(&self) -> &[String] {
        &self.skipped
    }

    /// The tokens of `text`, without any analysis beyond tokenization.
    pub fn tokenize(&self, text: &str) -> Vec<Token> {
        self.tokenizer.tokenize(text).into_iter().map(|t| bare_token(text, &t, 0, false)).collect()
    }

    /// Analyses one text.
    pub fn parse(&self, text: &str) -> Result<Doc, NlpError> {
        self.pipe(&[text]).pop().unwrap_or_else(|| Err(NlpError::Input("no result".into())))
    }

    /// Analyses many texts; each gets its own result. Texts go through the
    /// network in batches, which gives each the same result as alone.
    pub fn pipe(&self, texts: &[&str]) -> Vec<Result<Doc, NlpError>> {
        let never = AtomicBool::new(false);
        self.pipe_cancellable(texts, &never).unwrap_or_default()
    }

    /// [`Pipeline::pipe`] that stops once `cancel` is set (by any thread), checked
    /// before each component runs on each batch of texts and, inside the token
    /// vectors and the parser, after every thousand or so rows or moves: `None`
    /// when it stopped, else the same results.
    pub fn pipe_cancellable(&self, texts: &[&str], cancel: &AtomicBool) -> Option<Vec<Result<Doc, NlpError>>> {
        let mut out = Vec::with_capacity(texts.len());
        for chunk in texts.chunks(BATCH) {
            out.extend(self.pipe_batch(chunk, cancel)?);
        }
        Some(out)
    }

    /// One batch through every component; `None` once `cancel` is set.
    fn pipe_batch(&self, texts: &[&str], cancel: &AtomicBool) -> Option<Vec<Result<Doc, NlpError>>> {
        let cancelled = || cancel.load(Ordering::Relaxed);
        if cancelled() {
            return None;
        }
        let mut results: Vec<Result<Doc, NlpError>> = Vec::with_capacity(texts.len());
        let mut raws = Vec::new();
        let mut docs: Vec<Doc> = Vec::new();
        let mut slots = Vec::new();
        for (k, text) in texts.iter().enumerate() {
            let chars = text.chars().count();
            if chars > MAX_CHARS {
                results.push(Err(NlpError::Input(format!(
                    "text of {chars} characters is longer than the limit of {MAX_CHARS} (spaCy's max_length); split it"
                ))));
                continue;
            }
            let raw = self.tokenizer.tokenize(text);
            let tokens = raw.iter().enumerate().map(|(i, t)| bare_token(text, t, i, i == 0)).collect();
            results.push(Ok(Doc::default()));
            slots.push(k);
            raws.push(raw);
            docs.push(Doc { text: text.to_string(), tokens });
        }
        let lens: Vec<usize> = docs.iter().map(Doc::len).collect();
        let total: usize = lens.iter().sum();
        let mut tokvecs: Vec<f32> = Vec::new();
        let width = self.tok2vec.as_ref().map_or(0, |t| t.width);
        for step in &self.steps {
            if cancelled() {
                return None;
            }
            match step {
                Step::Tok2Vec => {
                    if let Some(t2v) = &self.tok2vec {
                        let views: Vec<Vec<TokenView>> = raws
                            .iter()
                            .zip(&docs)
                            .map(|(raw, doc)| {
                                raw.iter()
                                    .zip(&doc.tokens)
                                    .map(|(r, t)| TokenView { text: &t.text, norm: r.norm.as_deref(), space: r.space })
                                    .collect()
                            })
                            .collect();
                        tokvecs = t2v.forward_batch_cancellable(&views, &self.norms, cancel)?;
                    }
                }
                Step::Tagger(tagger) => {
                    if total > 0 && tokvecs.len() == total * width {
                        let tags = tagger.predict(&tokvecs, total);
                        for (t, tag) in docs.iter_mut().flat_map(|d| d.tokens.iter_mut()).zip(tags) {
                            t.tag = tagger.labels[tag].clone();
                        }
                    }
                }
                Step::Parser(parser) => {
                    if total > 0 && tokvecs.len() == total * width {
                        let cached = parser.precompute_cancellable(&tokvecs, total, cancel)?;
                        let feat = cached.len() / total;
                        let mut offset = 0;
                        for (doc, &n) in docs.iter_mut().zip(&lens) {
                            if n > 0 {
                                let parse = parser.decode_cancellable(
                                    &cached[offset * feat..(offset + n) * feat],
                                    n,
                                    cancel,
                                )?;
                                set_parse(doc, parse.heads, parse.deps);
                            }
                            offset += n;
                        }
                    }
                }
                Step::AttributeRuler(ruler) => {
                    for doc in docs.iter_mut() {
                        ruler.apply(&mut doc.tokens);
                    }
                }
                Step::Lemmatizer(lem) => {
                    for t in docs.iter_mut().flat_map(|d| d.tokens.iter_mut()) {
                        if t.lemma.is_empty() {
                            t.lemma = lem.lemmatize(&t.text, &t.pos, &t.morph);
                        }
                    }
                }
            }
        }
        for (k, doc) in slots.into_iter().zip(docs) {
            results[k] = Ok(doc);
        }
        Some(results)
    }
}

/// Texts that go through the network together.
const BATCH: usize = 256;

/// Puts a parse on a doc: labels deprojectivized, sentence starts from the
/// final heads.
fn set_parse(doc: &mut Doc, mut heads: Vec<usize>, mut deps: Vec<String>) {
    let spaces: Vec<bool> = doc.tokens.iter().map(|t| is_space(&t.text)).collect();
    deprojectivize(&mut heads, &mut deps, &spaces);
    let (_, _, starts) = edges_and_sentences(&heads);
    for (i, t) in doc.tokens.iter_mut().enumerate() {
        t.head = heads[i];
        t.dep = std::mem::take(&mut deps[i]);
        t.sent_start = starts[i];
    }
}

/// Fails unless the component reads the shared tok2vec through a listener.
fn listener_only(cfg: &Config, section: &str, path: &Path) -> Result<(), NlpError> {
    let s = format!("{section}.model.tok2vec");
    match cfg.get_str(&s, "@architectures").as_deref() {
        Some("spacy.Tok2VecListener.v1") | None => Ok(()),
        Some(other) => Err(NlpError::Unsupported {
            path: path.to_path_buf(),
            what: format!("architecture for [{s}] (components must share the tok2vec)"),
            name: other.to_string(),
            supported: "spacy.Tok2VecListener.v1".into(),
        }),
    }
}
/// A token of `text` as the tokenizer found it, before any analysis.
fn bare_token(text: &str, t: &RawToken, head: usize, sent_start: bool) -> Token {
    Token {
        text: text[t.start..t.end].to_string(),
        whitespace: if t.space { " ".into() } else { String::new() },
        tag: String::new(),
        pos: String::new(),
        morph: String::new(),
        lemma: String::new(),
        head,
        dep: String::new(),
        sent_start,
    }
}

/// An [`NlpError::Unsupported`] naming `found` unless it is the one `supported` value.
fn require(path: &Path, what: &str, found: String, supported: &str) -> Result<(), NlpError> {
    if found == supported {
        return Ok(());
    }
    Err(NlpError::Unsupported { path: path.to_path_buf(), what: what.into(), name: found, supported: supported.into() })
}
