//! Lookup tables of the 9×9 geometry for the rater, computed by `const fn` so they
//! are plain immutable data (no lazy statics): the 27 units as cell lists and as
//! 81-bit masks, each cell's three units, and each cell's peer mask.
//!
//! Units are numbered rows `0..9`, columns `9..18`, boxes `18..27`. A cell set is a
//! `u128` with bit `cell` set (cells `0..81`, row-major), the same layout as the
//! peer masks of `solve.rs`, so "which cells of this unit hold digit d" is one AND.

/// Unit `u`'s nine cells in row-major order.
pub(crate) static UNIT_CELLS: [[u8; 9]; 27] = build_unit_cells();
/// Unit `u` as a cell mask.
pub(crate) static UNIT_MASK: [u128; 27] = build_unit_mask();
/// The row, column and box unit of each cell.
pub(crate) static CELL_UNITS: [[u8; 3]; 81] = build_cell_units();
/// The 20 peers of each cell as a mask (the cell itself excluded).
pub(crate) static PEERS: [u128; 81] = build_peers();
/// The three units of each cell as a 27-bit mask (bit `u` for unit `u`).
pub(crate) static UNIT_BITS: [u32; 81] = build_unit_bits();

/// The row units, the column units, the box units.
pub(crate) const ROWS: core::ops::Range<usize> = 0..9;
pub(crate) const COLS: core::ops::Range<usize> = 9..18;
pub(crate) const BOXES: core::ops::Range<usize> = 18..27;

const fn box_of(cell: usize) -> usize {
    (cell / 27) * 3 + (cell % 9) / 3
}

const fn build_unit_cells() -> [[u8; 9]; 27] {
    let mut t = [[0u8; 9]; 27];
    let mut i = 0;
    while i < 9 {
        let mut j = 0;
        while j < 9 {
            t[i][j] = (9 * i + j) as u8;
            t[9 + i][j] = (9 * j + i) as u8;
            t[18 + i][j] = (27 * (i / 3) + 3 * (i % 3) + 9 * (j / 3) + j % 3) as u8;
            j += 1;
        }
        i += 1;
    }
    t
}

const fn build_unit_mask() -> [u128; 27] {
    let cells = build_unit_cells();
    let mut t = [0u128; 27];
    let mut u = 0;
    while u < 27 {
        let mut j = 0;
        while j < 9 {
            t[u] |= 1 << cells[u][j];
            j += 1;
        }
        u += 1;
    }
    t
}

const fn build_cell_units() -> [[u8; 3]; 81] {
    let mut t = [[0u8; 3]; 81];
    let mut c = 0;
    while c < 81 {
        t[c] = [(c / 9) as u8, (9 + c % 9) as u8, (18 + box_of(c)) as u8];
        c += 1;
    }
    t
}

const fn build_unit_bits() -> [u32; 81] {
    let units = build_cell_units();
    let mut t = [0u32; 81];
    let mut c = 0;
    while c < 81 {
        t[c] = 1 << units[c][0] | 1 << units[c][1] | 1 << units[c][2];
        c += 1;
    }
    t
}

const fn build_peers() -> [u128; 81] {
    let masks = build_unit_mask();
    let units = build_cell_units();
    let mut t = [0u128; 81];
    let mut c = 0;
    while c < 81 {
        t[c] = (masks[units[c][0] as usize]
            | masks[units[c][1] as usize]
            | masks[units[c][2] as usize])
            & !(1u128 << c);
        c += 1;
    }
    t
}

/// Defines an iterator over the set bits of a mask, lowest first.
macro_rules! set_bits {
    ($(#[$doc:meta])* $name:ident($int:ty)) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub(crate) struct $name(pub $int);

        impl Iterator for $name {
            type Item = usize;
            #[inline]
            fn next(&mut self) -> Option<usize> {
                if self.0 == 0 {
                    return None;
                }
                let b = self.0.trailing_zeros() as usize;
                self.0 &= self.0 - 1;
                Some(b)
            }
        }
    };
}

set_bits!(
    /// Iterates the cells of a mask in increasing order.
    Cells128(u128)
);
set_bits!(
    /// Iterates the set bits of a small mask (digits of a candidate set, positions).
    Bits(u32)
);
set_bits!(
    /// Iterates the set bits of a `u64`.
    Bits64(u64)
);

/// Bit-count tests that need no population count. The baseline x86-64 target has no
/// `popcnt` instruction, so `count_ones` is a dozen operations per word there, and
/// the rater's hot loops mostly ask only "one bit?", "two?", "at most n?": each
/// lowest set bit cleared is two operations. (Measured: 16 % of the rating time of
/// SE 5.0+ puzzles went to software popcounts.)
pub(crate) trait FewBits: Copy {
    /// Exactly one bit set.
    fn one(self) -> bool;
    /// Exactly two bits set.
    fn two(self) -> bool;
    /// At least two bits set.
    fn several(self) -> bool;
    /// At most `n` bits set.
    fn at_most(self, n: u32) -> bool;
    /// Exactly `n` bits set (`n` ≥ 1).
    fn exactly(self, n: u32) -> bool {
        self.at_most(n) && !self.at_most(n - 1)
    }
}

macro_rules! few_bits {
    ($($int:ty),*) => {$(
        impl FewBits for $int {
            // `&`, not `&&`: two cheap tests and no branch between them (a
            // short-circuit is a branch, which mispredicts on these data).
            #[inline]
            fn one(self) -> bool {
                (self != 0) & (self & self.wrapping_sub(1) == 0)
            }
            #[inline]
            fn two(self) -> bool {
                let rest = self & self.wrapping_sub(1);
                (rest != 0) & (rest & rest.wrapping_sub(1) == 0)
            }
            #[inline]
            fn several(self) -> bool {
                self & self.wrapping_sub(1) != 0
            }
            #[inline]
            fn at_most(self, n: u32) -> bool {
                let mut x = self;
                for _ in 0..n {
                    x &= x.wrapping_sub(1);
                }
                x == 0
            }
        }
    )*};
}

few_bits!(u16, u32, u128);

/// Set bits of each 9-bit value: a digit set's size in one load, where `count_ones`
/// is a dozen operations on the baseline target (see [`FewBits`]).
const NINE_BIT_COUNTS: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut i = 0;
    while i < 512 {
        t[i] = (i as u32).count_ones() as u8;
        i += 1;
    }
    t
};

/// How many digits the candidate set `digits` (bits 0–8) holds.
#[inline]
pub(crate) fn digit_count(digits: u16) -> u32 {
    debug_assert!(digits < 512, "a digit set has 9 bits");
    u32::from(NINE_BIT_COUNTS[usize::from(digits) & 511])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_has_twenty_peers_and_units_have_nine_cells() {
        for c in 0..81 {
            assert_eq!(PEERS[c].count_ones(), 20);
            for &u in &CELL_UNITS[c] {
                assert!(UNIT_MASK[u as usize] >> c & 1 == 1);
                assert!(UNIT_BITS[c] >> u & 1 == 1);
            }
            assert_eq!(UNIT_BITS[c].count_ones(), 3);
        }
        for m in UNIT_MASK {
            assert_eq!(m.count_ones(), 9);
        }
        assert_eq!(UNIT_CELLS[18 + 4], [30, 31, 32, 39, 40, 41, 48, 49, 50]);
    }

    #[test]
    fn few_bits_agree_with_count_ones() {
        let mut x: u128 = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834;
        for i in 0..4000u32 {
            // Sparse and dense words: AND or OR a few xorshift steps together.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let w = match i % 4 {
                0 => x & (x >> 3) & (x >> 9) & (x >> 21) & (x >> 40),
                1 => x & (x >> 5) & (x >> 11) & ((1 << 81) - 1),
                2 => 1u128 << (x % 128) | 1u128 << ((x >> 8) % 128),
                _ => x,
            };
            for v in [w, w & 0x1ff, w & 0xffff_ffff] {
                let n = v.count_ones();
                assert_eq!(v.one(), n == 1, "{v:#x}");
                assert_eq!(v.two(), n == 2, "{v:#x}");
                assert_eq!(v.several(), n >= 2, "{v:#x}");
                for k in 0..6 {
                    assert_eq!(v.at_most(k), n <= k, "{v:#x} {k}");
                    if k > 0 {
                        assert_eq!(v.exactly(k), n == k, "{v:#x} {k}");
                    }
                }
            }
            let (h, l) = (w as u16, w as u32);
            assert_eq!(h.two(), h.count_ones() == 2);
            assert_eq!(l.at_most(3), l.count_ones() <= 3);
        }
    }

    #[test]
    fn the_digit_count_table_counts_every_digit_set() {
        for digits in 0..512u16 {
            assert_eq!(digit_count(digits), digits.count_ones(), "{digits:#b}");
        }
    }
}
