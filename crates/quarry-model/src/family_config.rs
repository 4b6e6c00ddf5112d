//! T5 and BART/PLBART `config.json` files read as an `EncoderConfig`: their fields are
//! copied to BERT's names (`d_model` to `hidden_size`, ...) before parsing, and the settings
//! only they have (relative buckets, gated feed-forward, embedding scale) are read from the
//! fields kept in its `extra`. Variants the encoders do not implement are refused here.

use serde_json::{Map, Value};

use crate::error::{ModelError, Result};

fn number(config: &Map<String, Value>, model_type: &str, key: &str, default: Option<Value>) -> Result<Value> {
    match config.get(key) {
        Some(v) if v.is_number() => Ok(v.clone()),
        Some(v) => Err(ModelError::Config(format!("{model_type} configuration: {key} is not a number ({v})"))),
        None => default.ok_or_else(|| ModelError::Config(format!("{model_type} configuration lacks {key}"))),
    }
}

/// The activation (its `hidden_act` name) and whether the feed-forward block is gated, from
/// T5's `feed_forward_proj` (`relu`, `gelu`, `gated-gelu`, ...), as transformers' `T5Config`
/// reads it.
pub(crate) fn t5_feed_forward(proj: &str) -> Result<(&'static str, bool)> {
    let (gated, act) = match proj.split_once('-') {
        Some(("gated", act)) => (true, act),
        None => (false, proj),
        Some(_) => return Err(ModelError::Config(format!("T5 feed_forward_proj '{proj}' is not ACT or gated-ACT"))),
    };
    // transformers maps `gated-gelu` to the tanh approximation, for T5 v1.1's checkpoints.
    let act = match (gated, act) {
        (true, "gelu") | (_, "gelu_new") => "gelu_new",
        (false, "gelu") => "gelu",
        (_, "relu") => "relu",
        _ => {
            return Err(ModelError::Config(format!(
                "T5 feed_forward_proj '{proj}' is not supported (relu, gelu, gelu_new, with or without gated-)"
            )))
        }
    };
    Ok((act, gated))
}

/// Copies the T5 or BART fields of a parsed `config.json` to the names [`EncoderConfig`]
/// reads; other model types are left as they are. The original fields stay (in `extra`).
pub(crate) fn to_encoder_fields(config: &mut Map<String, Value>) -> Result<()> {
    let model_type = config.get("model_type").and_then(Value::as_str).unwrap_or("").to_string();
    let m = model_type.as_str();
    let copies: Vec<(&str, Value)> = match m {
        "t5" => {
            let proj = config.get("feed_forward_proj").and_then(Value::as_str).unwrap_or("relu");
            let (act, _) = t5_feed_forward(proj)?;
            let dropout = number(config, m, "dropout_rate", Some(Value::from(0.1)))?;
            vec![
                ("hidden_size", number(config, m, "d_model", None)?),
                ("num_hidden_layers", number(config, m, "num_layers", None)?),
                ("num_attention_heads", number(config, m, "num_heads", None)?),
                ("intermediate_size", number(config, m, "d_ff", None)?),
                ("layer_norm_eps", number(config, m, "layer_norm_epsilon", Some(Value::from(1e-6)))?),
                ("max_position_embeddings", number(config, m, "n_positions", Some(Value::from(512)))?),
                ("hidden_act", Value::from(act)),
                ("hidden_dropout_prob", dropout.clone()),
                ("attention_probs_dropout_prob", dropout),
                ("type_vocab_size", Value::from(1)),
            ]
        }
        "bart" | "plbart" => {
            for refused in ["normalize_before", "add_final_layer_norm"] {
                if config.get(refused).and_then(Value::as_bool) == Some(true) {
                    return Err(ModelError::Config(format!(
                        "{m} configuration sets {refused}: pre-norm (mBART-style) encoders are not supported"
                    )));
                }
            }
            let act = config.get("activation_function").and_then(Value::as_str).unwrap_or("gelu");
            if !["gelu", "gelu_new", "relu"].contains(&act) {
                return Err(ModelError::Config(format!(
                    "{m} activation_function '{act}' is not supported (gelu, gelu_new, relu)"
                )));
            }
            vec![
                ("hidden_size", number(config, m, "d_model", None)?),
                ("num_hidden_layers", number(config, m, "encoder_layers", None)?),
                ("num_attention_heads", number(config, m, "encoder_attention_heads", None)?),
                ("intermediate_size", number(config, m, "encoder_ffn_dim", None)?),
                ("max_position_embeddings", number(config, m, "max_position_embeddings", Some(Value::from(1024)))?),
                ("hidden_act", Value::from(act)),
                // transformers' BART layer norms are torch's default.
                ("layer_norm_eps", Value::from(1e-5)),
                ("hidden_dropout_prob", number(config, m, "dropout", Some(Value::from(0.1)))?),
                ("attention_probs_dropout_prob", number(config, m, "attention_dropout", Some(Value::from(0)))?),
                ("pad_token_id", number(config, m, "pad_token_id", Some(Value::from(1)))?),
                ("type_vocab_size", Value::from(1)),
            ]
        }
        _ => return Ok(()),
    };
    for (key, value) in copies {
        config.insert(key.to_string(), value);
    }
    Ok(())
}

/// T5's attention settings, read from a configuration's `extra` fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct T5Settings {
    /// Width of one attention head (`d_kv`; the heads together need not make `d_model`).
    pub(crate) d_kv: usize,
    /// Number of relative-position buckets, both directions together.
    pub(crate) buckets: usize,
    /// Distance from which every relative position shares the last bucket.
    pub(crate) max_distance: usize,
    /// Whether the feed-forward block is gated (`wi_0`, `wi_1`).
    pub(crate) gated: bool,
}

fn extra_usize(extra: &Map<String, Value>, key: &str, default: usize) -> Result<usize> {
    match extra.get(key) {
        None => Ok(default),
        Some(v) => v
            .as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| ModelError::Config(format!("{key} is not a non-negative integer ({v})"))),
    }
}

impl T5Settings {
    /// The settings of a T5 configuration (its fields outside BERT's, `extra`), checked.
    pub(crate) fn of(extra: &Map<String, Value>) -> Result<Self> {
        let proj = extra.get("feed_forward_proj").and_then(Value::as_str).unwrap_or("relu");
        let settings = T5Settings {
            d_kv: extra_usize(extra, "d_kv", 64)?,
            buckets: extra_usize(extra, "relative_attention_num_buckets", 32)?,
            max_distance: extra_usize(extra, "relative_attention_max_distance", 128)?,
            gated: t5_feed_forward(proj)?.1,
        };
        if settings.d_kv == 0 {
            return Err(ModelError::Config("d_kv must be positive".into()));
        }
        // Each direction's buckets are half exact, half logarithmic up to max_distance.
        if settings.buckets < 4 || settings.max_distance <= settings.buckets / 4 {
            return Err(ModelError::Config(format!(
                "relative_attention_num_buckets {} and relative_attention_max_distance {} leave no \
                 logarithmic buckets (need at least 4 buckets and a distance above a quarter of them)",
                settings.buckets, settings.max_distance
            )));
        }
        Ok(settings)
    }
}

/// BART's embedding scale: `sqrt(d_model)` when `scale_embedding` is set (by default for
/// PLBART, not for BART, as in transformers), else 1; `extra` holds the configuration's
/// fields outside BERT's.
pub(crate) fn bart_embed_scale(model_type: &str, d_model: usize, extra: &Map<String, Value>) -> f64 {
    let scaled = extra.get("scale_embedding").and_then(Value::as_bool).unwrap_or(model_type == "plbart");
    if scaled {
        (d_model as f64).sqrt()
    } else {
        1.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{EncoderConfig, HiddenAct};

    fn parse(text: &str) -> Result<EncoderConfig> {
        EncoderConfig::from_json_text(text, std::path::Path::new("config.json"))
    }

    #[test]
    fn reads_codet5_and_t5_v1_1_configurations() {
        let c = parse(
            r#"{"model_type":"t5","vocab_size":32100,"d_model":512,"d_kv":64,"d_ff":2048,"num_layers":6,
                "num_heads":8,"relative_attention_num_buckets":32,"dropout_rate":0.1,
                "layer_norm_epsilon":1e-6,"feed_forward_proj":"relu","pad_token_id":0}"#,
        )
        .unwrap();
        assert_eq!((c.hidden_size, c.num_hidden_layers, c.num_attention_heads, c.intermediate_size), (512, 6, 8, 2048));
        assert_eq!(c.hidden_act, HiddenAct::Relu);
        assert_eq!(c.max_input_len(), 512);
        let s = T5Settings::of(&c.extra).unwrap();
        assert_eq!((s.d_kv, s.buckets, s.max_distance, s.gated), (64, 32, 128, false));
        assert_eq!(t5_feed_forward("gated-gelu").unwrap(), ("gelu_new", true));
        assert_eq!(t5_feed_forward("gelu").unwrap(), ("gelu", false));
        // The translated fields survive a save and a second read.
        let again = parse(&serde_json::to_string(&c).unwrap()).unwrap();
        assert_eq!(again.hidden_size, 512);
    }

    #[test]
    fn reads_bart_and_plbart_configurations() {
        let bart = r#"{"model_type":"bart","vocab_size":50265,"d_model":768,"encoder_layers":6,
            "encoder_attention_heads":12,"encoder_ffn_dim":3072,"max_position_embeddings":1024,
            "activation_function":"gelu","pad_token_id":1,"scale_embedding":false}"#;
        let c = parse(bart).unwrap();
        assert_eq!((c.hidden_size, c.num_hidden_layers, c.intermediate_size, c.pad_token_id), (768, 6, 3072, 1));
        assert_eq!(c.layer_norm_eps, 1e-5);
        assert_eq!(c.max_input_len(), 1024);
        assert_eq!(bart_embed_scale(&c.model_type, c.hidden_size, &c.extra), 1.0);
        let plbart = parse(&bart.replace("\"bart\"", "\"plbart\"").replace(",\"scale_embedding\":false", "")).unwrap();
        assert_eq!(bart_embed_scale(&plbart.model_type, plbart.hidden_size, &plbart.extra), 768f64.sqrt());
    }

    #[test]
    fn refuses_unsupported_variants_clearly() {
        let t5 = r#"{"model_type":"t5","vocab_size":10,"d_model":8,"d_ff":8,"num_layers":1,"num_heads":2,
            "feed_forward_proj":"FF"}"#;
        let err = parse(&t5.replace("FF", "gated-silu")).unwrap_err().to_string();
        assert!(err.contains("gated-silu") && err.contains("not supported"), "{err}");
        let err = parse(&t5.replace("FF", "relu").replace(",\"d_ff\":8", "")).unwrap_err().to_string();
        assert!(err.contains("lacks d_ff"), "{err}");
        let bart = r#"{"model_type":"bart","vocab_size":10,"d_model":8,"encoder_layers":1,
            "encoder_attention_heads":2,"encoder_ffn_dim":8,"add_final_layer_norm":true}"#;
        let err = parse(bart).unwrap_err().to_string();
        assert!(err.contains("add_final_layer_norm"), "{err}");
        let err = parse(&bart.replace("bart", "mbart")).unwrap_err().to_string();
        assert!(err.contains("unsupported model_type 'mbart'"), "{err}");
        let err = parse(
            &t5.replace("FF", "relu")
                .replace("\"num_heads\":2", "\"num_heads\":2,\"relative_attention_num_buckets\":2"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("relative_attention_num_buckets"), "{err}");
    }
}
