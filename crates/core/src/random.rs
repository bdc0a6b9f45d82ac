//! SplitMix64: a small, well-mixed generator, seeded alike on every run, for the planner's
//! random choices (the walks, the wedges drawn from the data graph), and its finalizer, the
//! hash of the shares and of the signature table's groups.

/// The generator's state.
pub(crate) struct SplitMix(pub(crate) u64);

impl SplitMix {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(GOLDEN_GAMMA);
        mix(self.0)
    }
}

/// SplitMix64's step between states.
pub(crate) const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's finalizer: every bit of `x` moves every bit of the hash.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}
