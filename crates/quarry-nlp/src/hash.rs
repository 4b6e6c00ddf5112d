//! The two hash functions the model's numbers depend on: spaCy's string
//! hash (MurmurHash64A, seed 1) that turns a string into the 64-bit id
//! stored in every token attribute, and thinc's hash embedding key
//! (MurmurHash3 128-bit of the id's eight little-endian bytes, with the
//! layer's seed; thinc's function is the x64 128-bit variant despite its
//! name). Both come from crates; tests pin them to values spaCy and thinc
//! compute.

/// spaCy's hash of a string (`spacy.strings.hash_string`): MurmurHash64A of
/// the UTF-8 bytes with seed 1.
pub fn hash_string(s: &str) -> u64 {
    murmurhash64::murmur_hash64a(s.as_bytes(), 1)
}

/// spaCy's fixed symbol table (`spacy.symbols.IDS`), one `id<TAB>name` a
/// line. spaCy's StringStore gives these strings their symbol id instead of
/// their hash, and token attributes such as NORM ("number"), PREFIX ("_")
/// or SHAPE ("X") take those ids, which the hash embeddings then see; the
/// table must therefore be spaCy's, entry for entry.
const SYMBOLS: &str = include_str!("symbols.tsv");

fn symbols() -> &'static rustc_hash::FxHashMap<&'static str, u64> {
    static MAP: std::sync::OnceLock<rustc_hash::FxHashMap<&'static str, u64>> = std::sync::OnceLock::new();
    MAP.get_or_init(|| {
        SYMBOLS
            .lines()
            .filter_map(|l| {
                let (id, name) = l.split_once('\t')?;
                Some((name, id.parse().ok()?))
            })
            .collect()
    })
}

/// The id spaCy's StringStore gives a string: its symbol id when it is one
/// of spaCy's symbols (the empty string is 0), else [`hash_string`].
pub fn string_id(s: &str) -> u64 {
    match symbols().get(s) {
        Some(&id) => id,
        None => hash_string(s),
    }
}

/// thinc's `ops.hash(ids, seed)` for one id: MurmurHash3 x64 128 of the
/// id's eight little-endian bytes, as four 32-bit words (low and high half
/// of h1, then of h2). thinc names it `MurmurHash3_x86_128_uint64`; the
/// values are the x64 variant's.
pub fn hash_id(id: u64, seed: u32) -> [u32; 4] {
    let mut src: &[u8] = &id.to_le_bytes();
    // Reading from a byte slice cannot fail.
    let h = murmur3::murmur3_x64_128(&mut src, seed).unwrap_or(0);
    let (h1, h2) = (h as u64, (h >> 64) as u64);
    [h1 as u32, (h1 >> 32) as u32, h2 as u32, (h2 >> 32) as u32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_hash_matches_spacy() {
        // Values from spacy.strings.hash_string.
        assert_eq!(hash_string(""), 14313749767032693980);
        assert_eq!(hash_string("hello"), HELLO);
        assert_eq!(hash_string("Returns"), 10603815294128537975);
        assert_eq!(hash_string("’s"), 614914527630368944);
        assert_eq!(hash_string("abcdefghi"), 13885881106499164936);
        assert_eq!(string_id(""), 0);
        assert_eq!(string_id("number"), 432);
        assert_eq!(string_id("X"), 101);
        assert_eq!(string_id("_"), 456);
    }

    const HELLO: u64 = 5983625672228268878;

    #[test]
    fn id_hash_matches_thinc() {
        // Values from thinc's NumpyOps().hash(numpy.array([id], "uint64"), seed).
        assert_eq!(hash_id(HELLO, 8), HELLO_SEED8);
        assert_eq!(hash_id(1, 13), ONE_SEED13);
    }

    const HELLO_SEED8: [u32; 4] = [2726685510, 2083710382, 4090028265, 978081925];
    const ONE_SEED13: [u32; 4] = [1266879892, 1356517611, 318478807, 3343674364];
}
