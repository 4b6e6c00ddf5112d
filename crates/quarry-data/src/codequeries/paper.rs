//! The example distribution of the CodeQueries paper (seeds/000, Tables 6 and 7): positive
//! and negative examples per query over all splits, keyed by the paper's query index
//! (`Q1`..`Q52`, `quarry_query::QueryMeta::index`). The builder sizes each query's negative
//! sample with these ratios, and its statistics show them beside the built counts.

/// `(index, positive, negative)` for each of the 52 queries, Table 6 (Q1–Q15, multi-hop)
/// then Table 7 (Q16–Q52, single-hop).
pub const PAPER_COUNTS: [(u8, usize, usize); 52] = [
    (1, 19_178, 29_377),
    (2, 770, 770),
    (3, 432, 581),
    (4, 778, 79),
    (5, 355, 439),
    (6, 230, 310),
    (7, 247, 284),
    (8, 162, 260),
    (9, 193, 200),
    (10, 182, 182),
    (11, 209, 120),
    (12, 123, 120),
    (13, 121, 120),
    (14, 99, 113),
    (15, 87, 87),
    (16, 14_326, 19_876),
    (17, 10_377, 12_219),
    (18, 6_060, 10_251),
    (19, 3_694, 6_606),
    (20, 2_354, 3_100),
    (21, 2_098, 2_514),
    (22, 2_044, 2_044),
    (23, 1_114, 1_403),
    (24, 953, 1_006),
    (25, 489, 562),
    (26, 78, 831),
    (27, 319, 552),
    (28, 387, 436),
    (29, 150, 565),
    (30, 338, 338),
    (31, 326, 331),
    (32, 260, 337),
    (33, 206, 331),
    (34, 241, 279),
    (35, 243, 272),
    (36, 237, 239),
    (37, 188, 275),
    (38, 215, 224),
    (39, 164, 259),
    (40, 164, 251),
    (41, 197, 200),
    (42, 199, 183),
    (43, 173, 201),
    (44, 139, 148),
    (45, 96, 142),
    (46, 113, 115),
    (47, 111, 111),
    (48, 102, 103),
    (49, 72, 121),
    (50, 73, 100),
    (51, 70, 98),
    (52, 67, 78),
];

/// The paper's positive and negative counts of query `index` (`Q<index>`).
pub fn paper_counts(index: u8) -> Option<(usize, usize)> {
    PAPER_COUNTS.iter().find(|(i, _, _)| *i == index).map(|&(_, p, n)| (p, n))
}

/// Negatives per positive in the paper for query `index`.
pub fn paper_ratio(index: u8) -> Option<f64> {
    paper_counts(index).map(|(p, n)| n as f64 / p as f64)
}

/// The paper's overall negatives per positive (Table 1: 99,743 / 71,603), for queries the
/// paper does not list.
pub const PAPER_OVERALL_RATIO: f64 = 99_743.0 / 71_603.0;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_match_the_aggregate_rows_of_tables_6_and_7() {
        let sum = |range: std::ops::RangeInclusive<u8>| {
            PAPER_COUNTS.iter().filter(|(i, _, _)| range.contains(i)).fold((0, 0), |(p, n), r| (p + r.1, n + r.2))
        };
        assert_eq!(sum(1..=15), (23_166, 33_042));
        assert_eq!(sum(16..=52), (48_437, 66_701));
        // Table 1 and Section 1: 71,603 positive and 99,743 negative in all.
        assert_eq!(sum(1..=52), (71_603, 99_743));
        assert_eq!(paper_counts(22), Some((2_044, 2_044)));
        assert!((paper_ratio(5).unwrap() - 439.0 / 355.0).abs() < 1e-12);
    }
}
