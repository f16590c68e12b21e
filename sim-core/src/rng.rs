//! Reproducible random numbers: one master seed, independent named streams.
//!
//! Every consumer of randomness (a traffic pattern, an exponential service
//! station, an adaptive-routing tie breaker) asks [`RngStreams`] for a
//! stream by name, optionally with an index (a rank, a link). A stream is a
//! ChaCha8 generator whose 256-bit key comes from the master seed and whose
//! 64-bit stream number comes from the name and index; ChaCha guarantees
//! that distinct stream numbers under one key give independent sequences.
//! So adding a new consumer never shifts the numbers another one draws, and
//! results do not depend on the order in which streams are created.
//!
//! ChaCha8 is portable (same output on every platform and word size) and
//! its output is fixed by its specification, unlike `StdRng`, whose
//! algorithm may change between `rand` releases.

pub use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator type of every stream.
pub type SimRng = ChaCha8Rng;

/// Derives independent, named random streams from one master seed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RngStreams {
    master: u64,
}

/// FNV-1a 64-bit hash: fixed by specification, so stream numbers are stable
/// across Rust versions (std's `DefaultHasher` is not).
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finalizer: spreads an index over all 64 bits.
fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl RngStreams {
    /// Streams derived from `master`.
    pub fn new(master: u64) -> Self {
        RngStreams { master }
    }

    /// The master seed.
    pub fn master(&self) -> u64 {
        self.master
    }

    /// The stream called `name`.
    pub fn stream(&self, name: &str) -> SimRng {
        self.stream_indexed(name, 0)
    }

    /// The `index`-th stream of family `name` (e.g. one per rank).
    pub fn stream_indexed(&self, name: &str, index: u64) -> SimRng {
        let mut rng = SimRng::seed_from_u64(self.master);
        rng.set_stream(fnv1a64(name.as_bytes()) ^ mix64(index));
        rng
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_name_same_numbers() {
        let s = RngStreams::new(42);
        let draw = |mut r: SimRng| (0..8).map(|_| r.next_u64()).collect::<Vec<_>>();
        assert_eq!(draw(s.stream("x")), draw(s.stream("x")));
        assert_ne!(draw(s.stream("x")), draw(s.stream("y")));
        assert_ne!(
            draw(s.stream_indexed("x", 1)),
            draw(s.stream_indexed("x", 2))
        );
        assert_ne!(draw(s.stream("x")), draw(RngStreams::new(43).stream("x")));
    }

    #[test]
    fn golden_first_draw_is_portable() {
        // Pinned so that a dependency upgrade that changes the numbers (and
        // so every seeded result) is caught here first.
        let v = RngStreams::new(1).stream("golden").next_u64();
        let w = RngStreams::new(1).stream("golden").next_u64();
        assert_eq!(v, w);
        assert_eq!(v, GOLDEN);
    }
    const GOLDEN: u64 = 6_978_422_355_031_520_241;
}
