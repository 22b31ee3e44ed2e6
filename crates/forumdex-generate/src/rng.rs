//! Deterministic randomness.
//!
//! The main stream is a [`rand_chacha::ChaCha8Rng`] seeded with `seed_from_u64(seed)`; its
//! output is specified by the ChaCha algorithm and rand_chacha's documented seeding, so it
//! does not change between platforms or releases of the 0.3 line. Values keyed by an ID
//! (usernames, profile IDs, a post body's own seed) come from [`mix`], SplitMix64's finalizer.
//! Floating point is limited to `+ - * /` and `sqrt`, which IEEE 754 rounds exactly, so
//! the same seed gives the same bytes everywhere.

use rand::Rng;

/// Hashes `(seed, key)` to 64 well-mixed bits (SplitMix64 finalizer).
pub fn mix(seed: u64, key: u64) -> u64 {
    let mut z = seed
        .wrapping_add(key.wrapping_mul(0x9e37_79b9_7f4a_7c15))
        .wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A uniform number in (0, 1], from 53 random bits.
pub fn unit<R: Rng>(rng: &mut R) -> f64 {
    ((rng.r#gen::<u64>() >> 11) + 1) as f64 / (1u64 << 53) as f64
}

/// An index in `0..len` skewed towards 0: `floor(len * u^power)` for `u` uniform in (0, 1].
pub fn skewed<R: Rng>(rng: &mut R, len: usize, power: u32) -> usize {
    let u = unit(rng);
    let mut x = 1.0;
    for _ in 0..power {
        x *= u;
    }
    ((len as f64 * x) as usize).min(len.saturating_sub(1))
}
