//! Tokenizers from `tokenizer.json`, a WordPiece `vocab.txt`, BPE `vocab.json` + `merges.txt`, or
//! a SentencePiece model (T5's `spiece.model`, PLBART's `sentencepiece.bpe.model`), returning ids
//! and byte offsets.

use std::path::{Path, PathBuf};

use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::decoders::wordpiece::WordPiece as WordPieceDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::processors::bert::BertProcessing;
use tokenizers::processors::roberta::RobertaProcessing;

use crate::error::{ModelError, Result};

/// One tokenized text: ids, and the byte range of the text each token covers
/// (`(0, 0)` for special tokens).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Encoded {
    /// Token ids, special tokens included.
    pub ids: Vec<u32>,
    /// Byte offsets into the input text, one pair per id.
    pub offsets: Vec<(usize, usize)>,
    /// The token strings.
    pub tokens: Vec<String>,
}

/// A tokenizer with the special-token ids a model needs.
pub struct Tokenizer {
    inner: tokenizers::Tokenizer,
    source: PathBuf,
    pad_id: u32,
    unk_id: Option<u32>,
}

/// Checks that every special token a `TemplateProcessing` post-processor's `single` and
/// `pair` templates name is in its `special_tokens` table (also inside a `Sequence` of
/// processors): the tokenizers library reads such a file without complaint and then
/// panics on the first encoding.
fn check_template_special_tokens(processor: &serde_json::Value) -> std::result::Result<(), String> {
    match processor.get("type").and_then(|t| t.as_str()) {
        Some("Sequence") => {
            let processors = processor.get("processors").and_then(|p| p.as_array());
            processors.into_iter().flatten().try_for_each(check_template_special_tokens)
        }
        Some("TemplateProcessing") => {
            let table = processor.get("special_tokens").and_then(|t| t.as_object());
            for template in ["single", "pair"] {
                let pieces = processor.get(template).and_then(|p| p.as_array());
                for piece in pieces.into_iter().flatten() {
                    let Some(id) = piece.get("SpecialToken").and_then(|t| t.get("id")) else { continue };
                    let known = id.as_str().is_some_and(|id| table.is_some_and(|table| table.contains_key(id)));
                    if !known {
                        return Err(format!(
                            "post_processor: the {template} template names special token {id}, \
                             which is not in its special_tokens"
                        ));
                    }
                }
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// T5's SentencePiece model file (unigram).
const T5_SENTENCEPIECE: &str = "spiece.model";
/// PLBART's SentencePiece model file (BPE, fairseq's ids).
const PLBART_SENTENCEPIECE: &str = "sentencepiece.bpe.model";

fn tok_err(path: &Path, e: impl std::fmt::Display) -> ModelError {
    ModelError::Tokenizer(format!("{}: {e}", path.display()))
}

fn required_id(tok: &tokenizers::Tokenizer, path: &Path, names: &[&str]) -> Result<(String, u32)> {
    names
        .iter()
        .find_map(|n| tok.token_to_id(n).map(|id| (n.to_string(), id)))
        .ok_or_else(|| tok_err(path, format!("vocabulary has none of the tokens {names:?}")))
}

impl Tokenizer {
    /// Loads the tokenizer of a model directory (`tokenizer.json`, else `vocab.txt`,
    /// else `vocab.json` + `merges.txt`, else `spiece.model`, else `sentencepiece.bpe.model`),
    /// or a single tokenizer file given directly.
    pub fn from_path(path: &Path) -> Result<Self> {
        if path.is_file() {
            return match path.file_name().and_then(|n| n.to_str()) {
                Some(n) if n.ends_with(".txt") => Self::from_wordpiece_vocab(path, true),
                Some(T5_SENTENCEPIECE) => Self::from_t5_sentencepiece(path),
                Some(PLBART_SENTENCEPIECE) => Self::from_plbart_sentencepiece(path),
                _ => Self::from_tokenizer_json(path),
            };
        }
        let json = path.join("tokenizer.json");
        if json.is_file() {
            return Self::from_tokenizer_json(&json);
        }
        let vocab_txt = path.join("vocab.txt");
        if vocab_txt.is_file() {
            return Self::from_wordpiece_vocab(&vocab_txt, lowercase_setting(path));
        }
        let (vocab, merges) = (path.join("vocab.json"), path.join("merges.txt"));
        if vocab.is_file() && merges.is_file() {
            return Self::from_bpe(&vocab, &merges);
        }
        let t5 = path.join(T5_SENTENCEPIECE);
        if t5.is_file() {
            return Self::from_t5_sentencepiece(&t5);
        }
        let plbart = path.join(PLBART_SENTENCEPIECE);
        if plbart.is_file() {
            return Self::from_plbart_sentencepiece(&plbart);
        }
        Err(ModelError::MissingFile {
            dir: path.to_path_buf(),
            what: "tokenizer",
            looked_for: format!(
                "tokenizer.json, vocab.txt, vocab.json + merges.txt, {T5_SENTENCEPIECE}, {PLBART_SENTENCEPIECE}"
            ),
        })
    }

    /// Builds T5's tokenizer from a unigram SentencePiece `spiece.model`, with the ids of
    /// transformers' `T5Tokenizer` (the pieces, then `<extra_id_99>` … `<extra_id_0>`, or as
    /// many as the directory's `tokenizer_config.json` says in `extra_ids`; `… </s>`).
    pub fn from_t5_sentencepiece(path: &Path) -> Result<Self> {
        Self::from_sentencepiece(path, crate::sentencepiece::t5)
    }

    /// Builds PLBART's tokenizer from a BPE SentencePiece `sentencepiece.bpe.model`, with the
    /// ids of transformers' `PLBartTokenizer` (fairseq's: `<s>` 0, `<pad>` 1, `</s>` 2, `<unk>`
    /// 3, the pieces shifted by one, the language codes and `<mask>` after them; `… </s>`, then
    /// the `src_lang` code when the directory's `tokenizer_config.json` sets one).
    pub fn from_plbart_sentencepiece(path: &Path) -> Result<Self> {
        Self::from_sentencepiece(path, crate::sentencepiece::plbart)
    }

    /// Builds a tokenizer from a SentencePiece model file with `builder` and the directory's
    /// `tokenizer_config.json`.
    fn from_sentencepiece(
        path: &Path,
        builder: fn(
            &Path,
            &crate::sentencepiece::TokenizerConfig,
        ) -> std::result::Result<tokenizers::Tokenizer, String>,
    ) -> Result<Self> {
        let config = sentencepiece_config(path)?;
        let inner = crate::sentencepiece::build(path, |p| builder(p, &config)).map_err(|e| tok_err(path, e))?;
        Self::wrap(inner, path)
    }

    /// Loads a Hugging Face `tokenizer.json`.
    ///
    /// The `tokenizers` library panics instead of failing on some malformed files (found by
    /// the `hf_tokenizer` fuzz target): its decoder reader `expect`s on a JSON syntax error
    /// inside the `decoder` section, and encoding indexes a template's special tokens that
    /// its reader never checked. So the text is checked as JSON here first, template
    /// special tokens are checked against their table, and a panic that still escapes the
    /// library's reader becomes an error naming the file.
    pub fn from_tokenizer_json(path: &Path) -> Result<Self> {
        let mut text = String::new();
        quarry_syntax::read::open_regular_file(path)
            .and_then(|mut file| std::io::Read::read_to_string(&mut file, &mut text))
            .map_err(|e| tok_err(path, e))?;
        let json: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| tok_err(path, format!("not JSON: {e}")))?;
        if let Some(processor) = json.get("post_processor") {
            check_template_special_tokens(processor).map_err(|e| tok_err(path, e))?;
        }
        let read = std::panic::catch_unwind(|| text.parse::<tokenizers::Tokenizer>())
            .map_err(|_| tok_err(path, "not a tokenizer file the tokenizers library can read"))?;
        let inner = read.map_err(|e| tok_err(path, e))?;
        Self::wrap(inner, path)
    }

    /// Builds a BERT WordPiece tokenizer from a `vocab.txt` (one token per line), its special
    /// tokens (`[PAD]`, `[UNK]`, `[CLS]`, `[SEP]`, `[MASK]`, those the vocabulary has) split from
    /// the text as `BertTokenizer` splits them.
    pub fn from_wordpiece_vocab(path: &Path, lowercase: bool) -> Result<Self> {
        let file = path.to_str().ok_or_else(|| tok_err(path, "path is not UTF-8"))?;
        let model = WordPiece::from_file(file).unk_token("[UNK]".into()).build().map_err(|e| tok_err(path, e))?;
        let mut inner = tokenizers::Tokenizer::new(model);
        let sep = required_id(&inner, path, &["[SEP]"])?;
        let cls = required_id(&inner, path, &["[CLS]"])?;
        // BertTokenizer's special tokens are matched in the text before normalization.
        let specials =
            ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"].into_iter().filter(|t| inner.token_to_id(t).is_some());
        let specials: Vec<_> = specials.map(|t| tokenizers::AddedToken::from(t.to_string(), true)).collect();
        inner.add_special_tokens(specials).map_err(|e| tok_err(path, e))?;
        inner.with_normalizer(Some(BertNormalizer::new(true, true, None, lowercase))).map_err(|e| tok_err(path, e))?;
        inner.with_pre_tokenizer(Some(BertPreTokenizer));
        inner.with_post_processor(Some(BertProcessing::new(sep, cls)));
        inner.with_decoder(Some(WordPieceDecoder::default()));
        Self::wrap(inner, path)
    }

    /// Builds a RoBERTa byte-level BPE tokenizer from `vocab.json` and `merges.txt`, its
    /// special tokens (`<s>`, `<pad>`, `</s>`, `<unk>`, `<mask>`, those the vocabulary has) split
    /// from the text as `RobertaTokenizer` splits them.
    pub fn from_bpe(vocab: &Path, merges: &Path) -> Result<Self> {
        let v = vocab.to_str().ok_or_else(|| tok_err(vocab, "path is not UTF-8"))?;
        let m = merges.to_str().ok_or_else(|| tok_err(merges, "path is not UTF-8"))?;
        let model = BPE::from_file(v, m).build().map_err(|e| tok_err(vocab, e))?;
        let mut inner = tokenizers::Tokenizer::new(model);
        let sep = required_id(&inner, vocab, &["</s>"])?;
        let cls = required_id(&inner, vocab, &["<s>"])?;
        // RobertaTokenizer's special tokens are matched in the text before BPE.
        let specials =
            ["<s>", "<pad>", "</s>", "<unk>", "<mask>"].into_iter().filter(|t| inner.token_to_id(t).is_some());
        let specials: Vec<_> = specials.map(|t| tokenizers::AddedToken::from(t.to_string(), true)).collect();
        inner.add_special_tokens(specials).map_err(|e| tok_err(vocab, e))?;
        inner.with_pre_tokenizer(Some(ByteLevel::new(false, true, true)));
        inner.with_post_processor(Some(RobertaProcessing::new(sep, cls).trim_offsets(true).add_prefix_space(false)));
        inner.with_decoder(Some(ByteLevelDecoder::default()));
        Self::wrap(inner, vocab)
    }

    fn wrap(mut inner: tokenizers::Tokenizer, source: &Path) -> Result<Self> {
        // Batching pads and `encode` truncates; settings stored in the file would interfere.
        inner.with_padding(None);
        inner.with_truncation(None).map_err(|e| tok_err(source, e))?;
        let pad_id = ["[PAD]", "<pad>"].iter().find_map(|t| inner.token_to_id(t)).unwrap_or(0);
        let unk_id = ["[UNK]", "<unk>"].iter().find_map(|t| inner.token_to_id(t));
        Ok(Tokenizer { inner, source: source.to_path_buf(), pad_id, unk_id })
    }

    /// The file the tokenizer was loaded from.
    pub fn source(&self) -> &Path {
        &self.source
    }

    /// Number of ids, added tokens included.
    pub fn vocab_size(&self) -> usize {
        self.inner.get_vocab_size(true)
    }

    /// One more than the largest id of the model's own vocabulary (added tokens left out):
    /// the embedding rows every ordinary text may need.
    pub fn base_vocab_end(&self) -> usize {
        self.inner.get_vocab(false).into_values().max().map_or(0, |id| id as usize + 1)
    }

    /// Id of the padding token (`[PAD]` or `<pad>`; 0 when neither exists).
    pub fn pad_id(&self) -> u32 {
        self.pad_id
    }

    /// Id of the unknown token, if the vocabulary has one.
    pub fn unk_id(&self) -> Option<u32> {
        self.unk_id
    }

    /// The id of an exact vocabulary entry.
    pub fn token_id(&self, token: &str) -> Option<u32> {
        self.inner.token_to_id(token)
    }

    /// Maps already-split tokens to ids, unknown ones to the unknown token.
    pub fn ids_of_tokens<S: AsRef<str>>(&self, tokens: &[S]) -> Result<Vec<u32>> {
        tokens
            .iter()
            .map(|t| {
                self.token_id(t.as_ref()).or(self.unk_id).ok_or_else(|| {
                    ModelError::Tokenizer(format!(
                        "token '{}' is not in the vocabulary of {}, which has no unknown token",
                        t.as_ref(),
                        self.source.display()
                    ))
                })
            })
            .collect()
    }

    /// Tokenizes `text` with special tokens, truncating to `max_len` ids when given: as
    /// transformers truncates, the text's tokens are cut and every special token the
    /// post-processor adds is kept (PLBART's `… </s> __java__` keeps both ends), unless
    /// `max_len` leaves no room for them.
    pub fn encode(&self, text: &str, max_len: Option<usize>) -> Result<Encoded> {
        let mut enc = self.inner.encode(text, false).map_err(|e| self.encode_error(e))?;
        if let Some(max) = max_len {
            let added =
                self.inner.get_post_processor().map_or(0, |p| tokenizers::PostProcessor::added_tokens(p, false));
            if enc.len() + added > max && max >= added {
                enc.truncate(max - added, 0, tokenizers::TruncationDirection::Right);
                enc.take_overflowing();
            }
        }
        let enc = self.inner.post_process(enc, None, true).map_err(|e| self.encode_error(e))?;
        Ok(Encoded {
            ids: enc.get_ids().to_vec(),
            offsets: enc.get_offsets().to_vec(),
            tokens: enc.get_tokens().to_vec(),
        })
    }

    /// An error of the tokenizers library while encoding, naming the tokenizer's file.
    fn encode_error(&self, e: impl std::fmt::Display) -> ModelError {
        tok_err(&self.source, e)
    }

    /// Tokenizes `text` without special tokens (offsets are byte ranges of `text`).
    pub fn encode_plain(&self, text: &str) -> Result<Encoded> {
        let enc = self.inner.encode(text, false).map_err(|e| self.encode_error(e))?;
        Ok(Encoded {
            ids: enc.get_ids().to_vec(),
            offsets: enc.get_offsets().to_vec(),
            tokens: enc.get_tokens().to_vec(),
        })
    }

    /// The ids of `text` without special tokens and without truncation (what a Hugging Face
    /// tokenizer's `convert_tokens_to_ids(tokenize(text))` gives).
    pub fn tokenize_ids(&self, text: &str) -> Result<Vec<u32>> {
        let enc = self.inner.encode(text, false).map_err(|e| self.encode_error(e))?;
        Ok(enc.get_ids().to_vec())
    }

    /// The text of `ids` through the tokenizer's decoder (WordPiece `##` joins, byte-level
    /// BPE bytes), special tokens dropped.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.inner.decode(ids, true).map_err(|e| ModelError::Tokenizer(e.to_string()))
    }

    /// The ids of the sequence start and end tokens (`[CLS]`/`[SEP]` or `<s>`/`</s>`).
    pub fn cls_sep_ids(&self) -> Result<(u32, u32)> {
        let find = |names: &[&str]| {
            names.iter().find_map(|n| self.token_id(n)).ok_or_else(|| {
                ModelError::Tokenizer(format!("{}: vocabulary has none of the tokens {names:?}", self.source.display()))
            })
        };
        Ok((find(&["[CLS]", "<s>"])?, find(&["[SEP]", "</s>"])?))
    }

    /// Writes the tokenizer as a `tokenizer.json`, atomically (a run stopped while it is
    /// written leaves the previous file, never half of the new one).
    pub fn save(&self, path: &Path) -> Result<()> {
        let json = self.inner.to_string(false).map_err(|e| tok_err(path, e))?;
        Ok(quarry_stdx::write_atomically(path, json.as_bytes())?)
    }
}

/// The `tokenizer_config.json` beside a SentencePiece model file, if there is one.
fn sentencepiece_config(model: &Path) -> Result<crate::sentencepiece::TokenizerConfig> {
    let path = model.with_file_name("tokenizer_config.json");
    if !path.is_file() {
        return Ok(Default::default());
    }
    let text =
        quarry_stdx::read::read_text(&path, quarry_stdx::read::MAX_TEXT_FILE_BYTES).map_err(|e| tok_err(&path, e))?;
    serde_json::from_str(&text).map_err(|e| tok_err(&path, format!("not a tokenizer config: {e}")))
}

fn lowercase_setting(dir: &Path) -> bool {
    quarry_stdx::read::read_text(&dir.join("tokenizer_config.json"), quarry_stdx::read::MAX_TEXT_FILE_BYTES)
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| v.get("do_lower_case").and_then(|b| b.as_bool()))
        .unwrap_or(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocab_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("quarry-model-tok-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("vocab.txt"), "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\n##s\nfoo\n").unwrap();
        dir
    }

    /// Found by the `hf_tokenizer` fuzz target: control characters inside a key of the
    /// `decoder` section made the tokenizers library panic ("Helper") instead of failing.
    #[test]
    fn a_control_character_in_the_decoder_section_is_an_error_not_a_panic() {
        let dir = std::env::temp_dir().join(format!("quarry-model-tok-ctrl-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("tokenizer.json");
        let json = concat!(
            r#"{"version": "1.0", "truncation": null, "padding": null, "added_tokens": [], "normalizer": null, "#,
            r#""pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}, "#,
            r#""post_processor": null, "decoder": {"type": "ByteLevel", "add_prefix_space"#,
            "\u{0}\u{0}\u{c}A",
            r#"": true, "trim_offsets": true, "use_regex": true}, "model": {"type": "BPE", "dropout": null, "#,
            r#""unk_token": null, "continuing_subword_prefix": "", "end_of_word_suffix": "", "fuse_unk": false, "#,
            r#""byte_fallback": false, "vocab": {"d": 0, "e": 1}, "merges": []}}"#
        );
        std::fs::write(&path, json).unwrap();
        let Err(error) = Tokenizer::from_tokenizer_json(&path) else { panic!("a malformed file loaded") };
        let error = error.to_string();
        assert!(error.contains("tokenizer.json") && error.contains("not JSON"), "{error}");
        // The same file without the control characters loads.
        std::fs::write(&path, json.replace("\u{0}\u{0}\u{c}A", "")).unwrap();
        assert!(Tokenizer::from_tokenizer_json(&path).is_ok());
    }

    /// Found by the `hf_tokenizer` fuzz target: a template naming a special token missing
    /// from its table loaded, then made the tokenizers library panic on encoding.
    #[test]
    fn a_template_naming_an_unknown_special_token_is_an_error() {
        let dir = vocab_dir("template");
        let tok = Tokenizer::from_path(&dir).unwrap();
        let json = dir.join("tokenizer.json");
        tok.save(&json).unwrap();
        let mut value: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        value["post_processor"] = serde_json::json!({
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                               "[[EP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}
        });
        std::fs::write(&json, value.to_string()).unwrap();
        let Err(error) = Tokenizer::from_tokenizer_json(&json) else { panic!("a broken template loaded") };
        assert!(error.to_string().contains("special token \"[SEP]\""), "{error}");
        // With the table entry spelled right, it loads and encodes.
        let fixed = value.to_string().replace("[[EP]", "[SEP]");
        std::fs::write(&json, fixed).unwrap();
        let tok = Tokenizer::from_tokenizer_json(&json).unwrap();
        assert_eq!(tok.encode("hello", None).unwrap().ids, vec![2, 4, 3]);
    }

    #[test]
    fn wordpiece_vocab_gives_ids_and_byte_offsets() {
        let dir = vocab_dir("wp");
        let tok = Tokenizer::from_path(&dir).unwrap();
        let enc = tok.encode("Hello worlds zzz", None).unwrap();
        assert_eq!(enc.ids, vec![2, 4, 5, 6, 1, 3]);
        assert_eq!(enc.offsets[1], (0, 5));
        assert_eq!(enc.offsets[2], (6, 11));
        assert_eq!(enc.offsets[3], (11, 12));
        assert_eq!(tok.pad_id(), 0);
        let short = tok.encode("hello world foo", Some(3)).unwrap();
        assert_eq!(short.ids, vec![2, 4, 3]);
        assert_eq!(tok.ids_of_tokens(&["foo", "bar"]).unwrap(), vec![7, 1]);
        // Saved as tokenizer.json, it loads back identically.
        let json = dir.join("tokenizer.json");
        tok.save(&json).unwrap();
        let again = Tokenizer::from_path(&json).unwrap();
        assert_eq!(again.encode("Hello worlds zzz", None).unwrap(), enc);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_tokenizer_is_a_clear_error() {
        let dir = std::env::temp_dir().join(format!("quarry-model-tok-none-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let err = Tokenizer::from_path(&dir).err().unwrap().to_string();
        assert!(err.contains("tokenizer.json"), "{err}");
        // A SentencePiece file that is not one is an error naming it.
        std::fs::write(dir.join("spiece.model"), b"not read").unwrap();
        let err = Tokenizer::from_path(&dir).err().unwrap().to_string();
        assert!(err.contains("spiece.model") && err.contains("not a SentencePiece model"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
