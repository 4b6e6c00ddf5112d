//! How probing seeds the workspace's generator ([`quarry_stdx::rng::SplitMix64`]): with a
//! salt of its own, so the datasets, control tasks and probes made before the generators
//! were shared come out identical.

use quarry_stdx::rng::SplitMix64;

/// Mixed into every probing seed.
const SALT: u64 = 0x5DEE_CE66_D1CE_4E5B;

/// The generator of probing's random choices, started from `seed`.
pub fn seeded(seed: u64) -> SplitMix64 {
    SplitMix64::from_state(seed ^ SALT)
}
