//! Where every random number comes from: one PCG stream per (seed, purpose, item).
//!
//! Determinism is a contract (DESIGN.md): puzzle `i` draws its randomness only from
//! (`--seed`, `i`), so the bank's bytes do not depend on the thread count, the order
//! in which rayon schedules work, or how the run was split across workers. Each item
//! gets its own `Pcg64` whose state is a SplitMix64 scramble of (seed, purpose, index,
//! attempt) and whose stream is the index, so neighbouring items are uncorrelated.
//! Changing anything here changes every bank: treat it as a file format.

use rand_pcg::Pcg64;

/// What a stream is used for; part of the derivation so purposes never share numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u64)]
pub enum Purpose {
    /// Filling and carving seed puzzle `index`, replacement round `attempt`.
    Seed = 1,
    /// Drawing the symmetry transforms that expand seed `index`.
    Variants = 2,
    /// The `transform` subcommand: line `index` of its input.
    Transform = 3,
}

/// SplitMix64's finaliser: a bijective scramble of 64 bits (Steele, Lea, Flood 2014).
#[inline]
fn splitmix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The generator for one item. Cheap enough to create per puzzle (no allocation).
#[inline]
pub fn item_rng(seed: u64, purpose: Purpose, index: u64, attempt: u32) -> Pcg64 {
    let hi = splitmix64(seed ^ splitmix64(purpose as u64));
    let lo = splitmix64(index ^ splitmix64(hi ^ u64::from(attempt)));
    let state = (u128::from(hi) << 64) | u128::from(lo);
    let stream =
        (u128::from(purpose as u64) << 96) | (u128::from(attempt) << 64) | u128::from(index);
    Pcg64::new(state, stream)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let draw = |s, p, i, a| item_rng(s, p, i, a).random::<u64>();
        assert_eq!(draw(1, Purpose::Seed, 5, 0), draw(1, Purpose::Seed, 5, 0));
        assert_ne!(draw(1, Purpose::Seed, 5, 0), draw(1, Purpose::Seed, 6, 0));
        assert_ne!(draw(1, Purpose::Seed, 5, 0), draw(2, Purpose::Seed, 5, 0));
        assert_ne!(
            draw(1, Purpose::Seed, 5, 0),
            draw(1, Purpose::Variants, 5, 0)
        );
        assert_ne!(draw(1, Purpose::Seed, 5, 0), draw(1, Purpose::Seed, 5, 1));
    }
}
