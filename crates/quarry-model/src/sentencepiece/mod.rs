//! SentencePiece model files as `tokenizers` tokenizers: T5's unigram `spiece.model` as
//! transformers' `T5Tokenizer` reads it, and PLBART's BPE `sentencepiece.bpe.model` with
//! fairseq's ids as `PLBartTokenizer` reads it.
//!
//! Each is assembled the way transformers assembles the same file (`T5Tokenizer.__init__`;
//! `SpmConverter.build_tokenizer_from_spm_proto` in `convert_slow_tokenizer.py`, which follows
//! the model's own normalizer settings so that it encodes as `SentencePieceProcessor.encode`
//! does, which `PLBartTokenizer` calls). BPE merges are every pair of normal pieces whose
//! concatenation is a normal piece, ranked by that piece's score (then id), which is the order
//! in which SentencePiece's BPE merges. The one case where the two could part: SentencePiece
//! breaks a tie between equal-score candidates by position (leftmost first), the `tokenizers`
//! BPE by rank; equal scores arise only for two different splits of one piece present in one
//! word at once, and the order matters only when a merge at one place then enables a
//! higher-scoring merge overlapping the other. It did not occur on 1,000 held-out snippets nor
//! on 100,000 texts glued from short random pieces (`parity/tokenizer_parity.py --stress`), so
//! the encoding is not written by hand.
//!
//! T5's unigram side equals `T5Tokenizer`, which is the `tokenizers` Unigram model too. Both
//! part from the `sentencepiece` package's own `encode` only where two segmentations are made
//! of the same pieces in another order, so that their scores tie exactly: SentencePiece sums a
//! path's scores in `f32`, whose rounding then picks one, `tokenizers` in `f64`, where they tie
//! and the first found is kept (8 of those 100,000 texts, none of the 1,000 snippets; the
//! crate's README has the counts).

mod charsmap;
mod proto;

use std::path::Path;

use tokenizers::decoders::byte_fallback::ByteFallback;
use tokenizers::decoders::fuse::Fuse;
use tokenizers::decoders::metaspace::{Metaspace, PrependScheme};
use tokenizers::decoders::sequence::Sequence as DecoderSequence;
use tokenizers::decoders::strip::Strip;
use tokenizers::models::bpe::{Vocab, BPE};
use tokenizers::models::unigram::Unigram;
use tokenizers::normalizers::{Precompiled, Replace, Sequence as NormalizerSequence};
use tokenizers::pre_tokenizers::sequence::Sequence as PreTokenizerSequence;
use tokenizers::pre_tokenizers::split::{Split, SplitPattern};
use tokenizers::pre_tokenizers::whitespace::WhitespaceSplit;
use tokenizers::processors::template::TemplateProcessing;
use tokenizers::{AddedToken, DecoderWrapper, NormalizerWrapper, PreTokenizerWrapper, SplitDelimiterBehavior};

use proto::{ModelProto, Piece};

/// The largest model file read (released ones are under 6 MB).
const MAX_MODEL_BYTES: u64 = 256 << 20;

/// T5's sentinel tokens, `<extra_id_0>` … `<extra_id_99>`, as `T5Tokenizer` adds them by default.
const T5_EXTRA_IDS: usize = 100;
/// The most sentinel tokens a `tokenizer_config.json` may ask for.
const MAX_EXTRA_IDS: usize = 10_000;

/// PLBART's language codes for `language_codes` `base` and `multi` (`FAIRSEQ_LANGUAGE_CODES`).
const PLBART_BASE_CODES: [&str; 3] = ["__java__", "__python__", "__en_XX__"];
const PLBART_MULTI_CODES: [&str; 7] =
    ["__java__", "__python__", "__en_XX__", "__javascript__", "__php__", "__ruby__", "__go__"];

/// fairseq's first four ids, which PLBART's vocabulary starts with.
const FAIRSEQ_SPECIALS: [&str; 4] = ["<s>", "<pad>", "</s>", "<unk>"];

type Built = Result<tokenizers::Tokenizer, String>;

/// Runs one of this module's builders on `path`; a panic that still escapes the tokenizers
/// library's constructors becomes an error rather than ending the process.
pub fn build(path: &Path, builder: impl FnOnce(&Path) -> Built) -> Built {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| builder(path)))
        .unwrap_or_else(|_| Err("not a SentencePiece model the tokenizers library can use".into()))
}

/// Reads and decodes a model file, checking what the tokenizers library would index unchecked.
fn read_model(path: &Path) -> Result<ModelProto, String> {
    let bytes = quarry_stdx::read::read_bytes(path, MAX_MODEL_BYTES).map_err(|e| e.to_string())?;
    let model = ModelProto::decode_file(&bytes)?;
    if model.pieces.is_empty() {
        return Err("the model has no pieces".into());
    }
    if let Some((id, _)) = model.pieces.iter().enumerate().find(|(_, p)| !p.score.unwrap_or(0.0).is_finite()) {
        return Err(format!("piece {id} has a score that is not a finite number"));
    }
    if let Some(map) = model.normalizer().charsmap() {
        charsmap::check(map)?;
    }
    Ok(model)
}

fn text(piece: &Piece) -> &str {
    piece.piece.as_deref().unwrap_or("")
}

fn score(piece: &Piece) -> f64 {
    f64::from(piece.score.unwrap_or(0.0))
}

fn special(token: &str) -> AddedToken {
    AddedToken::from(token.to_string(), true)
}

fn token_id(tok: &tokenizers::Tokenizer, token: &str) -> Result<u32, String> {
    tok.token_to_id(token).ok_or_else(|| format!("the vocabulary has no {token}"))
}

/// The unigram model of `vocab` (`(piece, score)` by id), `unk_id` the unknown piece's id.
fn unigram(vocab: Vec<(String, f64)>, unk_id: i32, byte_fallback: bool) -> Result<Unigram, String> {
    let unk = usize::try_from(unk_id).ok().filter(|&id| id < vocab.len());
    let unk = unk.ok_or_else(|| format!("its unknown piece's id {unk_id} is not in the vocabulary"))?;
    Unigram::from(vocab, Some(unk), byte_fallback).map_err(|e| e.to_string())
}

/// T5's tokenizer from a unigram `spiece.model`, as `T5Tokenizer` builds it: the pieces, then
/// `<extra_id_99>` … `<extra_id_0>` (`extra_ids` of them, 100 by default); the `Precompiled`
/// normalizer of the model's character map; whitespace split, each word prefixed by `▁`;
/// `$A </s>`.
pub fn t5(path: &Path, config: &TokenizerConfig) -> Built {
    let extra_ids = config.extra_ids.unwrap_or(T5_EXTRA_IDS);
    if extra_ids > MAX_EXTRA_IDS {
        return Err(format!("tokenizer_config.json: extra_ids {extra_ids} is more than {MAX_EXTRA_IDS}"));
    }
    let model = read_model(path)?;
    if model.model_type() != proto::UNIGRAM {
        return Err(format!("T5's spiece.model is a unigram model; this one's model_type is {}", model.model_type()));
    }
    let mut vocab: Vec<(String, f64)> = model.pieces.iter().map(|p| (text(p).to_string(), score(p))).collect();
    vocab.extend((0..extra_ids).rev().map(|i| (format!("<extra_id_{i}>"), 0.0)));
    let mut tok = tokenizers::Tokenizer::new(unigram(vocab, model.unk_id(), model.byte_fallback())?);
    if let Some(map) = model.normalizer().charsmap() {
        let precompiled = Precompiled::from(map).map_err(|e| e.to_string())?;
        tok.with_normalizer(Some(precompiled)).map_err(|e| e.to_string())?;
    }
    tok.with_pre_tokenizer(Some(PreTokenizerSequence::new(vec![
        WhitespaceSplit.into(),
        Metaspace::new('▁', PrependScheme::Always, true).into(),
    ])));
    tok.with_decoder(Some(Metaspace::new('▁', PrependScheme::Always, true)));
    let mut specials: Vec<AddedToken> = ["<pad>", "</s>", "<unk>"].into_iter().map(special).collect();
    specials.extend((0..extra_ids).map(|i| special(&format!("<extra_id_{i}>"))));
    tok.add_special_tokens(specials).map_err(|e| e.to_string())?;
    let eos = token_id(&tok, "</s>")?;
    let template = TemplateProcessing::builder()
        .try_single("$A </s>")
        .and_then(|b| b.try_pair("$A </s> $B </s>"))
        .map_err(|e| e.to_string())?
        .special_tokens(vec![("</s>", eos)])
        .build()
        .map_err(|e| e.to_string())?;
    tok.with_post_processor(Some(template));
    Ok(tok)
}

/// The settings of `T5Tokenizer` and `PLBartTokenizer` a directory's `tokenizer_config.json`
/// may hold.
#[derive(Debug, Default, serde::Deserialize)]
pub struct TokenizerConfig {
    /// T5's number of sentinel tokens (100 by default).
    pub extra_ids: Option<usize>,
    /// `base` (the default: three language codes and `<mask>`) or `multi` (seven codes).
    pub language_codes: Option<String>,
    /// The source language (`java`, `__java__`, ...): its code ends every sequence.
    pub src_lang: Option<String>,
}

/// The normalizer, pre-tokenizer and decoder that make a `tokenizers` tokenizer encode as
/// `SentencePieceProcessor.encode` (transformers' `build_tokenizer_from_spm_proto`, legacy:
/// every chunk between added tokens gets the dummy prefix).
fn sentencepiece_pipeline(
    tok: &mut tokenizers::Tokenizer,
    model: &ModelProto,
    user_defined: &[String],
) -> Result<(), String> {
    let spec = model.normalizer();
    let replace = |pattern: &str, content: &str| -> Result<NormalizerWrapper, String> {
        let pattern = tokenizers::normalizers::replace::ReplacePattern::Regex(pattern.to_string());
        Ok(Replace::new(pattern, content).map_err(|e| e.to_string())?.into())
    };
    let mut normalizers: Vec<NormalizerWrapper> = Vec::new();
    if let Some(map) = spec.charsmap() {
        normalizers.push(Precompiled::from(map).map_err(|e| e.to_string())?.into());
    }
    if spec.remove_extra_whitespaces.unwrap_or(true) {
        // Only spaces: SentencePiece leaves other whitespace, such as newlines, alone.
        normalizers.push(replace(r"\A +| +\z", "")?);
        normalizers.push(replace(" {2,}", " ")?);
    }
    if spec.escape_whitespaces.unwrap_or(true) {
        normalizers.push(replace(" ", "▁")?);
    }
    let dummy_prefix = spec.add_dummy_prefix.unwrap_or(true);
    if dummy_prefix {
        // Metaspace skips the prefix when the text already starts with `▁`; SentencePiece doesn't.
        normalizers.push(replace(r"\A▁", "▁▁")?);
    }
    tok.with_normalizer(Some(NormalizerSequence::new(normalizers))).map_err(|e| e.to_string())?;
    let mut pre_tokenizers: Vec<PreTokenizerWrapper> = Vec::new();
    if dummy_prefix {
        pre_tokenizers.push(Metaspace::new('▁', PrependScheme::Always, false).into());
    }
    if !user_defined.is_empty() {
        // SentencePiece emits user-defined pieces whole: isolate them, longest first.
        let mut pieces: Vec<&String> = user_defined.iter().collect();
        pieces.sort_by_key(|p| std::cmp::Reverse(p.chars().count()));
        let pattern = pieces.iter().map(|p| regex_escape(p)).collect::<Vec<_>>().join("|");
        let split = Split::new(SplitPattern::Regex(pattern), SplitDelimiterBehavior::Isolated, false)
            .map_err(|e| format!("its user-defined pieces: {e}"))?;
        pre_tokenizers.push(split.into());
    }
    if !pre_tokenizers.is_empty() {
        tok.with_pre_tokenizer(Some(PreTokenizerSequence::new(pre_tokenizers)));
    }
    let mut decoders = vec![DecoderWrapper::Replace(Replace::new("▁", " ").map_err(|e| e.to_string())?)];
    if model.byte_fallback() {
        decoders.push(ByteFallback::new().into());
    }
    if dummy_prefix {
        decoders.push(Fuse::new().into());
        decoders.push(Strip::new(' ', 1, 0).into());
    } else if model.byte_fallback() {
        decoders.push(Fuse::new().into());
    }
    tok.with_decoder(Some(DecoderSequence::new(decoders)));
    Ok(())
}

/// Escapes regular-expression metacharacters (those of the Oniguruma syntax the library's `Split` compiles).
fn regex_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// PLBART's tokenizer from a BPE `sentencepiece.bpe.model`, as `PLBartTokenizer` encodes:
/// SentencePiece's own segmentation; fairseq's ids (`<s>` 0, `<pad>` 1, `</s>` 2, `<unk>` 3,
/// SentencePiece's piece `i` as `i + 1`, its unknown piece as 3), then the language codes and,
/// for `base`, `<mask>` (which takes the space before it); `$A </s>`, followed by the source
/// language's code when `src_lang` is set (always for `multi`, `__en_XX__` by default).
pub fn plbart(path: &Path, config: &TokenizerConfig) -> Built {
    let model = read_model(path)?;
    if model.model_type() == proto::UNIGRAM {
        // XLM-RoBERTa's and CamemBERT's files have this name too, with other ids and templates.
        return Err("a unigram model (as XLM-RoBERTa's and CamemBERT's files of this name are); quarry reads \
             sentencepiece.bpe.model only as PLBART's BPE model: give the checkpoint's tokenizer.json \
             (transformers' save_pretrained writes one)"
            .into());
    }
    if model.model_type() != proto::BPE {
        return Err(format!(
            "PLBART's sentencepiece.bpe.model is a BPE model; this one's model_type is {}",
            model.model_type()
        ));
    }
    let (codes, mask): (&[&str], bool) = match config.language_codes.as_deref().unwrap_or("base") {
        "base" => (&PLBART_BASE_CODES, true),
        "multi" => (&PLBART_MULTI_CODES, false),
        other => {
            return Err(format!("tokenizer_config.json: language_codes {other:?} is neither \"base\" nor \"multi\""))
        }
    };
    let src_lang = match (config.src_lang.as_deref(), mask) {
        (None, true) => None,
        (None, false) => Some("__en_XX__".to_string()),
        (Some(lang), _) => {
            let code = if lang.starts_with("__") { lang.to_string() } else { format!("__{lang}__") };
            if !codes.contains(&code.as_str()) {
                return Err(format!(
                    "tokenizer_config.json: src_lang {lang:?} is not one of the language codes {codes:?}"
                ));
            }
            Some(code)
        }
    };
    // fairseq's dictionary puts <s>, <pad>, </s>, <unk> first and shifts SentencePiece's ids
    // by one, which assumes SentencePiece's own <unk>, <s>, </s> at 0, 1, 2.
    let kinds = [proto::UNKNOWN, proto::CONTROL, proto::CONTROL];
    let layout_ok =
        model.pieces.len() > 3 && model.unk_id() == 0 && kinds.iter().zip(&model.pieces).all(|(k, p)| p.kind() == *k);
    if !layout_ok {
        return Err(
            "not fairseq's SentencePiece layout (<unk>, <s>, </s> as pieces 0, 1, 2), which PLBART's ids assume".into(),
        );
    }
    let mut vocab: Vocab = FAIRSEQ_SPECIALS.iter().enumerate().map(|(id, t)| (t.to_string(), id as u32)).collect();
    for (id, piece) in model.pieces.iter().enumerate().skip(3) {
        vocab.entry(text(piece).to_string()).or_insert(id as u32 + 1);
    }
    let normal: std::collections::HashMap<&str, (f64, usize)> = model
        .pieces
        .iter()
        .enumerate()
        .filter(|(_, p)| p.kind() == proto::NORMAL)
        .map(|(id, p)| (text(p), (score(p), id)))
        .collect();
    let mut ranked: Vec<(f64, usize, &str, &str)> = Vec::new();
    for (&piece, &(score, id)) in &normal {
        for (split, _) in piece.char_indices().skip(1) {
            let (left, right) = piece.split_at(split);
            if normal.contains_key(left) && normal.contains_key(right) {
                ranked.push((-score, id, left, right));
            }
        }
    }
    ranked.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)).then(a.2.cmp(b.2)).then(a.3.cmp(b.3)));
    let merges = ranked.into_iter().map(|(_, _, l, r)| (l.to_string(), r.to_string())).collect();
    let user_defined: Vec<String> =
        model.pieces.iter().filter(|p| p.kind() == proto::USER_DEFINED).map(|p| text(p).to_string()).collect();
    let bpe = BPE::builder()
        .vocab_and_merges(vocab, merges)
        .unk_token("<unk>".into())
        .fuse_unk(true)
        .byte_fallback(model.byte_fallback())
        .ignore_merges(!user_defined.is_empty())
        .build()
        .map_err(|e| e.to_string())?;
    let mut tok = tokenizers::Tokenizer::new(bpe);
    sentencepiece_pipeline(&mut tok, &model, &user_defined)?;
    let mut specials: Vec<AddedToken> =
        FAIRSEQ_SPECIALS.into_iter().chain(codes.iter().copied()).map(special).collect();
    if mask {
        specials.push(special("<mask>").lstrip(true));
    }
    tok.add_special_tokens(specials).map_err(|e| e.to_string())?;
    let eos = token_id(&tok, "</s>")?;
    let mut suffix = vec![("</s>".to_string(), eos)];
    if let Some(code) = src_lang {
        suffix.push((code.clone(), token_id(&tok, &code)?));
    }
    let tail: Vec<&str> = suffix.iter().map(|(t, _)| t.as_str()).collect();
    let template = TemplateProcessing::builder()
        .try_single(format!("$A {}", tail.join(" ")))
        .and_then(|b| b.try_pair(format!("$A $B {}", tail.join(" "))))
        .map_err(|e| e.to_string())?
        .special_tokens(suffix)
        .build()
        .map_err(|e| e.to_string())?;
    tok.with_post_processor(Some(template));
    Ok(tok)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(family: &str, file: &str) -> Vec<u8> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tokenizers");
        std::fs::read(dir.join(family).join(file)).unwrap()
    }

    /// Every way of cutting the file short, and bytes of its character map overwritten, give
    /// an error or a tokenizer that encodes; never a panic.
    #[test]
    fn damaged_model_files_are_errors_not_panics() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spiece.model");
        let model = fixture("t5_spm", "spiece.model");
        let text = "def f(x):\n    return 'é' + \"ü\" * 2  # 你好 \u{1F600}\u{FB01}\u{00A0}";
        let mut errors = 0;
        let mut try_bytes = |bytes: &[u8]| {
            std::fs::write(&path, bytes).unwrap();
            match build(&path, |p| t5(p, &TokenizerConfig::default())) {
                Ok(tok) => assert!(tok.encode(text, true).is_ok()),
                Err(e) => {
                    assert!(!e.is_empty());
                    errors += 1;
                }
            }
        };
        for cut in (0..model.len()).step_by(4099).chain([1, 2, 3, model.len() - 1]) {
            try_bytes(&model[..cut]);
        }
        let decoded = ModelProto::decode_file(&model).unwrap();
        let map = decoded.normalizer().charsmap().unwrap().to_vec();
        let start = model.windows(map.len()).position(|w| w == map.as_slice()).unwrap();
        for (i, at) in (start..start + map.len()).step_by(1013).enumerate() {
            let mut bytes = model.clone();
            bytes[at] = [0xFF, 0x00, 0x7F][i % 3];
            try_bytes(&bytes);
        }
        assert!(errors > 0);
    }

    #[test]
    fn a_model_of_the_wrong_kind_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let t5_path = dir.path().join("spiece.model");
        std::fs::write(&t5_path, fixture("plbart", "sentencepiece.bpe.model")).unwrap();
        assert!(build(&t5_path, |p| t5(p, &TokenizerConfig::default())).unwrap_err().contains("unigram"));
        let plbart_path = dir.path().join("sentencepiece.bpe.model");
        std::fs::write(&plbart_path, fixture("t5_spm", "spiece.model")).unwrap();
        let config = TokenizerConfig::default();
        assert!(build(&plbart_path, |p| plbart(p, &config)).unwrap_err().contains("BPE"));
        std::fs::write(&plbart_path, fixture("plbart", "sentencepiece.bpe.model")).unwrap();
        let config = TokenizerConfig { src_lang: Some("cobol".into()), ..Default::default() };
        assert!(build(&plbart_path, |p| plbart(p, &config)).unwrap_err().contains("cobol"));
        let config = TokenizerConfig { language_codes: Some("all".into()), ..Default::default() };
        assert!(build(&plbart_path, |p| plbart(p, &config)).unwrap_err().contains("language_codes"));
    }

    /// `multi`: seven language codes, no `<mask>`, `__en_XX__` ending every sequence by default
    /// (as `PLBartTokenizer(language_codes="multi")` does).
    #[test]
    fn plbart_multi_ends_with_english_by_default() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sentencepiece.bpe.model");
        std::fs::write(&path, fixture("plbart", "sentencepiece.bpe.model")).unwrap();
        let config = TokenizerConfig { language_codes: Some("multi".into()), ..Default::default() };
        let tok = build(&path, |p| plbart(p, &config)).unwrap();
        let size = tok.get_vocab_size(true) as u32;
        assert_eq!(tok.token_to_id("__go__"), Some(size - 1));
        assert_eq!(tok.token_to_id("<mask>"), None);
        let ids = tok.encode("int x", true).unwrap().get_ids().to_vec();
        assert_eq!(ids[ids.len() - 2..], [2, tok.token_to_id("__en_XX__").unwrap()]);
    }

    /// `extra_ids` in `tokenizer_config.json` sets T5's number of sentinels, as for
    /// `T5Tokenizer` (checked there: 1,008 ids, `<extra_id_0>` 1007, `<extra_id_7>` 1000).
    #[test]
    fn t5_takes_its_number_of_sentinels_from_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("spiece.model");
        std::fs::write(&path, fixture("t5_spm", "spiece.model")).unwrap();
        let pieces = ModelProto::decode_file(&fixture("t5_spm", "spiece.model")).unwrap().pieces.len() as u32;
        let config = TokenizerConfig { extra_ids: Some(8), ..Default::default() };
        let tok = build(&path, |p| t5(p, &config)).unwrap();
        assert_eq!(tok.get_vocab_size(true) as u32, pieces + 8);
        assert_eq!(
            (tok.token_to_id("<extra_id_0>"), tok.token_to_id("<extra_id_7>")),
            (Some(pieces + 7), Some(pieces))
        );
        assert_eq!(tok.token_to_id("<extra_id_8>"), None);
        let ids = tok.encode("a <extra_id_7> b", true).unwrap().get_ids().to_vec();
        assert_eq!(ids[1..], [pieces, ids[2], 1]);
        let config = TokenizerConfig { extra_ids: Some(1 << 40), ..Default::default() };
        assert!(build(&path, |p| t5(p, &config)).unwrap_err().contains("extra_ids"));
    }

    fn piece(text: &str, score: f32, kind: i32) -> Piece {
        Piece { piece: Some(text.into()), score: Some(score), r#type: Some(kind) }
    }

    /// Well-formed protobuf with odd contents (empty, duplicate and metacharacter pieces,
    /// unknown kinds, unknown ids out of range, byte fallback without byte pieces): an error
    /// or a tokenizer that encodes, never a panic.
    #[test]
    fn odd_vocabularies_are_errors_or_tokenizers_not_panics() {
        use prost::Message;
        let dir = tempfile::tempdir().unwrap();
        let text = "a  b(c)|d** ▁x\n\t\u{1F600}";
        let base = || {
            let mut pieces = vec![piece("<unk>", 0.0, proto::UNKNOWN), piece("<s>", 0.0, proto::CONTROL)];
            pieces.push(piece("</s>", 0.0, proto::CONTROL));
            pieces.extend(
                ["▁a", "a", "b", "▁", "ab"].iter().enumerate().map(|(i, p)| piece(p, -(i as f32), proto::NORMAL)),
            );
            pieces
        };
        let variants: Vec<Vec<Piece>> = vec![
            vec![],
            base().into_iter().chain([piece("", -9.0, proto::NORMAL), piece("", -9.0, proto::USER_DEFINED)]).collect(),
            base().into_iter().chain([piece("a", -1.0, proto::NORMAL), piece("▁a", 3.0, proto::NORMAL)]).collect(),
            base().into_iter().chain([piece("(|*", 0.0, proto::USER_DEFINED), piece("\\", 0.0, 99)]).collect(),
            base().into_iter().chain([Piece::default(), piece("<0x41>", 0.0, 6)]).collect(),
            base().into_iter().skip(1).collect(),
        ];
        for (i, pieces) in variants.into_iter().enumerate() {
            for (model_type, unk_id, byte_fallback) in [
                (proto::UNIGRAM, 0, false),
                (proto::BPE, 0, true),
                (proto::UNIGRAM, -1, true),
                (proto::BPE, 1 << 20, false),
                (7, 0, false),
            ] {
                let trainer_spec = Some(proto::TrainerSpec {
                    model_type: Some(model_type),
                    byte_fallback: Some(byte_fallback),
                    unk_id: Some(unk_id),
                });
                let model = ModelProto { pieces: pieces.clone(), trainer_spec, normalizer_spec: None };
                for (file, t5_side) in [("spiece.model", true), ("sentencepiece.bpe.model", false)] {
                    let path = dir.path().join(file);
                    std::fs::write(&path, model.encode_to_vec()).unwrap();
                    let config = TokenizerConfig::default();
                    let built =
                        if t5_side { build(&path, |p| t5(p, &config)) } else { build(&path, |p| plbart(p, &config)) };
                    match built {
                        Ok(tok) => {
                            let encoded = tok.encode(text, true).unwrap();
                            let _ = tok.decode(encoded.get_ids(), true);
                        }
                        Err(e) => assert!(!e.is_empty(), "variant {i}"),
                    }
                }
            }
        }
    }
}
