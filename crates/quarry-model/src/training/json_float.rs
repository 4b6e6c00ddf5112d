//! Floats in JSON state files that may be infinite or NaN (the best validation loss before any
//! validation, a loss that diverged): JSON has no such numbers and serde_json writes them as
//! `null`, which it cannot read back as an `f64`. Here they are written as the strings `"inf"`,
//! `"-inf"` and `"NaN"`, and read back from those, from numbers, and from the `null` of states
//! written before.

use serde::{Deserialize, Deserializer, Serializer};

/// Writes `value` as a JSON number, or as `"inf"`, `"-inf"` or `"NaN"`.
pub fn serialize<S: Serializer>(value: &f64, serializer: S) -> Result<S::Ok, S::Error> {
    match *value {
        v if v.is_finite() => serializer.serialize_f64(v),
        v if v.is_nan() => serializer.serialize_str("NaN"),
        v if v > 0.0 => serializer.serialize_str("inf"),
        _ => serializer.serialize_str("-inf"),
    }
}

/// Reads what [`serialize`] writes; `null` (an older state's infinity or NaN) reads as
/// infinity, the start value of the one field that held it before any loss was known.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Number(f64),
        Text(String),
        Null(()),
    }
    match Stored::deserialize(deserializer)? {
        Stored::Number(v) => Ok(v),
        Stored::Null(()) => Ok(f64::INFINITY),
        Stored::Text(text) => match text.as_str() {
            "inf" => Ok(f64::INFINITY),
            "-inf" => Ok(f64::NEG_INFINITY),
            "NaN" => Ok(f64::NAN),
            other => Err(serde::de::Error::custom(format!("`{other}` is not a number, \"inf\", \"-inf\" or \"NaN\""))),
        },
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};

    #[derive(Serialize, Deserialize)]
    struct Holder {
        #[serde(with = "super")]
        value: f64,
    }

    #[test]
    fn every_float_survives_a_round_trip_and_an_older_null_reads_as_infinity() {
        for value in [0.5, -2.0, f64::INFINITY, f64::NEG_INFINITY] {
            let text = serde_json::to_string(&Holder { value }).unwrap();
            assert_eq!(serde_json::from_str::<Holder>(&text).unwrap().value, value, "{text}");
        }
        let nan = serde_json::to_string(&Holder { value: f64::NAN }).unwrap();
        assert!(serde_json::from_str::<Holder>(&nan).unwrap().value.is_nan());
        assert_eq!(serde_json::from_str::<Holder>(r#"{"value": null}"#).unwrap().value, f64::INFINITY);
        assert!(serde_json::from_str::<Holder>(r#"{"value": "lots"}"#).is_err());
    }
}
