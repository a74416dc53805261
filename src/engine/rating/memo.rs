//! The memo the finders that read every cell's candidates share (the wings on four
//! and five cells, the aligned triplets, the unique loops): which cells changed
//! since a finder last found nothing.

use super::tables::Cells128;
use super::Pencilmarks;

/// The candidates of every cell when a finder last found nothing, on the board of the
/// puzzle loaded `load`-th ([`Pencilmarks::loads`]). Candidates only shrink while a
/// puzzle is solved, so a cell whose candidates equal the memo's did not change.
pub(crate) struct CellMemo {
    load: u64,
    cand: [u16; 81],
}

impl Default for CellMemo {
    fn default() -> Self {
        // No puzzle is loaded 0th: every cell counts as changed.
        CellMemo {
            load: 0,
            cand: [0; 81],
        }
    }
}

impl CellMemo {
    /// The empty cells of `b` whose candidates changed since the memo was recorded.
    pub(super) fn changed(&self, b: &Pencilmarks) -> u128 {
        if self.load != b.loads {
            return b.empty;
        }
        let mut changed = 0;
        for c in Cells128(b.empty) {
            changed |= u128::from(b.cand[c] != self.cand[c]) << c;
        }
        changed
    }

    /// A finder's return: when it found nothing, records the board's candidates.
    pub(super) fn remember(&mut self, found: bool, b: &Pencilmarks) -> bool {
        if !found {
            self.load = b.loads;
            self.cand = b.cand;
        }
        found
    }
}
