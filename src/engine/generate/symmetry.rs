//! Symmetric clue patterns, as print publishers expect (`--symmetry`).
//!
//! A symmetry splits the 81 cells into *orbits*: the sets of cells it maps onto each
//! other. A symmetric carve removes whole orbits at a time — all of an orbit's cells
//! are emptied together and the removal is kept only if the puzzle stays unique — so
//! the clue pattern is invariant under the symmetry, and a puzzle carved to the end
//! is minimal *with respect to orbits* (no orbit can go; a single clue might).
//!
//! * `rot180` — (r, c) ↔ (8−r, 8−c), the classic newspaper symmetry; orbits of 1 or 2.
//! * `rot90` — (r, c) → (c, 8−r) → (8−r, 8−c) → (8−c, r); orbits of 1 or 4.
//! * `mirror` — left-right reflection (r, c) ↔ (r, 8−c); orbits of 1 or 2.
//! * `diagonal` — reflection in the main diagonal (r, c) ↔ (c, r); orbits of 1 or 2.

/// A symmetry of the clue pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    None,
    Rot180,
    Rot90,
    Mirror,
    Diagonal,
}

impl Symmetry {
    pub const ALL: [Symmetry; 5] = [
        Symmetry::None,
        Symmetry::Rot180,
        Symmetry::Rot90,
        Symmetry::Mirror,
        Symmetry::Diagonal,
    ];

    /// The name on the command line and in manifests.
    pub fn name(self) -> &'static str {
        match self {
            Symmetry::None => "none",
            Symmetry::Rot180 => "rot180",
            Symmetry::Rot90 => "rot90",
            Symmetry::Mirror => "mirror",
            Symmetry::Diagonal => "diagonal",
        }
    }

    /// The symmetry called `name`, if any.
    pub fn from_name(name: &str) -> Option<Symmetry> {
        Symmetry::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The image of `cell` under the symmetry's generator on a board of side `n`.
    #[inline]
    fn map(self, n: usize, cell: usize) -> usize {
        let (r, c, m) = (cell / n, cell % n, n - 1);
        let (r2, c2) = match self {
            Symmetry::None => (r, c),
            Symmetry::Rot180 => (m - r, m - c),
            Symmetry::Rot90 => (c, m - r),
            Symmetry::Mirror => (r, m - c),
            Symmetry::Diagonal => (c, r),
        };
        r2 * n + c2
    }

    /// The orbit of `cell` on a board of side `n` (every size): the distinct cells
    /// reached by applying the generator repeatedly (at most 4), `cell` first.
    /// Returned as a fixed array and a length, so the carve loop allocates nothing.
    pub fn orbit_in(self, n: usize, cell: usize) -> ([u16; 4], usize) {
        debug_assert!(cell < n * n);
        let mut out = [cell as u16; 4];
        let mut len = 1;
        let mut next = self.map(n, cell);
        while next != cell && len < 4 {
            out[len] = next as u16;
            len += 1;
            next = self.map(n, next);
        }
        (out, len)
    }

    /// Whether the clue pattern of `cells` (a board of side `n`, 0 = empty) is
    /// invariant under this symmetry: each orbit all given or all empty.
    pub fn keeps_pattern(self, n: usize, cells: &[u8]) -> bool {
        (0..n * n).all(|cell| {
            let (orbit, len) = self.orbit_in(n, cell);
            let given = cells[cell] != 0;
            orbit[..len]
                .iter()
                .all(|&o| (cells[usize::from(o)] != 0) == given)
        })
    }

    /// Whether a pattern symmetric under this symmetry can have `clues` givens on a
    /// board of side `n`: its orbits have 1 cell or `k` (2, or 4 for rot90), and a
    /// pattern is a union of orbits. rot90's 9×9 patterns have 4a or 4a + 1 clues.
    pub fn can_have(self, n: usize, clues: usize) -> bool {
        let (mut singles, mut groups, mut k) = (0, 0, 1);
        for cell in 0..n * n {
            let (orbit, len) = self.orbit_in(n, cell);
            // Each orbit once, at its first cell.
            if orbit[..len].iter().all(|&o| usize::from(o) >= cell) {
                if len == 1 {
                    singles += 1;
                } else {
                    groups += 1;
                    k = len;
                }
            }
        }
        (0..=groups).any(|a| clues >= k * a && clues - k * a <= singles)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::grid::N_CELLS;

    #[test]
    fn clue_counts_follow_the_orbits() {
        for clues in 0..=81 {
            assert!(Symmetry::None.can_have(9, clues));
            assert!(Symmetry::Rot180.can_have(9, clues), "{clues}");
            assert!(Symmetry::Mirror.can_have(9, clues));
            assert!(Symmetry::Diagonal.can_have(9, clues));
            assert_eq!(
                Symmetry::Rot90.can_have(9, clues),
                clues % 4 <= 1,
                "{clues}"
            );
        }
        // 4×4 rot90: four orbits of 4, no centre cell; rot180: eight pairs.
        assert!(Symmetry::Rot90.can_have(4, 8) && !Symmetry::Rot90.can_have(4, 6));
        assert!(!Symmetry::Rot180.can_have(4, 5) && Symmetry::Rot180.can_have(4, 6));
    }

    #[test]
    fn orbits_partition_the_board_with_the_expected_sizes() {
        for s in Symmetry::ALL {
            let max = if s == Symmetry::Rot90 { 4 } else { 2 };
            for cell in 0..N_CELLS {
                let (orbit, len) = s.orbit_in(9, cell);
                assert!(len == 1 || len == max, "{s:?} {cell}");
                assert_eq!(orbit[0] as usize, cell);
                for &o in &orbit[..len] {
                    // Every cell of an orbit has that same orbit (as a set).
                    let (back, back_len) = s.orbit_in(9, o as usize);
                    assert_eq!(back_len, len);
                    assert!(back[..len].contains(&(cell as u16)));
                }
            }
            assert_eq!(Symmetry::from_name(s.name()), Some(s));
        }
        assert_eq!(Symmetry::Rot180.orbit_in(9, 40).1, 1, "the centre is fixed");
        assert_eq!(Symmetry::Rot180.orbit_in(9, 0), ([0, 80, 0, 0], 2));
        assert_eq!(Symmetry::Diagonal.orbit_in(9, 10).1, 1);
    }
}
