//! Checks a SentencePiece `precompiled_charsmap` before the tokenizers library's `Precompiled`
//! normalizer uses it.
//!
//! The map is a double-array trie (a little-endian `u32` byte length, then `u32` units) over
//! UTF-8 bytes, whose leaves point into a blob of NUL-terminated replacement strings. The
//! library (the `spm_precompiled` crate) indexes the trie and the blob without bounds checks,
//! so a damaged map loads and then panics on the first text it normalizes. Every trie path is
//! walked here once, with the library's arithmetic, and every index it could use is checked.

/// The unit fields, as `spm_precompiled` reads them.
fn has_leaf(unit: usize) -> bool {
    (unit >> 8) & 1 == 1
}

fn value(unit: usize) -> usize {
    unit & ((1 << 31) - 1)
}

fn label(unit: usize) -> usize {
    unit & ((1 << 31) | 0xFF)
}

fn offset(unit: usize) -> usize {
    (unit >> 10) << ((unit & (1 << 9)) >> 6)
}

/// `Ok` when no text can make the normalizer index outside the map; else what is wrong.
pub fn check(map: &[u8]) -> Result<(), String> {
    let bad = |what: &str| Err(format!("precompiled_charsmap: {what}"));
    let Some((size, rest)) = map.split_first_chunk::<4>() else { return bad("shorter than its length field") };
    let size = u32::from_le_bytes(*size) as usize;
    if size / 4 * 4 > rest.len() {
        return bad("its trie is longer than the map");
    }
    let (trie, blob) = rest.split_at(size / 4 * 4);
    let units: Vec<usize> =
        trie.chunks_exact(4).map(|u| u32::from_le_bytes([u[0], u[1], u[2], u[3]]) as usize).collect();
    let Ok(blob) = std::str::from_utf8(blob) else { return bad("its replacement strings are not UTF-8") };
    let Some(&root) = units.first() else { return bad("its trie is empty") };
    // Each state is a node position after its unit's offset, as `common_prefix_search` holds it.
    let mut seen = vec![false; units.len()];
    let mut stack = vec![offset(root)];
    while let Some(node) = stack.pop() {
        for byte in 1..=255usize {
            let next = node ^ byte;
            let Some(&unit) = units.get(next) else { return bad("a trie edge points past the trie") };
            if label(unit) != byte {
                continue;
            }
            let child = next ^ offset(unit);
            if has_leaf(unit) {
                let Some(&leaf) = units.get(child) else { return bad("a trie leaf points past the trie") };
                let start = value(leaf);
                if start > blob.len() || !blob.is_char_boundary(start) {
                    return bad("a replacement starts outside its strings");
                }
            }
            if child < seen.len() && !seen[child] {
                seen[child] = true;
                stack.push(child);
            } else if child >= seen.len() {
                return bad("a trie node lies past the trie");
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damaged_maps_are_refused() {
        assert!(check(&[]).unwrap_err().contains("length field"));
        assert!(check(&[8, 0, 0, 0, 1]).unwrap_err().contains("longer than the map"));
        assert!(check(&[0, 0, 0, 0]).unwrap_err().contains("empty"));
        // A root whose edges leave a one-unit trie.
        assert!(check(&[4, 0, 0, 0, 0, 0, 0, 0]).unwrap_err().contains("past the trie"));
    }
}
